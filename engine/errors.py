"""Errors a user can cause. Each prints as one line; none should ever surface as a traceback."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from kvdrill.i18n import _


def printable(text: str, multiline: bool = False) -> str:
    """``text`` with every character a terminal could act on (ESC, bidi overrides and
    isolates, zero-width characters, line separators...) written as an escape, so echoing a
    pack's or a learner's text is always safe. ``multiline`` keeps line feeds and tabs, for
    card text printed as it is laid out; a carriage return is escaped either way. A space
    other than U+0020 (a no-break space from an Anki field) is written as a plain space."""
    kept = "\n\t" if multiline else ""
    return "".join(ch if ch.isprintable() or ch in kept else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    if unicodedata.category(ch) == "Zs":  # a no-break or other space: a space to a reader
        return " "
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class UserError(Exception):
    """A problem with the user's input, files or settings, described in one clear sentence."""


class DatabaseUnusable(UserError):
    """The database can take no more writes: deleted, replaced, read-only, full or damaged.

    Whatever was confirmed before is kept; a session stops rather than asking for answers
    it cannot save."""


@dataclass(frozen=True, order=True)
class Located:
    """One problem at a place in a file, printed as ``path:line: message``.

    Paths and messages can quote a hostile file, so the printed line escapes anything a
    terminal would act on; every place that shows a problem (check, import, the TUI) is safe."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return printable(f"{self.path}:{self.line}: {self.message}")


class PackErrors(UserError):
    """Every problem found in one or more pack files."""

    def __init__(self, problems: list[Located]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def did_you_mean(word: str, known: list[str]) -> str:
    """`` (did you mean 'x'?)`` when one of ``known`` is close to ``word``, else ``""``."""
    import difflib

    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    return _(" (did you mean '{word}'?)").format(word=close[0]) if close else ""
