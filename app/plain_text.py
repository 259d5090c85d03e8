"""Text for plain output: card Markdown as plain text, and counted nouns ("1 card", "2 cards").

Plain mode's terminal or screen reader should not get Markdown markup: code fences go, their
lines stay (indented, verbatim); ``**bold**``, ``__bold__`` and inline code backticks go, their
text stays; lists, paragraphs and everything else stay as written.
"""

from __future__ import annotations

import re

CODE_INDENT = "    "

# An opening or closing fence: up to 3 spaces, then ``` or ~~~ (3 or more), then an info string.
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)\Z")
# An inline code span: a run of backticks, its text, the same run again.
_CODE_SPAN_RE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
# Strong emphasis; __ only at word edges, so snake_case names keep their underscores.
_STRONG_STAR_RE = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_STRONG_UNDERSCORE_RE = re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)")


def plural(count: int, noun: str) -> str:
    """``1 card``, ``2 cards``, ``0 cards`` (for the regular nouns kvdrill counts)."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def markdown_to_plain(markdown: str) -> str:
    """``markdown`` as readable plain text (see the module docstring for what changes)."""
    lines: list[str] = []
    fence: str | None = None  # the opening marker while inside a code block
    for line in markdown.splitlines():
        marker = _FENCE_RE.match(line)
        if fence is None:
            if marker is not None and not (marker.group(1)[0] == "`" and "`" in marker.group(2)):
                fence = marker.group(1)
            else:
                lines.append(_inline(line))
        elif (
            marker is not None
            and marker.group(1)[0] == fence[0]
            and len(marker.group(1)) >= len(fence)
            and not marker.group(2).strip()
        ):
            fence = None
        else:
            lines.append(CODE_INDENT + line if line.strip() else "")
    return "\n".join(lines)


def _inline(line: str) -> str:
    """One line outside code blocks: code spans lose their backticks, bold its markers."""
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
    return _STRONG_UNDERSCORE_RE.sub(r"\1", text)
