"""The pack parser's fast path: a pack made of what packs are usually made of, read in one
pass over its lines, straight into a ``ParsedPack``.

It reads only what it can settle exactly as the full parser does (engine/packs/parser.py),
reading each part with the same ``PackReader`` (engine/packs/reader.py):
card and section headings, field lines, text sections, tight lists (items on one line, or
wrapped under their text), closed fences, a lone ```problem block and a ``Q:``/``A:``
follow-up. On anything else (HTML, setext or indented headings, a loose list, a heading where
a card holds only fields, a carriage return) and on the first error of any kind it returns
None, and the full parser reads the pack again from the start, so every message, with its
line, still comes from one place. tests/test_plain_pack.py parses every deck, every fixture
and thousands of generated packs both ways and wants equal results.
"""

from __future__ import annotations

import bisect
import string
from typing import Any

from kvdrill.engine.packs.blocks import Block, Section
from kvdrill.engine.packs.grammar import (
    ALLOWED,
    FIELD_RE,
    FIELDS,
    REQUIRED,
    SIMPLE_ITEM_RE,
    THEMATIC_BREAK_RE,
    dedupe,
    section_name,
)
from kvdrill.engine.packs.headings import CardHeading, parse_card_heading
from kvdrill.engine.packs.model import MAX_CARDS_PER_PACK, ParsedCard, ParsedPack
from kvdrill.engine.packs.outline import (
    TRIM,
    GiveUp,
    atx_heading,
    check_line_start,
    fence_open,
    front_matter_end,
)
from kvdrill.engine.packs.reader import PackReader
from kvdrill.engine.records import unchecked

# The first characters a line must have to be more than text to the outline: a heading, a
# fence, or a line the line scanner gives up on (HTML, --- or === lines, indented # ` ~).
_OUTLINE_STARTS = frozenset("#`~ \t<-=")
_FENCE_MARKS = frozenset("`~")
# The sections that hold any Markdown, and the ParsedCard field each fills.
_TEXT_FIELDS = {name: name.lower() for name in ("Prompt", "Answer", "Tip", "Explanation")}
_ALLOWED = {kind: frozenset(names) for kind, names in ALLOWED.items()}
_REQUIRED = {kind: frozenset(names) for kind, names in REQUIRED.items()}
# A heading line ending in one of these may have a closing # run or trailing blanks to drop.
_ATX_ENDS = frozenset("# \t")
_ASCII_LETTERS = frozenset(string.ascii_letters)  # what a field line starts with


class _Unusual(Exception):
    """The pack needs the full parser."""


def parse_plain_pack(reader: PackReader) -> ParsedPack | None:
    """The pack ``reader`` holds, parsed without the full parser's machinery, or None when
    the pack has anything this path leaves to the full parser (engine/packs/parser.py), which
    then starts afresh with a reader of its own."""
    try:
        return _PlainPack(reader).parse()
    except (_Unusual, GiveUp):
        return None


class _PlainPack:
    def __init__(self, reader: PackReader):
        self.reader = reader
        self.lines = reader.lines
        # Every fence, in file order: (first line, line after the closer, info string).
        self.fences: list[tuple[int, int, str]] = []
        self.fence_starts: list[int] = []

    def parse(self) -> ParsedPack:
        reader, lines = self.reader, self.lines
        if reader.text[:1] != "-" or "\r" in reader.text:
            raise _Unusual
        body = front_matter_end(lines)
        if not body:
            raise _Unusual
        block = Block("front_matter", 0, body, content=_content(lines, body))
        meta = reader.front_matter(block, vouched=True)
        if meta is None:
            raise _Unusual
        # Each card: its heading's line and text, its ### headings, its other headings.
        raw: list[tuple[int, str, list[tuple[int, str]], list[tuple[int, int]]]] = []
        for line, level, text in self.outline(body):
            if level == 2:
                raw.append((line, text, [], []))
            elif not raw:
                continue  # the intro: any heading but ## is just text there
            elif level == 3:
                raw[-1][2].append((line, text))
            else:
                raw[-1][3].append((line, level))
        if not raw or len(raw) > MAX_CARDS_PER_PACK:
            raise _Unusual
        intro = reader.source(body, raw[0][0])
        headings = [parse_card_heading(text) for _, text, _, _ in raw]
        ids: dict[str, int] = {}
        for heading, (line, _, _, _) in zip(headings, raw, strict=True):
            card_id = heading.card_id
            if heading.problems or card_id is None or card_id in ids:
                raise _Unusual
            ids[card_id] = line
        ends = [line for line, _, _, _ in raw[1:]] + [len(lines)]
        cards: list[ParsedCard] = []
        for heading, (line, _, sections, deeper), end in zip(headings, raw, ends, strict=True):
            cards.extend(self.card(heading, line, end, sections, deeper, ids))
        if reader.errors:
            raise _Unusual
        return ParsedPack(
            meta=meta,
            intro=intro,
            cards=cards,
            path=reader.path,
            content_hash=reader.content_hash,
        )

    def outline(self, start: int) -> list[tuple[int, int, str]]:
        """Every heading outside fences, as (line, level, text); fences go to ``self.fences``.

        Gives up where the line scanner (engine/packs/outline.py) does, and on a fence never
        closed (an error)."""
        lines = self.lines
        headings: list[tuple[int, int, str]] = []
        candidates = [
            number
            for number in range(start, len(lines))
            if (line := lines[number]) and line[0] in _OUTLINE_STARTS
        ]
        skip = 0
        for number in candidates:
            if number < skip:
                continue
            line = lines[number]
            first = line[0]
            if first == "#":
                # The usual "## Title" and "### Section" without atx_heading: no closing #, no blank
                # at the end, so the text is all after the marks.
                if line[2:3] == " " and line[1] == "#" and line[-1] not in _ATX_ENDS:
                    headings.append((number, 2, line[2:].strip(TRIM)))
                elif line[3:4] == " " and line[1:3] == "##" and line[-1] not in _ATX_ENDS:
                    headings.append((number, 3, line[3:].strip(TRIM)))
                elif heading := atx_heading(line):
                    headings.append((number, *heading))
            elif first in _FENCE_MARKS:
                if fence := fence_open(line):
                    skip = self.fence(number, *fence)
            elif first == "-" and line[1:2] == " " and line.rstrip(" \t") != "-":
                continue  # a list item: no --- underline, and nothing else check_line_start fears
            elif line.strip(" \t"):
                check_line_start(line)
        return headings

    def fence(self, start: int, markup: str, info: str) -> int:
        """Record the fence opened at ``start``; the line after its closer."""
        lines, marker, size = self.lines, markup[0], len(markup)
        for number in range(start + 1, len(self.lines)):
            stripped = lines[number].lstrip(" \t")
            if stripped[:1] != marker:
                continue
            run = len(stripped) - len(stripped.lstrip(marker))
            if run >= size and not stripped[run:].strip(" \t"):
                self.fences.append((start, number + 1, info.strip()))
                self.fence_starts.append(start)
                return number + 1
        raise _Unusual  # never closed: an error

    def fences_in(self, start: int, stop: int) -> list[tuple[int, int, str]]:
        """The fences that open between lines ``start`` and ``stop``."""
        if not self.fences:
            return []
        first = bisect.bisect_left(self.fence_starts, start)
        return self.fences[first : bisect.bisect_left(self.fence_starts, stop, first)]

    def card(
        self,
        heading: CardHeading,
        line: int,
        end: int,
        inner: list[tuple[int, str]],
        deeper: list[tuple[int, int]],
        ids: dict[str, int],
    ) -> list[ParsedCard]:
        reader, lines = self.reader, self.lines
        # Sections by name: (heading line, end line), in file order.
        sections: dict[str, tuple[int, int]] = {}
        for position, (number, text) in enumerate(inner):
            name = section_name(text)
            if name is None or name in sections:
                raise _Unusual
            sections[name] = (number, inner[position + 1][0] if position + 1 < len(inner) else end)
        for number, level in deeper:
            # A # heading is an error in a card; a deeper one is text in a text section only.
            holder = next((n for n in reversed(sections) if sections[n][0] < number), None)
            if level == 1 or holder not in _TEXT_FIELDS:
                raise _Unusual
        fields_end = inner[0][0] if inner else end
        # Most cards have no fields: at most one blank line before the first section.
        if fields_end - line > 2 or (fields_end - line == 2 and lines[line + 1].strip(" \t")):
            lessons, tags = self.fields(line + 1, fields_end)
        else:
            lessons, tags = [], []
        kind = (
            "choice" if "Choices" in sections else "problem" if "Problem" in sections else "recall"
        )
        if not _ALLOWED[kind].issuperset(sections) or not _REQUIRED[kind] <= sections.keys():
            raise _Unusual
        # Every field of ParsedCard, in its order, for ``unchecked``.
        card: dict[str, Any] = {
            "key": heading.card_id,
            "kind": kind,
            "title": heading.title,
            "status": heading.status,
            "tags": dedupe([*heading.tags, *tags]),
            "lessons": lessons,
            "prompt": "",
            "answer": "",
            "key_numbers": [],
            "tip": "",
            "choices": [],
            "explanation": "",
            "related": [],
            "problem": None,
            "problem_line": None,
            "problem_field_lines": {},
            "parent": None,
            "line": line + 1,
        }
        followup: ParsedCard | None = None
        for name, (start, stop) in sections.items():
            fences = self.fences_in(start, stop) if self.fences else []
            if field := _TEXT_FIELDS.get(name):
                if fences and any(info.split()[:1] == ["problem"] for _, _, info in fences):
                    raise _Unusual
                text = reader.source(start + 1, stop)
                if not text:
                    raise _Unusual
                card[field] = text
            elif name == "Problem":
                card["problem"], card["problem_line"], card["problem_field_lines"] = self.problem(
                    start, stop, fences
                )
            elif name == "Follow-up":
                followup = self.followup(start, stop, fences, card)
            else:
                section = self.list_section(name, start, stop)
                if name == "Key numbers":
                    card["key_numbers"] = reader.key_numbers(section)
                elif name == "Choices":
                    card["choices"] = reader.choices(section)
                else:
                    card["related"] = reader.related(section, ids)
        if reader.errors:
            raise _Unusual
        parent = unchecked(ParsedCard, card)
        return [parent, followup] if followup else [parent]

    def fields(self, start: int, end: int) -> tuple[list[str], list[str]]:
        """The Lessons: and Tags: lines under a card heading, when that is all there is."""
        lessons: list[str] = []
        tags: list[str] = []
        seen: set[str] = set()
        for number in range(start, end):
            line = self.lines[number]
            if not line.strip(" \t"):
                continue
            match = FIELD_RE.match(line.rstrip()) if line[0] in _ASCII_LETTERS else None
            if match is None:
                raise _Unusual
            name = match.group(1).strip().capitalize()
            if name not in FIELDS or name in seen:
                raise _Unusual
            seen.add(name)
            value = match.group(2).strip()
            if name == "Lessons":
                lessons = self.reader.lessons(value, number) or []
            else:
                tags = self.reader.tags(value, number) or []
        return lessons, tags

    def list_section(self, name: str, start: int, stop: int) -> Section:
        """A list section holding one tight list, its items on one line or wrapped."""
        section = Section(name, start, stop)
        if not self.reader.simple_list(section):
            section.blocks = [self.wrapped_list(start + 1, stop)]
        return section

    def wrapped_list(self, start: int, stop: int) -> Block:
        """A tight list whose items start at column 0 with one marker and one space, and may
        go on over lines indented to the item's text: CommonMark reads each such item as one
        list item, whatever its later lines hold (they are inside it)."""
        lines = self.lines
        first, last = self.reader.trimmed(start, stop)
        items: list[list[int]] = []
        marker: str | None = None
        indent = ""
        for number in range(first, last):
            line = lines[number]
            match = SIMPLE_ITEM_RE.match(line)
            if match and not THEMATIC_BREAK_RE.match(line):
                this = match.group(1) or match.group(2)
                if marker is None:
                    marker = this
                elif this != marker:
                    raise _Unusual
                text_at = match.end() - 1
                # One space after the marker, so the text's column is plain to see.
                indent = " " * text_at if line[text_at - 2 : text_at] != "  " else ""
                items.append([number, number + 1])
            elif items and indent and line.startswith(indent) and line.strip(" \t"):
                items[-1][1] = number + 1
            else:
                raise _Unusual
        if not items:
            raise _Unusual
        return Block("list", first, last, items=[(begin, end) for begin, end in items])

    def problem(
        self, start: int, stop: int, fences: list[tuple[int, int, str]]
    ) -> tuple[dict[str, Any] | None, int | None, dict[str, int]]:
        """The ``### Problem`` section when it holds one ```problem block and nothing else."""
        if len(fences) != 1 or fences[0][2].split()[:1] != ["problem"]:
            raise _Unusual
        first, after, info = fences[0]
        lines = self.lines
        if any(lines[n].strip(" \t") for n in (*range(start + 1, first), *range(after, stop))):
            raise _Unusual
        body = "".join(line + "\n" for line in lines[first + 1 : after - 1])
        block = Block("fence", first, after, content=body, info=info)
        return self.reader.problem(Section("Problem", start, stop, [block]))

    def followup(
        self, start: int, stop: int, fences: list[tuple[int, int, str]], card: dict[str, Any]
    ) -> ParsedCard | None:
        """A follow-up whose first line is ``Q:`` and which holds no code block."""
        lines = self.lines
        first = next((n for n in range(start + 1, stop) if lines[n].strip(" \t")), None)
        if fences or first is None or not lines[first].startswith("Q:"):
            raise _Unusual
        section = Section("Follow-up", start, stop, [Block("paragraph", first, first + 1)])
        return self.reader.followup(section, card)


def _content(lines: list[str], end: int) -> str:
    """The front matter's YAML, as the line scanner gives it."""
    return "\n".join(lines[1 : end - 1]) if end > 2 else ""
