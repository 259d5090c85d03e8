"""The settings screen: the same settings, checks and storage as ``kvdrill settings``."""

from __future__ import annotations

from datetime import datetime

from textual.widgets import Input, Static
from tui_helpers import make_app, screen_lines, settle

from kvdrill.app.services.settings import load_settings
from kvdrill.app.tui.app import LIGHT_THEME
from kvdrill.app.tui.screens.settings import SettingsScreen
from kvdrill.engine.study.settings import ProfileSettings
from kvdrill.store.db import open_database


def stored(db_url: str) -> ProfileSettings:
    database = open_database(db_url)
    try:
        return load_settings(database, "default", datetime(2026, 3, 2, 9))
    finally:
        database.close()


def status(app) -> str:
    return str(app.screen.query_one("#settings-status", Static).render())


async def enter_setting(pilot, name: str, text: str) -> None:
    """Focus one setting's field, clear it, type ``text`` and press Enter, as a learner would."""
    field = pilot.app.screen.query_one(f"#setting-{name}", Input)
    field.focus()
    field.value = ""
    await pilot.press(*text, "enter")
    await settle(pilot)


async def test_the_settings_screen_shows_changes_and_refuses_like_the_cli(db_url: str) -> None:
    app = make_app(db_url, start="home")
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen)
        field = app.screen.query_one("#setting-new_per_day", Input)
        assert field.value == "10" and field.has_focus

        await enter_setting(pilot, "new_per_day", "20")
        assert "Saved: new_per_day = 20" in status(app)
        assert stored(db_url).new_per_day == 20

        await enter_setting(pilot, "rollover_hour", "30")
        assert "must be a whole number from 0 to 23" in status(app)
        assert stored(db_url).rollover_hour == 4

        await enter_setting(pilot, "theme", "light")
        assert app.theme == LIGHT_THEME and stored(db_url).theme == "light"

        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, SettingsScreen)


async def test_choosing_vietnamese_on_the_settings_screen_changes_the_home_packs(
    db_url: str,
) -> None:
    from pathlib import Path

    from textual.widgets import DataTable

    from kvdrill.app.cli import main

    packs = Path(__file__).parent / "fixtures" / "packs"
    assert main(["--db", db_url, "import", str(packs / "sm2"), str(packs / "vi")]) == 0

    def home_pack_titles(app) -> set[str]:
        table = app.screen.query_one("#home-packs", DataTable)
        return {str(table.get_row_at(row)[0]) for row in range(table.row_count)}

    app = make_app(db_url, start="home")
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        assert "Bộ nhớ và dung lượng" not in home_pack_titles(app)
        english = home_pack_titles(app)
        assert "Scheduler fixture" in english
        await pilot.press("o")
        await settle(pilot)
        await enter_setting(pilot, "language", "vi")
        await pilot.press("escape")
        await settle(pilot)
        # The Vietnamese pack joins; the English one (no edition) stays, in English.
        assert home_pack_titles(app) == english | {"Bộ nhớ và dung lượng"}


async def test_a_refused_value_is_said_on_screen_at_80x24_and_the_field_shows_the_kept_one(
    db_url: str,
) -> None:
    app = make_app(db_url, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        await enter_setting(pilot, "new_per_day", "5000")
        shown = " ".join(" ".join(screen_lines(app)).split())
        assert "Not saved: “5000”" in shown and "from 0 to 1000; it stays 10." in shown
        assert app.screen.query_one("#setting-new_per_day", Input).value == "10"
        assert stored(db_url).new_per_day == 10


async def test_p_on_a_home_pack_row_sets_that_packs_own_new_card_limit(db_url: str) -> None:
    from pathlib import Path

    from textual.widgets import DataTable

    from kvdrill.app.cli import main
    from kvdrill.app.services.settings import load_pack_settings

    packs = Path(__file__).parent / "fixtures" / "packs"
    assert main(["--db", db_url, "import", str(packs / "sm2")]) == 0
    app = make_app(db_url, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#home-packs", DataTable)
        assert int(str(table.get_row_at(0)[2])) > 1  # the pack's new cards today
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen) and app.screen.pack is not None
        field = app.screen.query_one("#setting-new_per_day", Input)
        assert field.value == "default" and field.has_focus
        await enter_setting(pilot, "new_per_day", "1")
        assert "Saved: new_per_day = 1" in status(app)
        await enter_setting(pilot, "new_order", "shuffled")
        shown = " ".join(" ".join(screen_lines(app)).split())
        assert "Not saved: “shuffled”" in shown and "one of file, random, or default" in shown
        await pilot.press("escape")
        await settle(pilot)
        table = app.screen.query_one("#home-packs", DataTable)
        assert str(table.get_row_at(0)[2]) == "1"
    database = open_database(db_url)
    try:
        kept = load_pack_settings(database, "default", datetime(2026, 3, 2, 9))
    finally:
        database.close()
    assert [(pack.new_per_day, pack.new_order) for pack in kept.values()] == [(1, None)]
