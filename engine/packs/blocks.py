"""A pack's top-level Markdown blocks with their line ranges: from the line scanner
(engine/packs/outline.py) when it can tell, else from markdown-it, set up here.

markdown-it-py finds the blocks with true line numbers, front matter included; the parsers
slice every text they keep from the original lines, so it stays the author's Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from kvdrill.engine.packs.grammar import NEWLINES_RE
from kvdrill.engine.packs.outline import scan_outline

if TYPE_CHECKING:  # markdown-it loads only for a pack the line scanners leave to it
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@dataclass
class Block:
    """One top-level Markdown block: its type, 0-based line range and what matters of it."""

    kind: str  # paragraph, heading, list, fence, html, front_matter, other
    start: int
    end: int
    level: int = 0  # heading level
    setext: bool = False
    content: str = ""  # heading text, fence body, html source
    info: str = ""  # fence info string
    markup: str = ""  # fence marker
    items: list[tuple[int, int]] = field(default_factory=list)  # list items' line ranges

    def shifted(self, offset: int) -> Block:
        """This block moved down ``offset`` lines (changed in place, and returned)."""
        self.start += offset
        self.end += offset
        self.items = [(start + offset, end + offset) for start, end in self.items]
        return self


@dataclass
class Section:
    """A card's ``###`` section: its canonical name, line range and blocks."""

    name: str
    line: int  # 0-based line of the ### heading
    end: int  # 0-based line where the section stops (exclusive)
    blocks: list[Block] = field(default_factory=list)


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
def full_markdown() -> MarkdownIt:
    """CommonMark blocks, front matter included."""
    return _block_parser(front_matter=True)


@cache
def section_markdown() -> MarkdownIt:
    """CommonMark blocks, for a section's lines on their own."""
    return _block_parser(front_matter=False)


@cache
def _outline_markdown() -> MarkdownIt:
    """Only what finds cards and sections: without the list rule a big pack parses about twice
    as fast. Sections that are lists are parsed again with ``section_markdown``; a pack where
    lists could change the outline is parsed whole by ``full_markdown`` (see
    ``outline_tokens``), so the structure found is always CommonMark's."""
    return _block_parser(
        front_matter=True,
        rules=("front_matter", "fence", "html_block", "heading", "lheading", "paragraph"),
    )


def outline_tokens(text: str) -> list[Token]:
    """The pack's top-level tokens, from the fast parser when it sees what CommonMark sees."""
    tokens = _outline_markdown().parse(text)
    lines = NEWLINES_RE.split(text)
    for token in tokens:
        # An indented heading or fence may sit inside a list item, and a --- under a list is a
        # thematic break, not a setext heading: only the list rule can tell.
        indented = (
            token.type in ("heading_open", "fence")
            and token.map is not None
            and lines[token.map[0]][:1] == " "
        )
        if indented or (token.type == "heading_open" and token.markup in ("-", "=")):
            return full_markdown().parse(text)
    return tokens


def outline_blocks(text: str) -> list[Block]:
    """The pack's top-level blocks: from the line scanner when it can tell, else from
    markdown-it; both give the same blocks."""
    scanned = scan_outline(text)
    if scanned is None:
        return token_blocks(outline_tokens(text))
    return [Block(kind, start, end, **fields) for kind, start, end, fields in scanned]


def section_blocks(text: str) -> list[Block]:
    """The blocks of a section's lines parsed on their own (lists as lists)."""
    return token_blocks(section_markdown().parse(text))


def token_blocks(tokens: list[Token]) -> list[Block]:
    """The top-level blocks of a token stream (list items kept as line ranges)."""
    blocks: list[Block] = []
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            if token.type == "list_item_open" and token.level == 1 and blocks and token.map:
                blocks[-1].items.append((token.map[0], token.map[1]))
            continue
        start, end = token.map
        if token.type == "heading_open":
            blocks.append(
                Block(
                    "heading",
                    start,
                    end,
                    level=int(token.tag[1]),
                    setext=token.markup in ("-", "="),
                    content=tokens[index + 1].content,
                )
            )
        elif token.type == "paragraph_open":
            blocks.append(Block("paragraph", start, end))
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            blocks.append(Block("list", start, end, markup=token.markup))
        elif token.type == "fence":
            blocks.append(
                Block(
                    "fence",
                    start,
                    end,
                    content=token.content,
                    info=token.info.strip(),
                    markup=token.markup,
                )
            )
        elif token.type == "html_block":
            blocks.append(Block("html", start, end, content=token.content))
        elif token.type == "front_matter":
            blocks.append(Block("front_matter", start, end, content=token.content))
        else:
            blocks.append(Block("other", start, end))
    return blocks
