"""Markdown pack -> ``ParsedPack``, reporting every error in the file as ``path:line: message``.

The format is documented in decks/README.md. markdown-it-py finds the blocks (with true line
numbers, front matter included); every text kept on a card is sliced from the original lines, so
it stays the author's Markdown, byte for byte, Rich/Textual markup and all.
"""

from __future__ import annotations

import bisect
import difflib
import gc
import hashlib
import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvdrill.engine.errors import Located, PackErrors
from kvdrill.engine.packs.card_view import MAX_CHOICES, MIN_CHOICES
from kvdrill.engine.packs.headings import (
    CardHeading,
    id_problem,
    normalize_tag,
    parse_card_heading,
    shorten,
    tag_problem,
)
from kvdrill.engine.packs.model import (
    MAX_CARDS_PER_PACK,
    Choice,
    KeyNumber,
    PackMeta,
    ParsedCard,
    ParsedPack,
    Related,
)
from kvdrill.engine.packs.outline import scan_outline
from kvdrill.engine.packs.source import (
    check_pack_text,
    check_unchanged,
    decode_pack_bytes,
    expand_pack_paths,
    read_pack_snapshot,
)
from kvdrill.engine.packs.yaml_blocks import YamlProblem, load_yaml, read_plain_yaml
from kvdrill.engine.records import unchecked

if TYPE_CHECKING:  # markdown-it loads only for a pack the line scanners leave to it
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

MAX_ERRORS_PER_FILE = 100
MAX_LESSON_RANGE = 100

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
KIND_NAMES = {"recall": "recall", "choice": "multiple-choice", "problem": "problem"}
KIND_REASONS = {
    "recall": "it has no ### Choices or ### Problem",
    "choice": "it has ### Choices",
    "problem": "it has a ```problem block",
}
FIELDS = ("Lessons", "Tags")
FRONT_MATTER_TYPES = {
    "pack": "must be text (the pack id)",
    "title": "must be text",
    "version": "must be a number or text",
    "lang": "must be a language tag such as en or vi",
    "lessons": "must be a list of lesson numbers",
    "tags": "must be a list of tags",
    "description": "must be text",
}
FRONT_MATTER_KEYS = tuple(FRONT_MATTER_TYPES)

_FIELD_RE = re.compile(r"([A-Za-z][A-Za-z -]*?)\s*:(.*)\Z")
_ITEM_MARKER_RE = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|\Z)")
_CHECKBOX_RE = re.compile(r"\[([ xX])\](?:[ \t]+|\Z)")
_LINK_RE = re.compile(r"\s*\{#([^{}]*)\}\s*\Z")
_CLAIM_RE = re.compile(r"\s*(`+)[ \t]*claim:(.*?)\1\s*\Z", re.DOTALL)
_LESSON_RANGE_RE = re.compile(r"(\d{1,4})-(\d{1,4})\Z")
_LANG_RE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*\Z")
_NEWLINES_RE = re.compile(r"\r\n?|\n")
# A list item on one line: a bullet, or a number and its delimiter, then a space and text.
_SIMPLE_ITEM_RE = re.compile(r"(?:([-*+])|\d{1,9}([.)])) +\S")
_THEMATIC_BREAK_RE = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})\Z")
_RANGE_DASH_RE = re.compile(r"\s*[-–]\s*")
_LIST_SPLIT_RE = re.compile(r"[,\s]+")
_SECTION_NAME_NOISE_RE = re.compile(r"[\s-]+")


def _block_parser(front_matter: bool, rules: tuple[str, ...] | None = None) -> MarkdownIt:
    # Inline parsing is off: text is sliced from the source, never re-rendered, so it is not
    # needed, and no inline rule ever runs on hostile text.
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    md = MarkdownIt("commonmark")
    if front_matter:
        md.use(front_matter_plugin)
    md.disable("inline")
    if rules is not None:
        md.disable([rule for rule in md.block.ruler.get_all_rules() if rule not in rules])
    return md


@cache
def _markdown() -> MarkdownIt:
    """CommonMark blocks, front matter included."""
    return _block_parser(front_matter=True)


@cache
def _section_markdown() -> MarkdownIt:
    """CommonMark blocks, for a section's lines on their own."""
    return _block_parser(front_matter=False)


@cache
def _outline_markdown() -> MarkdownIt:
    """Only what finds cards and sections: without the list rule a big pack parses about twice
    as fast. Sections that are lists are parsed again with ``_section_markdown``; a pack where
    lists could change the outline is parsed whole by ``_markdown`` (see ``_outline``), so the
    structure found is always CommonMark's."""
    return _block_parser(
        front_matter=True,
        rules=("front_matter", "fence", "html_block", "heading", "lheading", "paragraph"),
    )


def _outline(text: str) -> list[Token]:
    """The pack's top-level tokens, from the fast parser when it sees what CommonMark sees."""
    tokens = _outline_markdown().parse(text)
    lines = _NEWLINES_RE.split(text)
    for token in tokens:
        # An indented heading or fence may sit inside a list item, and a --- under a list is a
        # thematic break, not a setext heading: only the list rule can tell.
        indented = token.type in ("heading_open", "fence") and lines[token.map[0]][:1] == " "
        if indented or (token.type == "heading_open" and token.markup in ("-", "=")):
            return _markdown().parse(text)
    return tokens


@cache
def _front_matter_model() -> Any:
    """The pydantic model whose validation errors word a front matter's wrong types (pydantic
    loads only for a front matter ``_plain_front_matter`` cannot vouch for)."""
    from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr

    class FrontMatter(BaseModel):
        model_config = ConfigDict(extra="forbid")

        pack: StrictStr
        title: StrictStr
        version: StrictStr | StrictInt | StrictFloat
        lang: StrictStr = "en"
        lessons: list[StrictStr | StrictInt] | StrictStr | StrictInt = []
        tags: list[StrictStr] | StrictStr = []
        description: StrictStr = ""

    return FrontMatter


def _plain_front_matter(value: dict[str, Any]) -> bool:
    """True when the front-matter model takes ``value`` as it is: only known keys, the three
    required ones there, every value of exactly a type the model allows (a bool is not an
    int to it)."""
    if (
        not value.keys() <= FRONT_MATTER_TYPES.keys()
        or not {"pack", "title", "version"} <= value.keys()
    ):
        return False
    for key, item in value.items():
        kind = type(item)
        if key == "version":
            ok = kind in (str, int, float)
        elif key == "lessons":
            ok = kind in (str, int) or (
                kind is list and all(type(lesson) in (str, int) for lesson in item)
            )
        elif key == "tags":
            ok = kind is str or (kind is list and all(type(tag) is str for tag in item))
        else:
            ok = kind is str
        if not ok:
            return False
    return True


@dataclass
class _Block:
    """One top-level Markdown block: its type, 0-based line range and what matters of it."""

    kind: str  # paragraph, heading, list, fence, html, other
    start: int
    end: int
    level: int = 0  # heading level
    setext: bool = False
    content: str = ""  # heading text, fence body, html source
    info: str = ""  # fence info string
    markup: str = ""  # fence marker
    items: list[tuple[int, int]] = field(default_factory=list)  # list items' line ranges


@dataclass
class _Section:
    name: str
    line: int  # 0-based line of the ### heading
    end: int  # 0-based line where the section stops (exclusive)
    blocks: list[_Block] = field(default_factory=list)


@dataclass
class _RawCard:
    heading: CardHeading
    line: int  # 0-based
    end: int
    fields: list[_Block] = field(default_factory=list)  # blocks before the first ###
    sections: list[_Section] = field(default_factory=list)
    # Sections a misspelled ### heading was reported as a near miss of: their absence is the
    # same mistake, so it is not reported again.
    misspelled: set[str] = field(default_factory=set)


class PackFileErrors(PackErrors):
    """One file's problems, how many of its cards (follow-ups included) parsed cleanly, and
    every key number read (their claims can still be checked)."""

    def __init__(
        self, problems: list[Located], sound_cards: int, key_numbers: list[KeyNumber] | None = None
    ):
        super().__init__(problems)
        self.sound_cards = sound_cards
        self.key_numbers = key_numbers or []


@dataclass
class CheckedPaths:
    """Every pack file under some paths, parsed: what a pack author is told about them."""

    packs: list[ParsedPack]  # the files that parsed without an error
    problems: list[Located]
    # Cards that parsed without an error of their own, counting those in files with errors.
    cards: int
    # Files with errors: (path, every key number read), so their claims are checked too.
    partial: list[tuple[str, list[KeyNumber]]] = field(default_factory=list)


def outline_blocks(text: str) -> list[_Block]:
    """The pack's top-level blocks: from the line scanner (engine/packs/outline.py) when it can
    tell, else from markdown-it; both give the same blocks."""
    scanned = scan_outline(text)
    if scanned is None:
        return _blocks(_outline(text))
    return [_Block(kind, start, end, **fields) for kind, start, end, fields in scanned]


def _blocks(tokens: list[Token]) -> list[_Block]:
    """The top-level blocks of a token stream (list items kept as line ranges)."""
    blocks: list[_Block] = []
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            if token.type == "list_item_open" and token.level == 1 and blocks:
                blocks[-1].items.append((token.map[0], token.map[1]))
            continue
        start, end = token.map
        if token.type == "heading_open":
            blocks.append(
                _Block(
                    "heading",
                    start,
                    end,
                    level=int(token.tag[1]),
                    setext=token.markup in ("-", "="),
                    content=tokens[index + 1].content,
                )
            )
        elif token.type == "paragraph_open":
            blocks.append(_Block("paragraph", start, end))
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            blocks.append(_Block("list", start, end, markup=token.markup))
        elif token.type == "fence":
            blocks.append(
                _Block(
                    "fence",
                    start,
                    end,
                    content=token.content,
                    info=token.info.strip(),
                    markup=token.markup,
                )
            )
        elif token.type == "html_block":
            blocks.append(_Block("html", start, end, content=token.content))
        elif token.type == "front_matter":
            blocks.append(_Block("front_matter", start, end, content=token.content))
        else:
            blocks.append(_Block("other", start, end))
    return blocks


@lru_cache(maxsize=256)
def _section_name(heading: str) -> str | None:
    """The canonical name of a ``###`` heading's text, or None (a pack repeats a few names)."""
    return SECTIONS.get(_SECTION_NAME_NOISE_RE.sub("", heading.lower()))


def _close(word: str, options: Iterable[str]) -> list[str]:
    """The option ``word`` was most likely meant to be, if one is close (case ignored)."""
    by_lower = {option.lower(): option for option in options}
    found = difflib.get_close_matches(word.lower().strip(), list(by_lower), n=1, cutoff=0.75)
    return [by_lower[match] for match in found]


def _suggest(word: str, options: Iterable[str], style: str, lead: str) -> str:
    """'did you mean X?' for a near miss, else the list of what is allowed."""
    options = list(options)
    if close := _close(word, options):
        return f"did you mean {style.format(close[0])}?"
    return f"{lead} " + ", ".join(options)


def _is_blank(line: str) -> bool:
    """Blank as Markdown sees it: spaces and tabs only (U+2028 and friends are text)."""
    return not line.strip(" \t")


def _dedupe(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


class _PackParser:
    def __init__(self, text: str, path: str, content_hash: str):
        self.path = path
        self.content_hash = content_hash
        self.text = text[1:] if text.startswith("\ufeff") else text
        # str.split is several times faster than the regex, and the same without a \r.
        lines = self.text.split("\n") if "\r" not in self.text else _NEWLINES_RE.split(self.text)
        self.lines = lines
        self.errors: list[Located] = []
        self.key_numbers_read: list[KeyNumber] = []  # of every card, for claims in a broken file

    # -- helpers -----------------------------------------------------------------------------

    def capped_errors(self) -> list[Located]:
        """The first ``MAX_ERRORS_PER_FILE`` errors, then one line saying how many more."""
        errors = sorted(self.errors)
        if len(errors) <= MAX_ERRORS_PER_FILE:
            return errors
        rest = errors[MAX_ERRORS_PER_FILE]
        hidden = len(errors) - MAX_ERRORS_PER_FILE
        return errors[:MAX_ERRORS_PER_FILE] + [
            Located(self.path, rest.line, f"... and {hidden} more errors in this file")
        ]

    def error(self, line: int, message: str) -> None:
        """Record a problem at a 0-based line."""
        self.errors.append(Located(self.path, line + 1, message))

    def source(self, start: int, end: int) -> str:
        """Lines [start, end) as written, without leading or trailing blank lines."""
        start, end = self.trimmed(start, end)
        return "\n".join(self.lines[start:end])

    def trimmed(self, start: int, end: int) -> tuple[int, int]:
        """Lines [start, end) without leading or trailing blank lines (start == end: none)."""
        lines = self.lines
        while start < end and not lines[start].strip(" \t"):  # _is_blank, inlined: hot
            start += 1
        while end > start and not lines[end - 1].strip(" \t"):
            end -= 1
        return start, end

    def item_text(self, start: int, end: int) -> str:
        """A list item's Markdown without its bullet: first line, then dedented continuation."""
        if end - start == 1:  # the usual one-line item, without splitting and joining
            return _ITEM_MARKER_RE.sub("", self.lines[start], count=1).strip()
        first, *rest = self.source(start, end).split("\n")
        first = _ITEM_MARKER_RE.sub("", first, count=1)
        if not rest:
            return first.strip()
        return (first.strip() + "\n" + textwrap.dedent("\n".join(rest))).strip()

    # -- the whole file ----------------------------------------------------------------------

    def parse(self) -> ParsedPack:
        blocks = outline_blocks(self.text)
        if not blocks or blocks[0].kind != "front_matter":
            if self.lines[0].startswith("---"):
                self.error(0, "front matter opened here is never closed: end it with a line ---")
            else:
                self.error(
                    0,
                    "no front matter: a pack starts with a line ---, then pack:, title: and "
                    "version: lines, then a line ---",
                )
            raise PackErrors(self.errors)
        meta = self.front_matter(blocks[0])
        body = blocks[1:]
        self.check_unclosed(body)
        first_card = next(
            (
                i
                for i, b in enumerate(body)
                if b.kind == "heading" and b.level == 2 and not b.setext
            ),
            len(body),
        )
        intro_end = body[first_card].start if first_card < len(body) else len(self.lines)
        for block in body[:first_card]:
            self.check_heading_style(block)
        intro = self.source(blocks[0].end, intro_end)
        raw_cards = self.split_cards(body[first_card:])
        cards = self.build_cards(raw_cards)
        if not raw_cards:
            self.error(0, "pack has no cards: add one under a heading `## Title {#card-id}`")
        if self.errors or meta is None:
            raise PackFileErrors(
                self.capped_errors(), self.sound_cards(raw_cards), self.key_numbers_read
            )
        return ParsedPack(
            meta=meta, intro=intro, cards=cards, path=self.path, content_hash=self.content_hash
        )

    def front_matter(self, block: _Block, vouched: bool = False) -> PackMeta | None:
        """The pack's metadata, or None with every problem recorded. With ``vouched`` (the fast
        path's shortcuts), plain YAML is read without PyYAML and plain values skip the model."""
        offset = block.start + 1  # the YAML starts on the line after ---
        loaded = read_plain_yaml(block.content) if vouched else None
        try:
            loaded = loaded or load_yaml(block.content)
        except YamlProblem as problem:
            self.error(offset + problem.line, f"front matter: {problem.message}")
            return None
        if not isinstance(loaded.value, dict):
            self.error(
                block.start,
                "front matter must be `key: value` lines with at least pack:, title: and version:",
            )
            return None

        def line_of(key: object) -> int:
            if isinstance(key, str) and key in loaded.key_lines:
                return offset + loaded.key_lines[key]
            return block.start

        typed = True
        reported: set[object] = set()
        if not (vouched and _plain_front_matter(loaded.value)):
            typed = self.front_matter_types(loaded.value, block.start, line_of, reported)
        # Check the meaning of every value whose type was right, even if another key failed.
        values = {k: v for k, v in loaded.value.items() if k not in reported}
        errors_before = len(self.errors)
        if isinstance(pack := values.get("pack"), str) and (bad := id_problem(pack, "pack id")):
            self.error(line_of("pack"), bad)
        if isinstance(title := values.get("title"), str) and not title.strip():
            self.error(line_of("title"), "front-matter `title` is empty")
        if isinstance(lang := values.get("lang"), str) and not _LANG_RE.match(lang):
            self.error(
                line_of("lang"),
                f'lang "{shorten(lang)}" is not a language tag such as en, vi or en-GB',
            )
        lessons = self.lessons(values.get("lessons", []), line_of("lessons"))
        tags = self.tags(values.get("tags", []), line_of("tags"))
        if not typed or len(self.errors) > errors_before or lessons is None or tags is None:
            return None
        # Every type was right, so these are the values as written.
        return PackMeta(
            pack=values["pack"],
            title=values["title"].strip(),
            version=str(values["version"]),
            lang=values.get("lang", "en"),
            lessons=lessons,
            tags=tags,
            description=values.get("description", "").strip(),
        )

    def front_matter_types(
        self,
        value: dict[str, Any],
        start: int,
        line_of: Callable[[object], int],
        reported: set[object],
    ) -> bool:
        """Whether every front-matter value has its type, recording one error per key that
        has not (in ``reported`` too)."""
        from pydantic import ValidationError

        try:
            _front_matter_model().model_validate(value)
            return True
        except ValidationError as exc:
            for err in exc.errors():
                key = err["loc"][0] if err["loc"] else ""
                if key in reported:
                    continue  # one message per key, not one per branch of a union
                reported.add(key)
                if err["type"] == "missing":
                    self.error(start, f"front matter has no `{key}:` (it is required)")
                elif err["type"] == "extra_forbidden":
                    self.error(
                        line_of(key),
                        f"unknown front-matter key `{key}`; "
                        + _suggest(str(key), FRONT_MATTER_KEYS, "`{}`", "the keys are"),
                    )
                else:
                    self.error(
                        line_of(key),
                        f"front-matter `{key}`: {FRONT_MATTER_TYPES.get(str(key), 'has the wrong type')}",
                    )
            return False

    def lessons(self, value: list[str | int] | str | int, line: int) -> list[str] | None:
        """Lesson numbers, zero-padded to two digits so 5 and 05 are one lesson."""
        if isinstance(value, str):
            raw = [value]
        elif isinstance(value, int):
            raw = [str(value)]
        else:
            raw = [str(v) for v in value]
        text = _RANGE_DASH_RE.sub("-", ", ".join(raw))
        result: list[str] = []
        for word in _LIST_SPLIT_RE.split(text.strip()):
            if not word:
                continue
            if word.isdigit():
                result.append(f"{int(word):02d}")
            elif match := _LESSON_RANGE_RE.match(word):
                low, high = int(match.group(1)), int(match.group(2))
                if low > high or high - low > MAX_LESSON_RANGE:
                    self.error(line, f'lesson range "{word}" is backwards or too wide')
                    return None
                result.extend(f"{n:02d}" for n in range(low, high + 1))
            else:
                self.error(
                    line, f'lesson "{shorten(word)}" is not a lesson number or a range like 03-05'
                )
                return None
        return _dedupe(result)

    def tags(self, value: list[str] | str, line: int) -> list[str] | None:
        words = _LIST_SPLIT_RE.split(value) if isinstance(value, str) else value
        result: list[str] = []
        for word in words:
            tag = normalize_tag(word)
            if not tag:
                continue
            if bad := tag_problem(tag):
                self.error(line, bad)
                return None
            result.append(tag)
        return _dedupe(result)

    def check_unclosed(self, blocks: list[_Block]) -> None:
        """An unclosed fence or HTML comment would silently swallow the rest of the file."""
        for block in blocks:
            if block.kind == "fence":
                last = self.lines[block.end - 1].strip() if block.end - block.start >= 2 else ""
                closed = (
                    block.end - block.start >= 2
                    and last.startswith(block.markup)
                    and set(last) == {block.markup[0]}
                )
                if not closed:
                    self.error(
                        block.start, f"code block opened here with {block.markup} is never closed"
                    )
            elif block.kind == "html" and "<!--" in block.content and "-->" not in block.content:
                self.error(block.start, "HTML comment <!-- opened here is never closed with -->")

    def check_heading_style(self, block: _Block) -> None:
        if block.kind == "heading" and block.setext and block.level == 2:
            self.error(
                block.end - 1,  # the --- line
                "text followed by a line of --- makes a heading; put a blank line before --- or "
                "write a card as `## Title {#card-id}`",
            )

    # -- cards -------------------------------------------------------------------------------

    def split_cards(self, blocks: list[_Block]) -> list[_RawCard]:
        cards: list[_RawCard] = []
        for block in blocks:
            is_card = block.kind == "heading" and block.level == 2 and not block.setext
            if is_card:
                if len(cards) == MAX_CARDS_PER_PACK:
                    self.error(
                        block.start,
                        f"pack has more than {MAX_CARDS_PER_PACK} cards (this is card "
                        f"{MAX_CARDS_PER_PACK + 1}); split it into smaller packs",
                    )
                    break
                if cards:
                    self.close_card(cards[-1], block.start)
                cards.append(_RawCard(parse_card_heading(block.content), block.start, 0))
                continue
            card = cards[-1]
            if block.setext:
                self.check_heading_style(block)
            if block.kind == "heading" and block.level == 3:
                name = _section_name(block.content)
                if name is None:
                    card.misspelled.update(_close(block.content, SECTIONS.values()))
                    self.error(
                        block.start,
                        f'unknown section "### {shorten(block.content)}"; '
                        + _suggest(
                            block.content,
                            dict.fromkeys(SECTIONS.values()),
                            "### {}",
                            "sections are",
                        ),
                    )
                    name = "?"
                elif any(s.name == name for s in card.sections):
                    first = next(s for s in card.sections if s.name == name)
                    self.error(
                        block.start,
                        f"section ### {name} appears twice in this card "
                        f"(first on line {first.line + 1})",
                    )
                    name = "?"
                if card.sections:
                    card.sections[-1].end = block.start
                card.sections.append(_Section(name, block.start, 0))
            elif block.kind == "heading" and block.level == 1:
                self.error(
                    block.start,
                    "a # heading inside a card: cards start with ## and their sections with ###",
                )
            elif card.sections:
                card.sections[-1].blocks.append(block)
            else:
                card.fields.append(block)
        if cards:
            self.close_card(cards[-1], len(self.lines))
        return cards

    def sound_cards(self, raw_cards: list[_RawCard]) -> int:
        """Cards, follow-ups included, that have an id and no error on any of their lines."""
        error_lines = sorted(problem.line - 1 for problem in self.errors)
        sound = 0
        for raw in raw_cards:
            first_error = bisect.bisect_left(error_lines, raw.line)
            if raw.heading.card_id is None or (
                first_error < len(error_lines) and error_lines[first_error] < raw.end
            ):
                continue
            sound += 1 + any(section.name == "Follow-up" for section in raw.sections)
        return sound

    @staticmethod
    def close_card(card: _RawCard, end: int) -> None:
        card.end = end
        if card.sections:
            card.sections[-1].end = end

    def build_cards(self, raw_cards: list[_RawCard]) -> list[ParsedCard]:
        ids: dict[str, int] = {}
        for raw in raw_cards:
            card_id = raw.heading.card_id
            if card_id is None or id_problem(card_id):
                continue
            if card_id in ids:
                self.error(
                    raw.line,
                    f'duplicate card id "{card_id}" (first used on line {ids[card_id] + 1})',
                )
            else:
                ids[card_id] = raw.line
        self.parse_lists([s for raw in raw_cards for s in raw.sections if s.name in LIST_SECTIONS])
        cards: list[ParsedCard] = []
        for raw in raw_cards:
            cards.extend(self.build_card(raw, ids))
        return cards

    def build_card(self, raw: _RawCard, ids: dict[str, int]) -> list[ParsedCard]:
        heading = raw.heading
        for problem in heading.problems:
            self.error(raw.line, problem)
        if heading.card_id is None and heading.title:
            self.error(
                raw.line,
                f'card "{shorten(heading.title)}" has no id {{#...}}; '
                f"run kvdrill check --add-ids {self.path}",
            )
        lessons, tags = self.card_fields(raw)
        sections = {s.name: s for s in raw.sections if s.name != "?"}

        if "Choices" in sections and "Problem" in sections:
            self.error(sections["Problem"].line, "a card has ### Choices or ### Problem, not both")
        # A misspelled ### Choises still says what kind of card the author meant.
        meant = sections.keys() | raw.misspelled
        kind = "choice" if "Choices" in meant else "problem" if "Problem" in meant else None
        problem_fences = [
            (s, b)
            for s in raw.sections
            for b in s.blocks
            if b.kind == "fence" and b.info.split()[:1] == ["problem"]
        ]
        if kind is None:
            # A misplaced problem block still makes a problem card, unless the card is plainly
            # a recall card: then the one error is where the block is.
            looks_recall = "Prompt" in sections or "Answer" in sections
            kind = "problem" if problem_fences and not looks_recall else "recall"
        for section, block in problem_fences:
            if section.name != "Problem" and not (
                section.name == "?" and "Problem" in raw.misspelled
            ):
                self.error(
                    block.start, "a ```problem block belongs in the card's ### Problem section"
                )
        for name, section in sections.items():
            if name not in ALLOWED[kind]:
                self.error(
                    section.line,
                    f"### {name} does not belong on a {KIND_NAMES[kind]} "
                    "card (" + KIND_REASONS[kind] + ")",
                )
        for name in REQUIRED[kind]:
            if name in raw.misspelled:
                continue  # reported as the misspelled heading, with its suggestion
            if name not in sections and not (name == "Problem" and problem_fences):
                self.error(raw.line, f"{KIND_NAMES[kind]} card has no ### {name} section")

        card: dict[str, Any] = {
            "key": heading.card_id or "",
            "kind": kind,
            "title": heading.title,
            "status": heading.status,
            "tags": _dedupe(list(heading.tags) + tags),
            "lessons": lessons,
            "line": raw.line + 1,
        }
        followup: ParsedCard | None = None
        for name, section in sections.items():
            if name in ("Prompt", "Answer", "Tip", "Explanation"):
                text = self.source(section.line + 1, section.end)
                if not text:
                    self.error(section.line, f"### {name} is empty")
                card[name.lower()] = text
            elif name == "Key numbers":
                card["key_numbers"] = self.key_numbers(section)
            elif name == "Choices":
                card["choices"] = self.choices(section)
            elif name == "Related":
                card["related"] = self.related(section, ids)
            elif name == "Problem":
                card["problem"], card["problem_line"], card["problem_field_lines"] = self.problem(
                    section
                )
            elif name == "Follow-up":
                followup = self.followup(section, card)
        if heading.card_id is None or self.errors:
            return []  # nothing will be returned; skip building models from broken parts
        parent = ParsedCard(**card)
        return [parent, followup] if followup else [parent]

    def card_fields(self, raw: _RawCard) -> tuple[list[str], list[str]]:
        """The Lessons: and Tags: lines under a card heading.

        Reading stops, with one error, at the first line that is not a field line: what
        follows is prose, a list or code, not more fields.
        """
        lessons: list[str] = []
        tags: list[str] = []
        seen: dict[str, int] = {}
        candidates: list[tuple[int, str | None]] = []  # (line, its text if it may be a field)
        for block in raw.fields:
            if block.kind == "paragraph":
                candidates.extend(
                    (n, self.lines[n].rstrip()) for n in range(block.start, block.end)
                )
            else:
                candidates.append((block.start, None))
        for line, text in candidates:
            match = _FIELD_RE.match(text) if text is not None else None
            if not match:
                self.error(
                    line,
                    "under a card heading, before its first ### section, only "
                    "field lines (Lessons: ..., Tags: ...) may appear",
                )
                break
            name = match.group(1).strip().capitalize()
            value = match.group(2).strip()
            if name not in FIELDS:
                self.error(
                    line,
                    f'unknown field "{shorten(match.group(1))}:"; '
                    + _suggest(match.group(1), FIELDS, "{}:", "fields are"),
                )
                continue
            if name in seen:
                self.error(line, f"field {name}: appears twice (first on line {seen[name] + 1})")
                continue
            seen[name] = line
            if name == "Lessons":
                lessons = self.lessons(value, line) or []
            else:
                tags = self.tags(value, line) or []
        return lessons, tags

    def parse_lists(self, sections: list[_Section]) -> None:
        """Give list sections their blocks with lists as lists (the outline does not see lists).

        One parse of all of them, joined by a ``#`` line that ends any list or paragraph, is
        much faster than one parse each; if a block runs over a joint (an unclosed fence),
        each section is parsed on its own instead.
        """
        sections = [s for s in sections if not self.simple_list(s)]
        if not sections:
            return
        joined: list[str] = []
        starts: list[int] = []
        for section in sections:
            starts.append(len(joined))
            joined.extend(self.lines[section.line + 1 : section.end])
            joined.append("#")
        found: list[list[_Block]] = [[] for _ in sections]
        for block in _blocks(_section_markdown().parse("\n".join(joined))):
            index = bisect.bisect_right(starts, block.start) - 1
            joint = starts[index] + sections[index].end - sections[index].line - 1
            if block.start == joint:
                continue
            if block.end > joint:
                for section in sections:
                    self.parse_one_section(section)
                return
            found[index].append(self.shifted(block, sections[index].line + 1 - starts[index]))
        for section, blocks in zip(sections, found, strict=True):
            section.blocks = blocks

    def simple_list(self, section: _Section) -> bool:
        """Read a section that is plainly a tight list of one-line items without markdown-it.

        When every line starts at column 0 with the same marker, a space and some text (and
        none is a thematic break such as ``- - -``), CommonMark reads one list with one item per
        line. Most list sections look like that, and markdown-it's list rule is slow.
        """
        start, end = self.trimmed(section.line + 1, section.end)
        if start == end:
            return False
        marker = None
        for line in self.lines[start:end]:
            match = _SIMPLE_ITEM_RE.match(line)
            if not match or _THEMATIC_BREAK_RE.match(line):
                return False
            this = match.group(1) or match.group(2)
            if marker is None:
                marker = this
            elif this != marker:
                return False
        block = _Block("list", start, end, items=[(n, n + 1) for n in range(start, end)])
        section.blocks = [block]
        return True

    def parse_one_section(self, section: _Section) -> None:
        offset = section.line + 1
        text = "\n".join(self.lines[offset : section.end])
        section.blocks = [self.shifted(b, offset) for b in _blocks(_section_markdown().parse(text))]

    @staticmethod
    def shifted(block: _Block, offset: int) -> _Block:
        block.start += offset
        block.end += offset
        block.items = [(start + offset, end + offset) for start, end in block.items]
        return block

    def list_items(self, section: _Section, what: str) -> list[tuple[int, int]]:
        """The items of a section that must hold only a list."""
        items: list[tuple[int, int]] = []
        for block in section.blocks:
            if block.kind == "list":
                items.extend(block.items)
            else:
                self.error(
                    block.start,
                    f"### {section.name} holds only a list of {what}, each item starting with - ",
                )
        if not section.blocks:
            self.error(section.line, f"### {section.name} is empty")
        return items

    def key_numbers(self, section: _Section) -> list[KeyNumber]:
        result: list[KeyNumber] = []
        for start, end in self.list_items(section, "figures"):
            text = self.item_text(start, end)
            claim: str | None = None
            line = start
            # Without a backtick there is no claim, and no regex to run.
            if match := _CLAIM_RE.search(text) if "`" in text else None:
                claim = match.group(2).strip()
                line = start + text[: match.start(1)].count("\n")
                text = text[: match.start()].rstrip()
                if not claim:
                    self.error(line, "empty claim: write `claim: QUANTITY name=value ... = VALUE`")
            elif "`" in text and "`claim:" in text.replace("` claim:", "`claim:"):
                self.error(start, "a claim must come last in its key-numbers item")
            if not text:
                self.error(start, "key-numbers item is empty")
            result.append(unchecked(KeyNumber, {"text": text, "claim": claim, "line": line + 1}))
        self.key_numbers_read.extend(result)
        return result

    def choices(self, section: _Section) -> list[Choice]:
        items = self.list_items(section, "choices")
        lists = [b for b in section.blocks if b.kind == "list"]
        if len(lists) > 1:
            self.error(
                lists[1].start,
                "### Choices holds one list; changing the bullet "
                "character or numbering starts a second one",
            )
        result: list[Choice] = []
        for start, end in items:
            text = self.item_text(start, end)
            box = _CHECKBOX_RE.match(text)
            if not box:
                self.error(
                    start,
                    "choice has no [ ] or [x] box: write `- [x] ...` for a correct "
                    "choice and `- [ ] ...` for a wrong one",
                )
                continue
            text = text[box.end() :].strip()
            if not text:
                self.error(start, "choice is empty")
            result.append(unchecked(Choice, {"text": text, "correct": box.group(1) != " "}))
        count = sum(len(b.items) for b in lists)
        if lists and not MIN_CHOICES <= count <= MAX_CHOICES:
            self.error(
                section.line,
                f"### Choices has {count} choices; write {MIN_CHOICES} to {MAX_CHOICES}",
            )
        if result and not any(c.correct for c in result):
            self.error(section.line, "no choice is marked correct: mark it `- [x] ...`")
        return result

    def related(self, section: _Section, ids: dict[str, int]) -> list[Related]:
        result: list[Related] = []
        for start, end in self.list_items(section, "related prompts"):
            text = self.item_text(start, end)
            card: str | None = None
            if match := _LINK_RE.search(text):
                card = match.group(1).strip()
                text = text[: match.start()].rstrip()
                if card not in ids:
                    self.error(
                        start,
                        f"related item links to {{#{shorten(card)}}}, but this pack has no "
                        "card with that id"
                        + (
                            f"; did you mean {{#{close[0]}}}?"
                            if (close := _close(card, ids))
                            else ""
                        ),
                    )
            if not text:
                self.error(start, "related item has no prompt")
            result.append(unchecked(Related, {"prompt": text, "card": card}))
        return result

    def problem(
        self, section: _Section
    ) -> tuple[dict[str, Any] | None, int | None, dict[str, int]]:
        """The block's mapping, the 1-based line of its fence, and the line of each field."""
        fences = [
            b for b in section.blocks if b.kind == "fence" and b.info.split()[:1] == ["problem"]
        ]
        if not fences:
            self.error(section.line, "### Problem has no ```problem block")
            return None, None, {}
        # One error for whatever else is there: how Markdown splits it into blocks is no help.
        if other := next((b for b in section.blocks if b is not fences[0]), None):
            what = "a second ```problem block" if other in fences else "anything else"
            self.error(other.start, f"### Problem holds one ```problem block and not {what}")
        block = fences[0]
        try:
            loaded = load_yaml(block.content)
        except YamlProblem as problem:
            self.error(block.start + 1 + problem.line, f"problem block: {problem.message}")
            return None, block.start + 1, {}
        if not isinstance(loaded.value, dict) or not loaded.value:
            self.error(block.start, "problem block must be YAML `field: value` lines")
            return None, block.start + 1, {}
        fence_line = block.start + 1
        # The YAML starts on the line after the fence; key_lines count from 0 within it.
        field_lines = {key: fence_line + 1 + line for key, line in loaded.key_lines.items()}
        return loaded.value, fence_line, field_lines

    def followup(self, section: _Section, parent: dict[str, Any]) -> ParsedCard | None:
        """A ``Q:`` paragraph and an ``A:`` paragraph (or line) -> a card of its own."""
        # The answer starts at the first later line beginning with A:, outside code and HTML.
        hidden = {
            line
            for block in section.blocks
            if block.kind in ("fence", "html")
            for line in range(block.start, block.end)
        }
        first = section.blocks[0] if section.blocks else None
        if (
            first is None
            or first.kind != "paragraph"
            or not self.lines[first.start].lstrip().startswith("Q:")
        ):
            self.error(
                section.line,
                "### Follow-up starts with a paragraph `Q: the question`, then `A: its answer`",
            )
            return None
        answer_line = next(
            (
                line
                for line in range(first.start + 1, section.end)
                if line not in hidden and self.lines[line].lstrip().startswith("A:")
            ),
            None,
        )
        if answer_line is None:
            self.error(section.line, "### Follow-up has a Q: but no A: line with its answer")
            return None
        question = self.source(first.start, answer_line).lstrip().removeprefix("Q:").strip()
        answer = self.source(answer_line, section.end).lstrip().removeprefix("A:").strip()
        if not question:
            self.error(first.start, "follow-up question after Q: is empty")
        if not answer:
            self.error(answer_line, "follow-up answer after A: is empty")
        if not (question and answer and parent["key"]):
            return None
        return ParsedCard(
            key=f"{parent['key']}/follow-up",
            kind="followup",
            title=parent["title"],
            status=parent["status"],
            tags=list(parent["tags"]),
            lessons=list(parent["lessons"]),
            prompt=question,
            answer=answer,
            parent=parent["key"],
            line=section.line + 1,
        )


def _parse(text: str, path: str, content_hash: str) -> ParsedPack:
    # A big pack makes hundreds of thousands of short-lived objects and no cycles worth
    # collecting: pausing the cyclic GC meanwhile makes parsing about a third faster.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        from kvdrill.engine.packs.plain_pack import parse_plain_pack

        parsed = parse_plain_pack(_PackParser(text, path, content_hash))
        return parsed or _PackParser(text, path, content_hash).parse()
    finally:
        if was_enabled:
            gc.enable()


def card_headings(text: str) -> list[tuple[int, CardHeading]]:
    """Every card heading of a pack's text, with its 0-based line, as the parser sees them.

    Text without front matter is no pack, so it has no card headings.
    """
    text = text[1:] if text.startswith("\ufeff") else text
    blocks = outline_blocks(text)
    if not blocks or blocks[0].kind != "front_matter":
        return []
    return [
        (block.start, parse_card_heading(block.content))
        for block in blocks
        if block.kind == "heading" and block.level == 2 and not block.setext
    ]


def parse_pack_text(text: str, path: str) -> ParsedPack:
    """Parse a pack's text; ``path`` is only used in messages. Raises ``PackErrors``."""
    check_pack_text(text, path)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return _parse(text, path, digest)


def parse_pack(path: Path) -> ParsedPack:
    """Parse one pack file. Raises ``PackErrors`` listing every problem found in it."""
    data, seen = read_pack_snapshot(path)
    try:
        text = decode_pack_bytes(data, str(path))
        check_pack_text(text, str(path))
        pack = _parse(text, str(path), hashlib.sha256(data).hexdigest())
    except PackErrors:
        check_unchanged(path, seen)  # a file being saved explains its errors better
        raise
    # Checked after parsing, not only around the read: a program writing the file in pieces
    # is more likely caught in the longer window.
    check_unchanged(path, seen)
    return pack


def parse_paths(paths: list[Path]) -> tuple[list[ParsedPack], list[Located]]:
    """Parse every pack in ``paths`` (directories recursively: *.md, README.md skipped).

    Returns the packs that parsed and every problem across all files, including a pack id
    used by two files.
    """
    checked = check_paths(paths)
    return checked.packs, checked.problems


def check_paths(paths: list[Path]) -> CheckedPaths:
    """``parse_paths``, also counting the cards that parsed cleanly in files with errors."""
    files, missing = expand_pack_paths(paths)
    checked = check_files(files)
    return CheckedPaths(checked.packs, missing + checked.problems, checked.cards)


def check_files(
    files: list[Path], progress: Callable[[int, int], None] | None = None
) -> CheckedPaths:
    """Parse pack files (already found by ``expand_pack_paths``): the packs, every problem
    (a pack id used by two files included) and the cards that parsed. ``progress`` hears
    (files done, files in all)."""
    packs: list[ParsedPack] = []
    problems: list[Located] = []
    cards = 0
    first_file: dict[str, str] = {}
    partial: list[tuple[str, list[KeyNumber]]] = []
    for done, file in enumerate(files, start=1):
        try:
            try:
                pack = parse_pack(file)
            except PackErrors as exc:
                problems.extend(exc.problems)
                if isinstance(exc, PackFileErrors):
                    cards += exc.sound_cards
                    partial.append((str(file), exc.key_numbers))
                continue
            cards += len(pack.cards)
            if pack.meta.pack in first_file:
                problems.append(
                    Located(
                        pack.path,
                        _front_matter_line(pack, "pack"),
                        f'pack id "{pack.meta.pack}" is already used by {first_file[pack.meta.pack]}',
                    )
                )
                continue
            first_file[pack.meta.pack] = pack.path
            packs.append(pack)
        finally:
            if progress is not None:
                progress(done, len(files))

    return CheckedPaths(packs, problems, cards, partial)


def _front_matter_line(pack: ParsedPack, key: str) -> int:
    """1-based line of ``key:`` in a parsed pack's front matter (1 if it cannot be found)."""
    try:
        lines = Path(pack.path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() in ("---", "..."):
            break
        if line.startswith(f"{key}:"):
            return number
    return 1
