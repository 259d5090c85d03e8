"""Text for plain output: card Markdown as plain text re-flowed to the terminal.

Plain mode's terminal or screen reader should not get Markdown markup: code fences go, their
lines stay (indented, verbatim); ``**bold**``, ``__bold__`` and inline code backticks go, their
text stays. A paragraph or list item written over several source lines becomes one, then is
wrapped to the width (so the terminal never breaks a word: no "for eve / ry request"); list
items keep their marker with the wrapped lines hung under their text. Code lines wider than the
width break at a space, the rest hung deeper.
"""

from __future__ import annotations

import re
import shutil
import textwrap

CODE_INDENT = "    "
# The width of a pipe or a terminal that does not say.
DEFAULT_WIDTH = 80
# Narrower than this, wrapping would do more harm than the terminal's own.
MIN_WIDTH = 20

# An opening or closing fence: up to 3 spaces, then ``` or ~~~ (3 or more), then an info string.
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)\Z")
# An inline code span: a run of backticks, its text, the same run again.
_CODE_SPAN_RE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
# Strong emphasis; __ only at word edges, so snake_case names keep their underscores.
_STRONG_STAR_RE = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_STRONG_UNDERSCORE_RE = re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)")
# A backslash before ASCII punctuation: CommonMark's escape, which shows the character alone.
_ESCAPE_RE = re.compile(r"\\([!-/:-@\[-`{-~])")
# A list item: its indent, its marker (-, *, +, 1., 1)) and the space after it.
_ITEM_RE = re.compile(r"( {0,3})([-*+]|\d{1,9}[.)])( +)(?=\S)")
# Lines kept as they are: headings, tables, block quotes.
_KEPT_RE = re.compile(r" {0,3}(#{1,6} |\||>)")


def terminal_width() -> int:
    """The width to wrap to: ``$COLUMNS``, else the terminal's, else 80 (a pipe).
    ``shutil.get_terminal_size`` reads ``$COLUMNS`` itself, in that order."""
    return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def wrap(text: str, width: int | None, hang: str = "") -> str:
    """Plain (not Markdown) ``text`` wrapped to ``width``, wrapped lines indented by ``hang``."""
    return "\n".join(_fill(text, width, "", hang))


def markdown_to_plain(markdown: str, width: int | None = None, lead: str = "") -> str:
    """``markdown`` as readable plain text (see the module docstring), wrapped to ``width``
    columns (None: paragraphs joined, not wrapped). ``lead`` starts the first line (a label
    such as ``"Tip: "``); the first block is wrapped with room for it."""
    blocks = _blocks(markdown)
    lines: list[str] = []
    for index, (kind, first_indent, rest_indent, text) in enumerate(blocks):
        if index == 0 and lead:
            first_indent = lead + first_indent
            rest_indent = " " * len(lead) + rest_indent  # wrapped lines hang under the text
        if kind == "blank":
            lines.append("")
        elif kind == "code":
            lines.extend(_code_lines(text, width, first_indent))
        elif kind == "kept":
            lines.append(first_indent + _inline(text))
        else:
            lines.extend(_fill(_inline(text), width, first_indent, rest_indent))
    if lead and not blocks:
        lines.append(lead.rstrip())
    return "\n".join(lines)


def _blocks(markdown: str) -> list[tuple[str, str, str, str]]:
    """(kind, first-line indent, wrapped-line indent, text) per block: paragraph, item, code
    (one per line), kept (one per line), blank (one per run of blank lines)."""
    blocks: list[tuple[str, str, str, str]] = []
    fence: str | None = None  # the opening marker while inside a code block
    open_block = False  # the last block is a paragraph or item that a next line continues
    for line in markdown.splitlines():
        marker = _FENCE_RE.match(line)
        if fence is not None:
            if (
                marker is not None
                and marker.group(1)[0] == fence[0]
                and len(marker.group(1)) >= len(fence)
                and not marker.group(2).strip()
            ):
                fence = None
            elif line.strip():
                blocks.append(("code", CODE_INDENT, CODE_INDENT, line))
            else:
                blocks.append(("blank", "", "", ""))
            continue
        if marker is not None and not (marker.group(1)[0] == "`" and "`" in marker.group(2)):
            fence = marker.group(1)
            open_block = False
            continue
        if not line.strip():
            if blocks and blocks[-1][0] != "blank":
                blocks.append(("blank", "", "", ""))
            open_block = False
            continue
        item = _ITEM_RE.match(line)
        if item is not None:
            head = item.group(1) + item.group(2) + " "
            blocks.append(("item", head, " " * len(head), line[item.end() :].strip()))
            open_block = True
        elif _KEPT_RE.match(line) is not None:
            blocks.append(("kept", "", "", line.rstrip()))
            open_block = False
        elif open_block:
            kind, first, rest, text = blocks[-1]
            blocks[-1] = (kind, first, rest, f"{text} {line.strip()}")
        else:
            blocks.append(("paragraph", "", "", line.strip()))
            open_block = True
    while blocks and blocks[-1][0] == "blank":
        blocks.pop()
    while blocks and blocks[0][0] == "blank":
        blocks.pop(0)
    return blocks


def _fill(text: str, width: int | None, first: str, rest: str) -> list[str]:
    if width is None:
        return [first + text]
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
        expand_tabs=False,  # a tab in a pack's text stays a tab
        replace_whitespace=False,
    ) or [first.rstrip()]


def _code_lines(line: str, width: int | None, indent: str) -> list[str]:
    """One code line, verbatim; wider than ``width``, broken at spaces and hung deeper."""
    text = indent + line
    if width is None or len(text) <= width:
        return [text]
    hang = indent + " " * (len(line) - len(line.lstrip())) + CODE_INDENT
    return textwrap.wrap(
        line.strip(),
        width=width,
        initial_indent=indent + line[: len(line) - len(line.lstrip())],
        subsequent_indent=hang,
        break_long_words=False,
        break_on_hyphens=False,
        expand_tabs=False,  # a tab in a pack's text stays a tab
        replace_whitespace=False,
    )


def _inline(line: str) -> str:
    """Text outside code blocks: code spans lose their backticks, bold its markers."""
    pieces: list[str] = []
    position = 0
    for span in _CODE_SPAN_RE.finditer(line):
        pieces.append(_unbold(line[position : span.start()]))
        pieces.append(span.group(2).strip() or span.group(2))
        position = span.end()
    pieces.append(_unbold(line[position:]))
    return "".join(pieces)


def _unbold(text: str) -> str:
    text = _STRONG_STAR_RE.sub(r"\1", text)
    text = _STRONG_UNDERSCORE_RE.sub(r"\1", text)
    # Markdown's backslash escapes (\[, \&, \<) show their character; a no-break space a space.
    return _ESCAPE_RE.sub(r"\1", text).replace("\xa0", " ")
