"""The pack grammar both parsers read by: section names, what each kind of card holds, the
field and list-line patterns, and the wording of near misses.

The full parser (engine/packs/parser.py) and the fast path (engine/packs/plain_pack.py) take
these from here, so the two can only read a pack alike. The format is documented in
decks/README.md.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from functools import lru_cache

from kvdrill.i18n import N_, _

# Section names as written (case, spaces and hyphens ignored) -> canonical name.
SECTIONS = {
    "prompt": "Prompt",
    "answer": "Answer",
    "keynumbers": "Key numbers",
    "followup": "Follow-up",
    "tip": "Tip",
    "choices": "Choices",
    "explanation": "Explanation",
    "related": "Related",
    "problem": "Problem",
}
ALLOWED = {
    "recall": ("Prompt", "Answer", "Key numbers", "Follow-up", "Tip"),
    "choice": ("Prompt", "Choices", "Explanation", "Related", "Tip"),
    "problem": ("Problem", "Explanation", "Tip"),
}
REQUIRED = {
    "recall": ("Prompt", "Answer"),
    "choice": ("Prompt", "Choices"),
    "problem": ("Problem",),
}
LIST_SECTIONS = ("Key numbers", "Choices", "Related")
# Marked: the parser translates them where it reports them.
KIND_NAMES = {"recall": N_("recall"), "choice": N_("multiple-choice"), "problem": N_("problem")}
KIND_REASONS = {
    "recall": N_("it has no ### Choices or ### Problem"),
    "choice": N_("it has ### Choices"),
    "problem": N_("it has a ```problem block"),
}
FIELDS = ("Lessons", "Tags")

# A field line under a card heading: ``Name: value``.
FIELD_RE = re.compile(r"([A-Za-z][A-Za-z -]*?)\s*:(.*)\Z")
# A list item on one line: a bullet, or a number and its delimiter, then a space and text.
SIMPLE_ITEM_RE = re.compile(r"(?:([-*+])|\d{1,9}([.)])) +\S")
THEMATIC_BREAK_RE = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})\Z")
NEWLINES_RE = re.compile(r"\r\n?|\n")
_SECTION_NAME_NOISE_RE = re.compile(r"[\s-]+")


@lru_cache(maxsize=256)
def section_name(heading: str) -> str | None:
    """The canonical name of a ``###`` heading's text, or None (a pack repeats a few names)."""
    return SECTIONS.get(_SECTION_NAME_NOISE_RE.sub("", heading.lower()))


def dedupe(values: list[str]) -> list[str]:
    """``values`` in their order, each once."""
    return list(dict.fromkeys(values))


def close_options(word: str, options: Iterable[str]) -> list[str]:
    """The option ``word`` was most likely meant to be, if one is close (case ignored)."""
    by_lower = {option.lower(): option for option in options}
    found = difflib.get_close_matches(word.lower().strip(), list(by_lower), n=1, cutoff=0.75)
    return [by_lower[match] for match in found]


def suggest(word: str, options: Iterable[str], style: str, lead: str) -> str:
    """'did you mean X?' for a near miss, else the list of what is allowed."""
    options = list(options)
    if close := close_options(word, options):
        return _("did you mean {option}?").format(option=style.format(close[0]))
    return f"{lead} " + ", ".join(options)
