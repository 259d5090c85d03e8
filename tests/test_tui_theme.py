"""Ctrl+T's theme is kept on the profile: the next start, on the same database, opens in it."""

from __future__ import annotations

import pytest
from tui_helpers import NOW, import_fixture, make_app, settle

from kvdrill.app.tui.app import DARK_THEME, LIGHT_THEME


@pytest.fixture
def pack_db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    return import_fixture(db_url, "good")


async def toggle_once(db_url: str, start: str) -> str:
    app = make_app(db_url, start=start)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)  # the save runs in a worker
        return app.theme


async def theme_at_start(db_url: str, start: str, **options) -> str:
    app = make_app(db_url, start=start, **options)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        return app.theme


async def test_the_toggled_theme_is_the_one_the_app_restarts_in(pack_db: str) -> None:
    assert await theme_at_start(pack_db, "home") == DARK_THEME  # a new profile: dark
    assert await toggle_once(pack_db, "home") == LIGHT_THEME
    assert await theme_at_start(pack_db, "home") == LIGHT_THEME
    assert await theme_at_start(pack_db, "drill") == LIGHT_THEME
    assert await theme_at_start(pack_db, "import") == LIGHT_THEME
    # Toggled back in a drill, dark again at the next start.
    assert await toggle_once(pack_db, "drill") == DARK_THEME
    assert await theme_at_start(pack_db, "home") == DARK_THEME


async def test_a_theme_given_as_an_option_wins_over_the_saved_one(pack_db: str) -> None:
    assert await toggle_once(pack_db, "home") == LIGHT_THEME
    assert await theme_at_start(pack_db, "home", theme="dark") == DARK_THEME


async def test_two_quick_toggles_save_the_last_one(pack_db: str) -> None:
    app = make_app(pack_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t", "ctrl+t", "ctrl+t")
        await settle(pilot)
        assert app.theme == LIGHT_THEME
    assert await theme_at_start(pack_db, "home") == LIGHT_THEME
