"""A line scanner for a pack's outline: the top-level blocks the parser needs, without
markdown-it, for packs made of what packs are usually made of.

It gives exactly the blocks markdown-it's outline parser gives (front matter, ATX headings,
fences, paragraphs; tests/test_pack_parser.py checks it on every deck and fixture) and it gives
up, returning None, on anything where that takes CommonMark's full rules: HTML, setext
underlines or ``---`` lines, indented headings or fences, a front matter never closed, carriage
returns or NUL characters. The parser then asks markdown-it, so the structure is always
CommonMark's. Standard library only.
"""

from __future__ import annotations

import re

# A line that markdown-it could read as a setext underline (or, in a full parse, a thematic
# break): only - or only =, maybe indented, maybe trailing blanks.
_UNDERLINE_RE = re.compile(r"[ \t]*(?:-+|=+)[ \t]*\Z")
_BLANKS = " \t"
# What a line must start with to be blank (or empty: "" is in every string) or to need
# check_line_start: blanks, "<", and the characters of a setext underline.
_SPECIAL_STARTS = " \t<-="
_FENCE_MARKS = "`~"
# What markdown-it trims a heading's text by (JavaScript's trim): ASCII and Unicode spaces.
TRIM = (
    "".join(map(chr, [9, 10, 11, 12, 13, 32, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029]))
    + "\u202f\u205f\u3000"
)

Block = tuple[str, int, int, dict]  # kind, first line, end line (exclusive), fields


class GiveUp(Exception):
    """The text needs markdown-it."""


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, text) when ``line`` (not indented) is an ATX heading, else None."""
    level = len(line) - len(line.lstrip("#"))
    if not 1 <= level <= 6 or (level < len(line) and line[level] not in _BLANKS):
        return None
    rest = line[level:].rstrip(_BLANKS)
    closing = rest.rstrip("#")
    if len(closing) < len(rest) and closing and closing[-1] in _BLANKS:
        rest = closing
    return level, rest.strip(TRIM)


def fence_open(line: str) -> tuple[str, str] | None:
    """(marker run, info string) when ``line`` (not indented) opens a fence, else None."""
    marker = line[:1]
    if marker not in ("`", "~"):
        return None
    markup = line[: len(line) - len(line.lstrip(marker))]
    info = line[len(markup) :]
    if len(markup) < 3 or (marker == "`" and "`" in info):
        return None
    return markup, info


def check_line_start(line: str) -> None:
    """Give up on a line whose meaning depends on rules this scanner leaves to markdown-it."""
    stripped = line.lstrip(_BLANKS)
    if stripped[:1] == "<" or _UNDERLINE_RE.match(line):
        raise GiveUp
    if len(stripped) < len(line) and stripped[:1] in ("#", "`", "~"):
        raise GiveUp


def front_matter_end(lines: list[str]) -> int:
    """The line after the front matter's closing marker (0: no front matter)."""
    first = lines[0]
    count = len(first) - len(first.lstrip("-"))
    if count < 3:
        return 0
    for number in range(1, len(lines)):
        line = lines[number]
        if line.startswith("...") and not line[3:].strip(_BLANKS):
            return number + 1
        stripped = line.lstrip(_BLANKS)
        run = len(stripped) - len(stripped.lstrip("-"))
        if run and run >= count and not stripped[run:].strip(_BLANKS):
            return number + 1
    raise GiveUp  # never closed: markdown-it reads the first line as text


def scan_outline(text: str) -> list[Block] | None:
    """The top-level blocks of a pack's text, or None when markdown-it must decide."""
    if "\r" in text or "\0" in text:
        return None
    lines = text.split("\n")
    # Like markdown-it: a final newline ends the last line, and a last line of only blanks
    # with no newline after it is not a line at all.
    terminated = text.endswith("\n") or not lines[-1].strip(_BLANKS)
    if terminated:
        lines.pop()
    try:
        return _scan(text, lines, terminated)
    except GiveUp:
        return None


def _scan(text: str, lines: list[str], terminated: bool) -> list[Block]:
    blocks: list[Block] = []
    total = len(lines)
    number = 0
    if text.startswith("-"):
        end = front_matter_end(lines)
        if end:
            content = "\n".join(lines[1 : end - 1]) if end > 2 else ""
            blocks.append(("front_matter", 0, end, {"content": content}))
            number = end
    while number < total:
        line = lines[number]
        first = line[:1]
        # Only a line starting with one of these can be blank or need check_line_start; only "#"
        # can open a heading, only a backtick or tilde a fence (the common line is none).
        if first in _SPECIAL_STARTS:
            if not line.strip(_BLANKS):
                number += 1
                continue
            check_line_start(line)
        if first == "#" and (heading := atx_heading(line)):
            level, content = heading
            blocks.append(("heading", number, number + 1, {"level": level, "content": content}))
            number += 1
        elif first in _FENCE_MARKS and (fence := fence_open(line)):
            number = _fence(lines, number, fence, blocks, terminated)
        else:
            number = _paragraph(lines, number, blocks)
    return blocks


def _fence(
    lines: list[str], start: int, fence: tuple[str, str], blocks: list[Block], terminated: bool
) -> int:
    markup, info = fence
    marker = markup[0]
    end = start + 1
    closed = False
    while end < len(lines):
        stripped = lines[end].lstrip(_BLANKS)
        run = len(stripped) - len(stripped.lstrip(marker))
        if run >= len(markup) and not stripped[run:].strip(_BLANKS):
            closed = True
            break
        end += 1
    body = lines[start + 1 : end]
    content = "".join(line + "\n" for line in body)
    if body and not closed and not terminated:
        content = content[:-1]  # the text's last line has no newline of its own
    fields = {"content": content, "info": info.strip(), "markup": markup}
    after = end + 1 if closed else end
    blocks.append(("fence", start, after, fields))
    return after


def _paragraph(lines: list[str], start: int, blocks: list[Block]) -> int:
    end = start + 1
    total = len(lines)
    while end < total:
        line = lines[end]
        first = line[:1]
        if first in _SPECIAL_STARTS:
            if not line.strip(_BLANKS):
                break
            check_line_start(line)
        if (first == "#" and atx_heading(line)) or (first in _FENCE_MARKS and fence_open(line)):
            break
        end += 1
    blocks.append(("paragraph", start, end, {}))
    return end
