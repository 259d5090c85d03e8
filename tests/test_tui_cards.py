"""The card browser and a card's page in the full-screen app (issue 25), driven with Pilot on
the real stack: search, filters, sort, the card actions (suspend, unsuspend, bury, flag,
forget, drill it now) and editing a card's pack file in $EDITOR, checked and imported on return."""

from __future__ import annotations

import shutil
import sys
from datetime import datetime
from pathlib import Path

import pytest
from drill_helpers import answer_kv_problem_wrong as answer_kv_problem_wrong_once
from textual.widgets import DataTable, OptionList
from tui_helpers import make_app, record_notices, settle, text_of

from kvdrill.app.tui.screens.card_page import CardPageScreen
from kvdrill.app.tui.screens.cards import CardsScreen
from kvdrill.app.tui.screens.drill import DrillScreen
from kvdrill.app.tui.screens.help import HelpScreen
from kvdrill.app.tui.screens.home import HomeScreen
from kvdrill.engine.study.browse import STATES

SM2_PACKS = Path(__file__).parent / "fixtures" / "packs" / "sm2"
NOW = "2026-03-10T09:00:00"


@pytest.fixture
def packs_db(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The sm2 fixture packs, copied where the learner may edit them, imported."""
    from kvdrill.app.services.pack_files import parse_paths
    from kvdrill.store.db import open_database
    from kvdrill.store.importer import apply_import

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    folder = tmp_path / "packs"
    shutil.copytree(SM2_PACKS, folder)
    packs, errors = parse_paths([folder])
    assert not errors
    database = open_database(db_url)
    with database.session() as session:
        apply_import(session, now=datetime(2026, 3, 9), packs=packs)
    database.close()
    return db_url


def rows(app) -> dict[str, list[str]]:
    """The browser's table: card id -> its cells as shown."""
    table = app.screen.query_one("#cards-table", DataTable)
    return {str(key.value): [str(cell) for cell in table.get_row(key)] for key in table.rows.keys()}


async def open_browser(pilot) -> None:
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CardsScreen)


async def pick(pilot, value: str) -> None:
    """In the pick list on screen, choose the option ``value``."""
    options = pilot.app.screen.query_one(OptionList)
    options.highlighted = next(
        index
        for index in range(options.option_count)
        if options.get_option_at_index(index).id == value
    )
    await pilot.press("enter")
    await settle(pilot)


async def to_row(pilot, reference: str) -> None:
    table = pilot.app.screen.query_one("#cards-table", DataTable)
    table.move_cursor(row=table.get_row_index(reference))
    await settle(pilot)


def answer_kv_problem_wrong(db_url: str) -> None:
    from kvdrill.store.db import open_database

    database = open_database(db_url)
    answer_kv_problem_wrong_once(database, datetime.fromisoformat(NOW))
    database.close()


async def test_home_opens_the_browser_listing_every_card_and_search_narrows_it(
    packs_db: str,
) -> None:
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browser(pilot)
        listed = rows(app)
        assert len(listed) == 7 and listed["sm2-fixture/alpha"][2] == "new"
        table = app.screen.query_one("#cards-table", DataTable)
        assert table.max_scroll_x == 0  # the four columns fit 80 columns
        assert listed["sm2-problems/between"][1].endswith("…")  # a long title is cut
        assert "7 cards" in text_of(app, "#cards-summary")
        await pilot.press("slash", *"beta prompt", "enter")  # text of a prompt, any case
        await settle(pilot)
        assert list(rows(app)) == ["sm2-fixture/beta"]
        assert "1 card ·" in text_of(app, "#cards-summary")
        await pilot.press("c")  # every filter off, the search too
        await settle(pilot)
        assert len(rows(app)) == 7


async def test_filters_by_pack_kind_and_state_and_sorts(packs_db: str) -> None:
    answer_kv_problem_wrong(packs_db)
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browser(pilot)
        await pilot.press("p")
        await pick(pilot, "sm2-problems")
        assert set(rows(app)) == {"sm2-problems/kv-drawn", "sm2-problems/between"}
        await pilot.press("k")
        await pick(pilot, "problem")
        assert set(rows(app)) == {"sm2-problems/kv-drawn"}
        await pilot.press("c", "f")
        await settle(pilot)
        listed = [option.id for option in app.screen.query_one(OptionList)._options]
        assert listed[1:] == list(STATES)
        await pick(pilot, "new")
        assert "sm2-problems/between" not in rows(app) and len(rows(app)) == 5
        await pilot.press("f")
        await pick(pilot, "*")
        await pilot.press("o")
        await pick(pilot, "last")
        # Answered last, then the card answered before it; then the unseen cards.
        assert list(rows(app))[:2] == ["sm2-problems/kv-drawn", "sm2-problems/between"]
        assert "by last review" in text_of(app, "#cards-summary")


async def test_suspend_unsuspend_bury_and_flag_from_the_browser(packs_db: str) -> None:
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browser(pilot)
        await to_row(pilot, "sm2-fixture/beta")
        await pilot.press("s")
        await settle(pilot)
        assert rows(app)["sm2-fixture/beta"][2] == "suspended"
        await pilot.press("s")  # again: unsuspended
        await settle(pilot)
        assert rows(app)["sm2-fixture/beta"][2] == "new"
        await pilot.press("b")
        await settle(pilot)
        assert rows(app)["sm2-fixture/beta"][2] == "buried"
        await pilot.press("x")
        await pick(pilot, "red")
        assert rows(app)["sm2-fixture/beta"][2] == "buried,red"
        await pilot.press("x")
        await pick(pilot, "none")
        assert rows(app)["sm2-fixture/beta"][2] == "buried"


async def test_a_cards_page_shows_its_history_and_forgets_it_keeping_the_history(
    packs_db: str,
) -> None:
    answer_kv_problem_wrong(packs_db)
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browser(pilot)
        await to_row(pilot, "sm2-problems/kv-drawn")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CardPageScreen)
        page = text_of(app, "#card-text")
        assert "History (1 answer):" in page and "grade" in page and "30.0 s" in page
        assert "typed" in page and "expected" in page
        assert "Mistakes: kv_factor_2 x1" in page
        assert "problem · learning · due 2026-03-11" in page
        await pilot.press("f")  # asks first
        await settle(pilot)
        assert "problem · learning ·" in text_of(app, "#card-text")
        await pilot.press("f")
        await settle(pilot)
        page = text_of(app, "#card-text")
        assert "problem · new ·" in page and "History (1 answer):" in page
        await pilot.press("s")
        await settle(pilot)
        assert "problem · suspended ·" in text_of(app, "#card-text")
        await pilot.press("u")
        await settle(pilot)
        assert "problem · new ·" in text_of(app, "#card-text")
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        listed = text_of(app, "#help-text")
        keys = [line.split("  ")[0].strip() for line in listed.splitlines()]
        for key in ("s", "u", "b", "x", "f", "e", "d", "Esc"):
            assert key in keys
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert isinstance(app.screen, CardsScreen)  # back, the list showing the change
        assert rows(app)["sm2-problems/kv-drawn"][2] == "new"


async def test_drill_it_now_asks_that_card_as_practice(packs_db: str) -> None:
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browser(pilot)
        await to_row(pilot, "sm2-fixture/delta")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, DrillScreen)
        assert "Third recall card" in text_of(app, "#drill-where")
        assert "1 left" in text_of(app, "#drill-left")


def editor_script(tmp_path: Path, old: str, new: str) -> str:
    """An $EDITOR that replaces ``old`` by ``new`` in the file it is given, and notes the line
    it was asked to open at."""
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys, pathlib\n"
        f"pathlib.Path({str(tmp_path / 'line')!r}).write_text(sys.argv[1])\n"
        "path = pathlib.Path(sys.argv[2])\n"
        f"path.write_text(path.read_text().replace({old!r}, {new!r}))\n"
    )
    return f"{sys.executable} {script}"


async def test_edit_opens_the_pack_file_at_the_card_and_imports_it_keeping_history(
    packs_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer_kv_problem_wrong(packs_db)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv(
        "EDITOR", editor_script(tmp_path, "## A recall card between", "## A renamed card")
    )
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browser(pilot)
        await to_row(pilot, "sm2-problems/between")
        await pilot.press("e")
        await settle(pilot)
        await settle(pilot)
        lines = (tmp_path / "packs" / "sm2-problems.md").read_text().splitlines()
        asked = int((tmp_path / "line").read_text().lstrip("+"))
        assert lines[asked - 1].startswith("## A renamed card")
        assert rows(app)["sm2-problems/between"][1].startswith("A renamed card")
        assert rows(app)["sm2-problems/between"][2] == "review"  # its schedule kept
        await pilot.press("enter")
        await settle(pilot)
        assert "History (1 answer):" in text_of(app, "#card-text")


async def test_an_edit_with_an_error_says_file_and_line_and_changes_nothing(
    packs_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", editor_script(tmp_path, "### Prompt", "### Promptt"))
    app = make_app(packs_db, start="home")
    said = record_notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browser(pilot)
        await to_row(pilot, "sm2-fixture/alpha")
        await pilot.press("enter")
        await settle(pilot)
        before = text_of(app, "#card-text")
        await pilot.press("e")
        await settle(pilot)
        await settle(pilot)
        refused = [line for line in said if "Nothing was imported" in line]
        assert refused, said
        assert "sm2-fixture.md:" in refused[0] and "Traceback" not in refused[0]
        located = refused[0].split("sm2-fixture.md:", 1)[1]
        assert located.split(":", 1)[0].isdigit()  # file:line: message
        assert text_of(app, "#card-text") == before
        await pilot.press("escape")
        await settle(pilot)
        assert len(rows(app)) == 7


async def test_the_drill_flags_the_card_shown_and_edits_its_pack_file(
    packs_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", editor_script(tmp_path, "Alpha prompt:", "Alpha question:"))
    app = make_app(packs_db, start="drill", pack="sm2-fixture")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.card.key == "alpha"
        await pilot.press("x")
        await settle(pilot)
        await pick(pilot, "blue")
        _, flagged = app.backend.list_cards(state="flagged")
        assert [(card.reference, card.flag) for card in flagged] == [("sm2-fixture/alpha", "blue")]
        assert isinstance(app.screen, DrillScreen) and app.screen.card.key == "alpha"
        await pilot.press("question_mark")
        await settle(pilot)
        assert "edit its pack file in $EDITOR, then import it" in text_of(app, "#help-text")
        await pilot.press("escape", "ctrl+e")
        await settle(pilot)
        await settle(pilot)
        _, found = app.backend.list_cards(search="alpha question")
        assert [card.reference for card in found] == ["sm2-fixture/alpha"]
        assert (tmp_path / "line").read_text() == "+9"  # the card's heading


def no_new_cards_today(app) -> None:
    app.backend.change_settings(new_per_day=0)


async def test_enter_on_a_pack_row_drills_that_pack_as_practice_when_nothing_is_due(
    packs_db: str,
) -> None:
    app = make_app(packs_db, start="home")
    said = record_notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#home-packs", DataTable)
        table.move_cursor(row=table.get_row_index("sm2-problems"))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.card.pack_key == "sm2-problems" and not app.screen.session.practice
        await pilot.press("q")
        await settle(pilot)
        table = app.screen.query_one("#home-packs", DataTable)
        # Back home, the counts come again and the cursor stays on the pack just drilled.
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == (
            "sm2-problems"
        )
        no_new_cards_today(app)
        table.move_cursor(row=table.get_row_index("sm2-fixture"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.card.pack_key == "sm2-fixture"
        assert app.screen.session.practice  # nothing due: practice, no schedule moves
        assert any("come as practice" in line for line in said)


async def test_more_new_cards_today_beyond_the_daily_limit(packs_db: str) -> None:
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        no_new_cards_today(app)
        await pilot.press("question_mark")
        await settle(pilot)
        keys = text_of(app, "#help-text")
        assert "more new cards today" in keys and "drill the pack under the cursor" in keys
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pick(pilot, "5")
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.card is not None and app.screen.card.is_new
        assert not app.screen.session.practice  # real new cards: their schedules start
        assert app.screen.session.remaining >= 5


async def test_enter_on_a_weak_topic_gives_a_session_even_with_nothing_due(
    packs_db: str,
) -> None:
    from kvdrill.app.tui.screens.stats import StatsScreen

    answer_kv_problem_wrong(packs_db)
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        no_new_cards_today(app)
        app.backend.act_on_card("sm2-problems/kv-drawn", "bury")  # its repeat is not due now
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        topics = app.screen.query_one("#topics", DataTable)
        assert topics.row_count
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.card is not None and app.screen.session.practice


async def test_the_browser_and_a_cards_page_in_vietnamese(packs_db: str, vietnamese) -> None:
    """States, facts and history read Vietnamese, numbers in its convention (30,0 s)."""
    from test_tui_vietnamese import check

    answer_kv_problem_wrong(packs_db)
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browser(pilot)
        assert rows(app)["sm2-fixture/alpha"][2] == "mới"
        await to_row(pilot, "sm2-problems/kv-drawn")
        await pilot.press("enter")
        await settle(pilot)
        await check(app, ["Back", "Suspend", "Flag", "Edit", "Drill"])
        page = text_of(app, "#card-text")
        assert "Lịch sử (1 câu trả lời):" in page and "30,0 s" in page, page
        assert "bài toán · đang học · đến hạn 2026-03-11" in page, page
        assert "độ dễ 2," in page and "Lỗi sai: kv_factor_2 x1" in page, page
        for english in ("History", "grade", "typed", "expected", "Mistakes", "ease", "lapse"):
            assert english not in page, english


@pytest.mark.parametrize(("keys", "row"), [(("down", "enter"), 1), (("enter", "down"), 0)])
async def test_keys_typed_before_homes_counts_came_act_once_they_are_shown(
    packs_db: str, monkeypatch: pytest.MonkeyPatch, keys: tuple[str, str], row: int
) -> None:
    """Down, then Enter, typed while home's counts still load: the second pack's session (Down
    moved the page around the table, focused first, and Enter drilled every pack); Enter, then
    Down: the first pack's, the keys made in the order typed."""
    import threading

    from kvdrill.app.services.backend import Services

    counts_may_come = threading.Event()
    overview = Services.overview

    def slow_overview(self):
        counts_may_come.wait(10)
        return overview(self)

    monkeypatch.setattr(Services, "overview", slow_overview)
    app = make_app(packs_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        counts_may_come.set()
        await settle(pilot)
        assert isinstance(app.screen, DrillScreen)
        home = next(screen for screen in app.screen_stack if isinstance(screen, HomeScreen))
        table = home.query_one("#home-packs", DataTable)
        assert table.row_count >= 2
        assert app.screen.card.pack_key == table.coordinate_to_cell_key((row, 0)).row_key.value
