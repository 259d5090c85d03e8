"""Filling a DataTable in one go, with every column as wide as its widest cell.

Left to the table (auto width), column widths are measured when the table is next idle, and
that measurement does not throw away the table's render caches. A repaint in between (a loaded
machine) caches the header at the widths it had without the rows; unless the table then
changes size, the rows come out wider than the header above them. The stats snapshot failed
about one run in three this way. Widths fixed when the columns are built, from the rows they
will hold, leave nothing to measure later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable

Cell = str | Text


class FittingTable(DataTable):
    """A DataTable as tall as its rows, whenever they are measured.

    Textual measures new rows when the table is next idle and then asks for a layout, but a
    request made while an earlier one is pending does not advance the table's layout counter,
    and its box model (its height) is cached under that counter: a layout run between the
    filling and the measuring (a loaded machine) kept the table as tall as it was without the
    rows, until something else laid it out (the import dry run showed no row about one run in
    five at load 15). Once idle, after Textual's own idle work, a changed size asks again."""

    _measured: tuple[int, int] = (0, 0)
    # Keys on the table typed before its first rows came (home's table while its counts
    # load): held in one queue, cursor moves and the screen's own keys alike, and made in the
    # order typed once the rows are there, so a key typed ahead is never lost.
    _filled = False
    _held: tuple[Callable[[], None], ...] = ()

    def hold(self, action: Callable[[], None]) -> bool:
        """Hold ``action`` while the table has never been filled (True: held)."""
        if self._filled:
            return False
        self._held += (action,)
        return True

    def rows_came(self) -> None:
        """The table is filled (its first rows, or none): the keys held meanwhile, in order."""
        if self._filled:
            return
        self._filled = True
        held, self._held = self._held, ()
        for action in held:
            action()

    def action_cursor_down(self) -> None:
        if not self.hold(super().action_cursor_down):
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if not self.hold(super().action_cursor_up):
            super().action_cursor_up()

    def action_page_down(self) -> None:
        if not self.hold(super().action_page_down):
            super().action_page_down()

    def action_page_up(self) -> None:
        if not self.hold(super().action_page_up):
            super().action_page_up()

    def on_idle(self) -> None:
        size = (self.virtual_size.width, self.virtual_size.height)
        if size != self._measured:
            self._measured = size
            self.refresh(layout=True)


def fill_table(
    table: DataTable,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[tuple[Sequence[Cell], str | None]],
    wrap: tuple[int, int] | None = None,
    fit: tuple[int, int] | None = None,
) -> None:
    """Replace the columns (``(label, key)``) and rows (``(cells, key)``) of ``table``.

    Cells are shown literally: a ``str`` (pack text, a topic) is never read as markup.
    ``wrap``: (column index, width): that column is at most this wide, a longer cell wraps
    onto further lines of its row (so the table fits 80 columns, every column in sight).
    ``fit``: (column index, room): that column wraps at the width the other columns leave it
    in ``room`` cells (a narrow terminal), so every other column shows whole.
    """
    literal_rows = [([_literal(cell) for cell in cells], key) for cells, key in rows]
    if fit is not None:
        wrap = (fit[0], _room_for(fit, columns, literal_rows, table.cell_padding))
    # The cursor stays on its row when the rows come again (home's counts after a drill, or
    # after the bundled decks were updated): a key that moved it is not undone by a refresh.
    cursor_row = table.cursor_row
    cursor_key = _row_key_at(table, cursor_row)
    table.clear(columns=True)
    widths = []
    for index, (label, column_key) in enumerate(columns):
        width = _natural_width(label, literal_rows, index)
        if wrap is not None and index == wrap[0]:
            width = min(width, max(wrap[1], cell_len(label)))
        widths.append(width)
        table.add_column(label, key=column_key, width=width)
    for cells, key in literal_rows:
        tall = wrap is not None and cells[wrap[0]].cell_len > widths[wrap[0]]
        table.add_row(*cells, key=key, height=None if tall else 1)
    keys = [key for _cells, key in literal_rows]
    if cursor_key is not None and cursor_key in keys:
        table.move_cursor(row=keys.index(cursor_key))
    elif keys and cursor_row > 0:  # its row is gone: the same place, or the last row
        table.move_cursor(row=min(cursor_row, len(keys) - 1))
    if isinstance(table, FittingTable):
        table.rows_came()


def _row_key_at(table: DataTable, row: int) -> str | None:
    if not (table.columns and 0 <= row < table.row_count):
        return None
    return table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value


def add_rows(table: DataTable, rows: Sequence[tuple[Sequence[Cell], str | None]]) -> None:
    """Add rows (``(cells, key)``) at the end of ``table``, one line each, shown literally, in
    the columns ``fill_table`` made."""
    for cells, key in rows:
        table.add_row(*(_literal(cell) for cell in cells), key=key, height=1)


def _natural_width(
    label: str, rows: Sequence[tuple[Sequence[Text], str | None]], index: int
) -> int:
    return max([cell_len(label), *(cells[index].cell_len for cells, _ in rows)])


def _room_for(
    fit: tuple[int, int],
    columns: Sequence[tuple[str, str]],
    rows: Sequence[tuple[Sequence[Text], str | None]],
    padding: int,
) -> int:
    """The width column ``fit[0]`` has once the others, whole, take their part of ``fit[1]``."""
    index, room = fit
    taken = sum(
        _natural_width(label, rows, other) + 2 * padding
        for other, (label, _) in enumerate(columns)
        if other != index
    )
    return room - taken - 2 * padding


def _literal(cell: Cell) -> Text:
    return cell if isinstance(cell, Text) else Text(cell)
