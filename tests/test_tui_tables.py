"""Tables fill in one go: the rows line up under the header however early the screen repaints."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from kvdrill.app.tui.widgets.tables import fill_table


class OneTable(App[None]):
    # A fixed height: the table does not resize when its rows are measured, which would have
    # thrown its render caches away and hidden the stale header.
    CSS = "DataTable { height: 10; }"

    def compose(self) -> ComposeResult:
        yield DataTable()


async def test_rows_line_up_under_the_header_after_a_repaint_before_idle() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(DataTable)
        fill_table(table, [("Pack", "pack"), ("Due", "due")], [(["KV cache basics", "7"], "kv")])
        table.render_line(0)  # the screen repaints before the table is next idle
        await pilot.pause()
        header, row = (table.render_line(y).text for y in (0, 1))
        assert header.index("Due") == row.index("7")


async def test_cells_are_shown_literally() -> None:
    app = OneTable()
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(DataTable)
        fill_table(table, [("Pack", "pack")], [(["[b]bold?[/b] pack"], "p")])
        await pilot.pause()
        assert "[b]bold?[/b] pack" in table.render_line(1).text
