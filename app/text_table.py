"""Plain-text tables that fit an 80-column terminal, for every command that prints one.

Columns are left-aligned, two spaces apart. When the table is wider than ``width``, one column
(``wrap``) wraps inside its own width, its further lines hung under it; a row's ``notes`` (text
too long for a column, such as a catalog entry's remarks) go on their own lines under the row.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rich.cells import cell_len

WIDTH = 80
GAP = "  "
# A wrapped column narrower than this reads worse than a wrapped terminal line.
MIN_WRAP_WIDTH = 12


def table_lines(
    rows: Sequence[Sequence[str]],
    *,
    wrap: int = -1,
    indent: str = "",
    rule: bool = False,
    notes: Sequence[str] | None = None,
    width: int = WIDTH,
) -> list[str]:
    """``rows`` (a header first, if any) as aligned columns of at most ``width`` columns.

    ``wrap``: the column that wraps when the table is too wide; ``rule``: a dashed line under
    the first row; ``notes``: one text per row after the first (``""`` for none), wrapped
    under its row, indented two more spaces.
    """
    if not rows:
        return []
    count = len(rows[0])
    wrap %= count
    widths = [max(cell_len(row[i]) for row in rows) for i in range(count)]
    others = cell_len(indent) + sum(widths) - widths[wrap] + len(GAP) * (count - 1)
    widths[wrap] = max(min(widths[wrap], width - others), MIN_WRAP_WIDTH)
    lines: list[str] = []
    for index, row in enumerate(rows):
        lines += _row_lines(row, widths, wrap, indent)
        if rule and index == 0:
            lines.append(indent + GAP.join("-" * w for w in widths))
        note = notes[index - 1] if notes is not None and index > 0 else ""
        if note:
            lines += wrapped(note, width, indent + "  ")
    return lines


def wrapped(text: str, width: int = WIDTH, indent: str = "", hang: str | None = None) -> list[str]:
    """``text`` wrapped to ``width`` at spaces, after ``indent``; further lines after ``hang``
    (default: ``indent``). A word longer than the line is broken rather than overflowing."""
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=indent,
        subsequent_indent=indent if hang is None else hang,
        break_on_hyphens=True,
    ) or [indent.rstrip()]


def _row_lines(row: Sequence[str], widths: list[int], wrap: int, indent: str) -> list[str]:
    pieces = textwrap.wrap(row[wrap], width=widths[wrap]) or [""]
    lines = []
    for number, piece in enumerate(pieces):
        cells = [
            piece if column == wrap else (cell if number == 0 else "")
            for column, cell in enumerate(row)
        ]
        padded = [cell + " " * (w - cell_len(cell)) for cell, w in zip(cells, widths, strict=True)]
        lines.append((indent + GAP.join(padded)).rstrip())
    return lines
