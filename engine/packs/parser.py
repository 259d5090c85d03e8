"""Markdown pack -> ``ParsedPack``, reporting every error in the file as ``path:line: message``.

The format is documented in decks/README.md. The pack's top-level blocks come from
engine/packs/blocks.py; this module finds its structure (front matter, intro, cards and their
sections) and builds the cards, reading each part with ``PackReader`` (engine/packs/reader.py).
A pack of the usual shape is read by the fast path first (engine/packs/plain_pack.py).
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass, field
from typing import Any

from kvdrill.engine.errors import Located, PackErrors
from kvdrill.engine.packs.blocks import Block, Section, outline_blocks, section_blocks
from kvdrill.engine.packs.grammar import (
    ALLOWED,
    FIELD_RE,
    FIELDS,
    KIND_NAMES,
    KIND_REASONS,
    LIST_SECTIONS,
    REQUIRED,
    SECTIONS,
    close_options,
    dedupe,
    section_name,
    suggest,
)
from kvdrill.engine.packs.headings import CardHeading, id_problem, parse_card_heading, shorten
from kvdrill.engine.packs.media import image_reference_problems
from kvdrill.engine.packs.model import MAX_CARDS_PER_PACK, KeyNumber, ParsedCard, ParsedPack
from kvdrill.engine.packs.plain_pack import parse_plain_pack
from kvdrill.engine.packs.reader import PackReader
from kvdrill.engine.packs.source import check_pack_text, decode_pack_bytes
from kvdrill.gc_pause import collector_paused
from kvdrill.i18n import _


@dataclass
class RawCard:
    """A card as the outline finds it: its heading, line range, field blocks and sections."""

    heading: CardHeading
    line: int  # 0-based
    end: int
    fields: list[Block] = field(default_factory=list)  # blocks before the first ###
    sections: list[Section] = field(default_factory=list)
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


class PackParser(PackReader):
    """The full parser: any pack, every problem in it reported."""

    def parse(self) -> ParsedPack:
        blocks = outline_blocks(self.text)
        if not blocks or blocks[0].kind != "front_matter":
            if self.lines[0].startswith("---"):
                self.error(0, _("front matter opened here is never closed: end it with a line ---"))
            else:
                self.error(
                    0,
                    _(
                        "no front matter: a pack starts with a line ---, then pack:, title: and "
                        "version: lines, then a line ---"
                    ),
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
            self.error(
                0,
                _("pack has no cards: add one under a heading `## Title {card_id}`").format(
                    card_id="{#card-id}"
                ),
            )
        if self.errors or meta is None:
            raise PackFileErrors(
                self.capped_errors(), self.sound_cards(raw_cards), self.key_numbers_read
            )
        return ParsedPack(
            meta=meta, intro=intro, cards=cards, path=self.path, content_hash=self.content_hash
        )

    def check_unclosed(self, blocks: list[Block]) -> None:
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
                        block.start,
                        _("code block opened here with {fence} is never closed").format(
                            fence=block.markup
                        ),
                    )
            elif block.kind == "html" and "<!--" in block.content and "-->" not in block.content:
                self.error(block.start, _("HTML comment <!-- opened here is never closed with -->"))

    def check_heading_style(self, block: Block) -> None:
        if block.kind == "heading" and block.setext and block.level == 2:
            self.error(
                block.end - 1,  # the --- line
                _(
                    "text followed by a line of --- makes a heading; put a blank line before --- "
                    "or write a card as `## Title {card_id}`"
                ).format(card_id="{#card-id}"),
            )

    # -- cards -------------------------------------------------------------------------------

    def split_cards(self, blocks: list[Block]) -> list[RawCard]:
        cards: list[RawCard] = []
        for block in blocks:
            is_card = block.kind == "heading" and block.level == 2 and not block.setext
            if is_card:
                if len(cards) == MAX_CARDS_PER_PACK:
                    self.error(
                        block.start,
                        _(
                            "pack has more than {most} cards (this is card {number}); split it "
                            "into smaller packs"
                        ).format(most=MAX_CARDS_PER_PACK, number=MAX_CARDS_PER_PACK + 1),
                    )
                    break
                if cards:
                    self.close_card(cards[-1], block.start)
                cards.append(RawCard(parse_card_heading(block.content), block.start, 0))
                continue
            card = cards[-1]
            if block.setext:
                self.check_heading_style(block)
            if block.kind == "heading" and block.level == 3:
                name = section_name(block.content)
                if name is None:
                    card.misspelled.update(close_options(block.content, SECTIONS.values()))
                    self.error(
                        block.start,
                        _('unknown section "### {section}"; {hint}').format(
                            section=shorten(block.content),
                            hint=suggest(
                                block.content,
                                dict.fromkeys(SECTIONS.values()),
                                "### {}",
                                _("sections are"),
                            ),
                        ),
                    )
                    name = "?"
                elif any(s.name == name for s in card.sections):
                    first = next(s for s in card.sections if s.name == name)
                    self.error(
                        block.start,
                        _(
                            "section ### {section} appears twice in this card (first on line "
                            "{line})"
                        ).format(section=name, line=first.line + 1),
                    )
                    name = "?"
                if card.sections:
                    card.sections[-1].end = block.start
                card.sections.append(Section(name, block.start, 0))
            elif block.kind == "heading" and block.level == 1:
                self.error(
                    block.start,
                    _("a # heading inside a card: cards start with ## and their sections with ###"),
                )
            elif card.sections:
                card.sections[-1].blocks.append(block)
            else:
                card.fields.append(block)
        if cards:
            self.close_card(cards[-1], len(self.lines))
        return cards

    def sound_cards(self, raw_cards: list[RawCard]) -> int:
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
    def close_card(card: RawCard, end: int) -> None:
        card.end = end
        if card.sections:
            card.sections[-1].end = end

    def build_cards(self, raw_cards: list[RawCard]) -> list[ParsedCard]:
        ids: dict[str, int] = {}
        for raw in raw_cards:
            card_id = raw.heading.card_id
            if card_id is None or id_problem(card_id):
                continue
            if card_id in ids:
                self.error(
                    raw.line,
                    _('duplicate card id "{id}" (first used on line {line})').format(
                        id=card_id, line=ids[card_id] + 1
                    ),
                )
            else:
                ids[card_id] = raw.line
        self.parse_lists([s for raw in raw_cards for s in raw.sections if s.name in LIST_SECTIONS])
        cards: list[ParsedCard] = []
        for raw in raw_cards:
            cards.extend(self.build_card(raw, ids))
        return cards

    def build_card(self, raw: RawCard, ids: dict[str, int]) -> list[ParsedCard]:
        heading = raw.heading
        for problem in heading.problems:
            self.error(raw.line, problem)
        if heading.card_id is None and heading.title:
            self.error(
                raw.line,
                _('card "{title}" has no id {id}; run kvdrill check --add-ids {path}').format(
                    title=shorten(heading.title), id="{#...}", path=self.path
                ),
            )
        lessons, tags = self.card_fields(raw)
        sections = {s.name: s for s in raw.sections if s.name != "?"}

        if "Choices" in sections and "Problem" in sections:
            self.error(
                sections["Problem"].line, _("a card has ### Choices or ### Problem, not both")
            )
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
                    block.start, _("a ```problem block belongs in the card's ### Problem section")
                )
        for name, section in sections.items():
            if name not in ALLOWED[kind]:
                self.error(
                    section.line,
                    _("### {section} does not belong on a {kind} card ({reason})").format(
                        section=name, kind=_(KIND_NAMES[kind]), reason=_(KIND_REASONS[kind])
                    ),
                )
        for name in REQUIRED[kind]:
            if name in raw.misspelled:
                continue  # reported as the misspelled heading, with its suggestion
            if name not in sections and not (name == "Problem" and problem_fences):
                self.error(
                    raw.line,
                    _("{kind} card has no ### {section} section").format(
                        kind=_(KIND_NAMES[kind]), section=name
                    ),
                )

        card: dict[str, Any] = {
            "key": heading.card_id or "",
            "kind": kind,
            "title": heading.title,
            "status": heading.status,
            "tags": dedupe(list(heading.tags) + tags),
            "lessons": lessons,
            "line": raw.line + 1,
        }
        followup: ParsedCard | None = None
        for name, section in sections.items():
            if name in ("Prompt", "Answer", "Tip", "Explanation"):
                text = self.source(section.line + 1, section.end)
                if not text:
                    self.error(section.line, _("### {section} is empty").format(section=name))
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

    def card_fields(self, raw: RawCard) -> tuple[list[str], list[str]]:
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
            match = FIELD_RE.match(text) if text is not None else None
            if not match:
                self.error(
                    line,
                    _(
                        "under a card heading, before its first ### section, only "
                        "field lines (Lessons: ..., Tags: ...) may appear"
                    ),
                )
                break
            name = match.group(1).strip().capitalize()
            value = match.group(2).strip()
            if name not in FIELDS:
                self.error(
                    line,
                    _('unknown field "{field}:"; {hint}').format(
                        field=shorten(match.group(1)),
                        hint=suggest(match.group(1), FIELDS, "{}:", _("fields are")),
                    ),
                )
                continue
            if name in seen:
                self.error(
                    line,
                    _("field {field}: appears twice (first on line {line})").format(
                        field=name, line=seen[name] + 1
                    ),
                )
                continue
            seen[name] = line
            if name == "Lessons":
                lessons = self.lessons(value, line) or []
            else:
                tags = self.tags(value, line) or []
        return lessons, tags

    def parse_lists(self, sections: list[Section]) -> None:
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
        found: list[list[Block]] = [[] for _ in sections]
        for block in section_blocks("\n".join(joined)):
            index = bisect.bisect_right(starts, block.start) - 1
            joint = starts[index] + sections[index].end - sections[index].line - 1
            if block.start == joint:
                continue
            if block.end > joint:
                for section in sections:
                    self.parse_one_section(section)
                return
            found[index].append(block.shifted(sections[index].line + 1 - starts[index]))
        for section, blocks in zip(sections, found, strict=True):
            section.blocks = blocks

    def parse_one_section(self, section: Section) -> None:
        offset = section.line + 1
        text = "\n".join(self.lines[offset : section.end])
        section.blocks = [b.shifted(offset) for b in section_blocks(text)]


def _parse(text: str, path: str, content_hash: str) -> ParsedPack:
    # A big pack makes hundreds of thousands of short-lived objects and no cycles worth
    # collecting.
    with collector_paused():
        parsed = parse_plain_pack(PackReader(text, path, content_hash))
        parsed = parsed or PackParser(text, path, content_hash).parse()
    if images_out := image_reference_problems(text, path):
        raise PackErrors(images_out)
    return parsed


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


def parse_pack_bytes(data: bytes, path: str) -> ParsedPack:
    """Parse a pack file's bytes (as read: app/services/pack_files.py reads them); ``path`` is
    only used in messages. Raises ``PackErrors`` listing every problem found."""
    text = decode_pack_bytes(data, path)
    check_pack_text(text, path)
    return _parse(text, path, hashlib.sha256(data).hexdigest())
