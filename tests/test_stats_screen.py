"""The stats screen, driven with Pilot on a review log built by hand (tests/test_stats.py)."""

from __future__ import annotations

import pytest
from stats_helpers import open_stats
from textual.widgets import DataTable, Static
from tui_helpers import make_app, settle, steady

from kvdrill.app.stats_render import TOPIC_HEADERS


def first_column(table: DataTable) -> list[str]:
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def test_weakest_topic_first_then_sort_and_drill_it(stats_db: str) -> None:
    app = make_app(stats_db, start="home")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_stats(pilot)
        screen = app.screen
        table = screen.query_one("#topics", DataTable)
        assert first_column(table)[:2] == ["tag:kv", "pack:p1"]
        # The mistakes are a table: Enter on one practises it (tests/test_mistake_drill.py).
        mistakes = screen.query_one("#mistake-table", DataTable)
        assert "GB and GiB mixed up in 1 of your last 1" in str(mistakes.get_row_at(0)[0])

        await pilot.press("o")  # sort by recent reviews: p1 has 12, kv 9
        await settle(pilot)
        assert first_column(table)[0] == "pack:p1"

        table.focus()
        table.move_cursor(row=first_column(table).index("tag:kv"))
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "DrillScreen"
        assert app.screen.narrow == {"tag": "kv", "cram_when_empty": True}
        assert app.screen.card.key == "D"


async def test_escape_goes_back_without_starting_a_drill(stats_db: str) -> None:
    app = make_app(stats_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_stats(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "HomeScreen"


def test_stats_screen_snapshot(snap_compare, stats_db: str) -> None:
    assert snap_compare(
        make_app(stats_db, start="home"), run_before=open_stats, terminal_size=(100, 36)
    )


async def test_the_header_lines_up_with_the_rows_after_each_sort(stats_db: str) -> None:
    app = make_app(stats_db, start="home")
    async with app.run_test(size=(100, 36)) as pilot:
        await open_stats(pilot)
        table = app.screen.query_one("#topics", DataTable)
        for _ in range(len(TOPIC_HEADERS)):
            header, first_row = (table.render_line(y).text for y in (0, 1))
            starts = [header.index(f" {name} ") + 1 for name in TOPIC_HEADERS]
            cells = [str(cell) for cell in table.get_row_at(0)]
            assert [
                first_row.index(cell, start) for cell, start in zip(cells, starts, strict=True)
            ] == starts
            await pilot.press("o")
            await steady(pilot)


async def test_g_shows_the_groups_weak_topics_and_back(
    group_db: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-20T12:00:00")
    from kvdrill.app.app_options import AppOptions
    from kvdrill.app.tui import create_app

    app = create_app(group_db, profile="ana", start="home", options=AppOptions(bundled=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_stats(pilot)
        screen = app.screen
        table = screen.query_one("#topics", DataTable)
        own = first_column(table)
        await pilot.press("g")
        await settle(pilot)
        summary = str(screen.query_one("#stats-summary", Static).render())
        assert "3 learners" in summary and "1 topic not shown" in summary
        assert first_column(table) == ["pack:sm2-test", "tag:kv"]  # only Cleo answered weights
        assert [str(cell) for cell in table.get_row_at(1)] == ["tag:kv", "2", "3", "18", "33%"]
        assert not screen.query_one("#mistakes").display
        await pilot.press("g")
        await settle(pilot)
        assert first_column(table) == own and screen.query_one("#mistakes").display


async def test_at_80x24_every_topic_column_is_in_sight(
    stats_db: str,
) -> None:
    from kvdrill.app.services.backend import Services

    services = Services(stats_db, "default", bundled=True)
    services.overview()  # the bundled decks: topics such as pack:disaggregated-serving
    services.close()
    app = make_app(stats_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_stats(pilot)
        await steady(pilot)
        table = app.screen.query_one("#topics", DataTable)
        header = table.render_line(0).text
        assert all(f" {name} " in f"{header} " for name in TOPIC_HEADERS)
        assert table.region.right <= 80 and table.virtual_size.width <= table.size.width


async def test_a_report_that_comes_after_the_screen_closed_is_dropped(stats_db: str) -> None:
    """Keys typed ahead may close the screen before its report is built (a tmux run crashed
    so): the report or charts that come after are dropped, the app runs on."""
    from kvdrill.app.tui.messages import ChartsLoaded, ReportLoaded

    app = make_app(stats_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_stats(pilot)
        screen = app.screen
        report = screen.report
        charts = app.backend.stats_charts(report)
        await pilot.press("escape")
        await settle(pilot)
        screen.on_report_loaded(ReportLoaded(report))
        screen.on_charts_loaded(ChartsLoaded(charts))
        await settle(pilot)
        assert type(app.screen).__name__ == "HomeScreen"
