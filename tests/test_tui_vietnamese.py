"""Each screen in Vietnamese at 80x24: the footer's words translated and every one of them on
screen, and no line of text cut (Vietnamese words are longer than the English ones)."""

from __future__ import annotations

import pytest
from textual.widgets import Static
from textual.widgets._footer import FooterKey
from tui_helpers import make_app, screen_lines, settle, text_of

from kvdrill.i18n import _

pytestmark = pytest.mark.usefixtures("vietnamese")

SIZE = (80, 24)


def cut_texts(app) -> list[str]:
    """The footer keys off the edge, and the texts whose widget is too small for them."""
    screen = app.screen
    width = screen.size.width
    cut = [
        f"footer key {key.description!r} ends at column {key.region.right}"
        for key in screen.query(FooterKey)
        if key.display and key.region.right > width
    ]
    for widget in screen.query(Static):
        # The whole widget, also where a scrolling box shows only part of it: a box too small
        # for its text cuts it wherever it sits.
        region = widget.content_size
        if not widget.display or region.area == 0:
            continue
        right = widget.content_region.x + region.width
        if right > width:  # wider than the screen: its parent cuts it at the right edge
            cut.append(f"#{widget.id}: ends at column {right}: {widget.visual}")
            continue
        if widget.styles.text_wrap == "nowrap":  # one line, cut at the right edge
            needed = widget.get_content_width(region, screen.size)
            if needed > region.width:
                cut.append(f"#{widget.id}: {needed} columns in {region.width}: {widget.visual}")
            continue
        needed = widget.get_content_height(region, screen.size, region.width)
        if needed > region.height:
            cut.append(f"#{widget.id}: {needed} lines in {region.height}: {widget.visual}")
    return cut


def footer_words(app) -> list[str]:
    return [key.description for key in app.screen.query(FooterKey) if key.display]


async def check(app, english: list[str]) -> None:
    lines = screen_lines(app)
    assert len(lines) == SIZE[1] and all(len(line) <= SIZE[0] for line in lines)
    assert cut_texts(app) == [], "\n".join(lines)
    words = footer_words(app)
    assert words, "\n".join(lines)
    untranslated = [word for word in words if word in english]
    assert untranslated == [], f"footer words in English: {untranslated}"
    footer = lines[-1]
    assert all(word in footer for word in words), footer


ENGLISH_FOOTER = [
    "Keys",
    "Drill",
    "Import",
    "Stats",
    "Quit",
    "Home",
    "Reveal",
    "Note",
    "Pause",
    "Undo",
    "Next",
    "Give up",
    "Back",
    "Close",
    "Save",
    "Cancel",
    "Drill again",
]


async def test_the_drill_in_vietnamese(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        assert _("q: back home") != "q: back home"
        await pilot.press("space")
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        assert "Lại" in screen_lines(app)[-1]
        await pilot.press("question_mark")
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "Phím: ôn tập" in text and "hiện đáp án" in text
        assert app.screen.query_one("#help-box").max_scroll_y == 0
        await pilot.press("escape")
        await settle(pilot)


async def test_a_problem_in_vietnamese(problem_db: str) -> None:
    app = make_app(problem_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        text = "\n".join(screen_lines(app))
        assert "Đáp án" in text, text
        await pilot.press("ctrl+g")
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        shown = text_of(app, "#drill-verdict") + text_of(app, "#drill-reveal")
        assert "Đáp án: " in shown and "Lời giải chi tiết" in shown, shown


async def test_home_settings_and_summary_in_vietnamese(drill_db: str) -> None:
    from kvdrill.app.tui.screens.summary import SummaryScreen

    app = make_app(drill_db, start="home")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        text = "\n".join(screen_lines(app))
        assert "Hôm nay" in text and "Bộ thẻ" in text, text
        await pilot.press("o")
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        assert "Cài đặt" in "\n".join(screen_lines(app))
        await pilot.press("escape")
        await settle(pilot)
        app.push_screen(SummaryScreen(None))
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        assert "Hiện chưa có gì để ôn." in "\n".join(screen_lines(app))


async def test_import_in_vietnamese(drill_db: str) -> None:
    from tui_helpers import FIXTURES

    app = make_app(drill_db, start="import")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        app.screen.start_scan(str(FIXTURES / "good"))
        await settle(pilot)
        await check(app, ENGLISH_FOOTER)
        assert "Chạy thử" in "\n".join(screen_lines(app))


async def test_stats_in_vietnamese(stats_db: str) -> None:
    from stats_helpers import open_stats
    from textual.widgets import DataTable

    english = [*ENGLISH_FOOTER, "Sort", "Group", "Charts", "Drill topic"]
    app = make_app(stats_db, start="home")
    async with app.run_test(size=SIZE) as pilot:
        await open_stats(pilot)
        await check(app, english)
        screen = app.screen
        topics = screen.query_one("#topics", DataTable)
        labels = [str(column.label) for column in topics.columns.values()]
        assert labels[:3] == ["chủ đề", "yếu", "lượt"], labels
        assert "," in str(topics.get_row_at(0)[1]), "a score reads 0,45 in Vietnamese"
        assert topics.virtual_size.width <= SIZE[0], "the topics table fits 80 columns"
        # A long topic wraps inside its column: the nine figures stay in sight.
        report = screen.report
        long = report.topics[0].model_copy(update={"topic": "capacity-planning-and-costs"})
        screen.report = report.model_copy(update={"topics": [long, *report.topics[1:]]})
        screen.show_topics()
        await settle(pilot)
        assert topics.virtual_size.width <= SIZE[0], "a long topic wraps, the table fits"
        assert "khó nhớ" in "\n".join(screen_lines(app))
        shown = text_of(app, "#stats-summary") + text_of(app, "#heatmap")
        assert "Ngày học" in shown and "chuỗi" in shown and "CN" in shown, shown
        assert "Đến hạn mỗi ngày" in text_of(app, "#forecast")
        mistakes = screen.query_one("#mistake-table", DataTable)
        assert "Nhầm GB với GiB" in str(mistakes.get_row_at(0)[0])
        assert "Tỉ lệ nhớ theo tuần" in text_of(app, "#stats-plots")
        await pilot.press("g")
        await settle(pilot)
        await check(app, english)
        assert "Cả nhóm" in text_of(app, "#stats-summary")
