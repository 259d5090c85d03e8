"""The grammar of a card heading: ``## TITLE {#id} [solid|priority] [#tag ...]``, and card ids.

Shared by the pack parser (which reads headings) and ``add_ids`` (which writes missing ids).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from kvdrill.engine.errors import printable
from kvdrill.i18n import _

ID_PATTERN = r"[a-z0-9][a-z0-9._-]*"
MAX_ID_CHARS = 64
MAX_TITLE_CHARS = 200
STATUS_WORDS = ("solid", "priority")

_ID_RE = re.compile(ID_PATTERN + r"\Z")
_TAG_RE = re.compile(r"[^\W_][\w.-]*\Z")
_ID_SPAN_RE = re.compile(r"\{#([^{}]*)\}")
# A heading without an id: trailing status words and #tags are not part of the title.
_TRAILER_RE = re.compile(r"(?:\s+(?:solid|priority|#[^\W_][\w.-]*))*\s*\Z")
_SLUG_MAX = 48


@dataclass(frozen=True)
class CardHeading:
    """A ``##`` heading's content, split into its parts."""

    title: str
    card_id: str | None  # None when the heading has no {#...}
    status: str | None
    tags: tuple[str, ...]
    title_end: int  # offset in the content where the title ends: where an id is inserted
    problems: tuple[str, ...]  # what is wrong with the heading, one message each


def shorten(text: str, limit: int = 40) -> str:
    """The first ``limit`` characters of text, on one line, with '...' when cut, printable."""
    text = " ".join(text.split())
    return printable(text if len(text) <= limit else text[: limit - 3].rstrip() + "...")


def id_problem(card_id: str, what: str | None = None) -> str | None:
    """Why ``card_id`` is not a valid id (``what`` names the id, translated: a card id by
    default), or None."""
    what = what or _("card id")
    if len(card_id) > MAX_ID_CHARS:
        return _("{what} is {length} characters long; keep it to {most}").format(
            what=what, length=len(card_id), most=MAX_ID_CHARS
        )
    if not _ID_RE.match(card_id):
        return _(
            '{what} "{id}" is not valid: use lowercase letters, digits, '
            "'.', '_' and '-', starting with a letter or digit"
        ).format(what=what, id=shorten(card_id))
    return None


def normalize_tag(tag: str) -> str:
    """A tag as stored: no '#', composed Unicode (NFC, so Vietnamese tags match), lowercase."""
    return unicodedata.normalize("NFC", tag.strip().removeprefix("#")).lower()


def tag_problem(tag: str) -> str | None:
    """Why ``tag`` (without its '#') is not a valid tag, or None."""
    if len(tag) > MAX_ID_CHARS:
        return _("tag is {length} characters long; keep it to {most}").format(
            length=len(tag), most=MAX_ID_CHARS
        )
    if not _TAG_RE.match(tag):
        return _('tag "{tag}" is not valid: use letters, digits, ".", "_" and "-"').format(
            tag=shorten(tag)
        )
    return None


def _title_problems(title: str) -> list[str]:
    if not title:
        return [_("card heading has no title")]
    if len(title) > MAX_TITLE_CHARS:
        return [
            _("card title is {length} characters long; keep it to {most}").format(
                length=len(title), most=MAX_TITLE_CHARS
            )
        ]
    return []


def parse_card_heading(content: str) -> CardHeading:
    """Split a ``##`` heading's text (without the ``##``) into title, id, status and tags."""
    # Without "{#" there is no id span, and no regex to run.
    spans = list(_ID_SPAN_RE.finditer(content)) if "{#" in content else []
    if not spans:
        trailer = _TRAILER_RE.search(content)  # it matches any text, at the end at least
        title_end = trailer.start() if trailer else len(content)
        title = content[:title_end].strip()
        words = content[title_end:].split()
        # The missing id itself is reported by the parser, which knows the file's path.
        return CardHeading(
            title,
            None,
            next((w for w in words if w in STATUS_WORDS), None),
            tuple(normalize_tag(w) for w in words if w.startswith("#")),
            title_end,
            tuple(_title_problems(title)),
        )

    span = spans[-1]
    before = content[: span.start()]
    title = before.strip()
    card_id = span.group(1).strip()
    problems = _title_problems(title)
    if bad := id_problem(card_id):
        problems.append(bad)
    status: str | None = None
    tags: list[str] = []
    for word in content[span.end() :].split():
        if word in STATUS_WORDS:
            if status is not None:
                problems.append(
                    _("card heading has two status words ({status} and {word})").format(
                        status=status, word=word
                    )
                )
            status = word
        elif word[0] == "#":
            tag = normalize_tag(word)
            if bad := tag_problem(tag):
                problems.append(bad)
            else:
                tags.append(tag)
        else:
            problems.append(
                _(
                    'unexpected "{word}" after the card id: '
                    "only solid, priority and #tags may follow it"
                ).format(word=shorten(word))
            )
    title_end = len(before.rstrip())
    return CardHeading(title, card_id, status, tuple(tags), title_end, tuple(problems))


def slugify(title: str) -> str:
    """A card id made from a title: ASCII, lowercase, words joined by '-'."""
    text = title.replace("đ", "d").replace("Đ", "D")  # Vietnamese đ has no decomposition
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    if len(slug) > _SLUG_MAX:
        cut = slug[:_SLUG_MAX]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return slug or "card"


def unique_id(base: str, taken: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3``... whichever is not yet taken."""
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate
