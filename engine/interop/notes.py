"""What a foreign deck is once read: the contract between the readers and the pack writer.

store/anki_package.py (packages) and engine/interop/delimited.py (text files) build these;
engine/interop/pack_text.py turns them into a kvdrill pack.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvdrill.engine.errors import Located, UserError

# A card field longer than this is refused: no flash card needs it, and one would swamp a pack.
MAX_FIELD_CHARS = 65_536


@dataclass(frozen=True)
class ForeignField:
    name: str | None  # the note type's field name, when the source says it
    text: str  # HTML when the note's ``html`` is true, else plain text


@dataclass(frozen=True)
class ForeignNote:
    fields: tuple[ForeignField, ...]  # first: the front; second: the back; then any others
    tags: tuple[str, ...]
    html: bool
    source_id: str | None = None  # Anki's note guid: the note's identity across collections
    line: int = 1  # where the note is in its source (1 in a package)


@dataclass(frozen=True)
class ForeignDeck:
    notes: tuple[ForeignNote, ...]
    title: str  # a title for the pack: the deck's name, or the file's
    media_skipped: int = 0  # media files in a package, not carried over


class ConvertError(UserError):
    """One problem with a file being converted, printed as ``path:line: message``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.problem = Located(path, line, message)
        super().__init__(str(self.problem))


def check_field_size(text: str, path: str, line: int) -> None:
    if len(text) > MAX_FIELD_CHARS:
        raise ConvertError(
            path,
            line,
            f"a field is {len(text):,} characters long; a card field may be at most "
            f"{MAX_FIELD_CHARS:,}",
        )
