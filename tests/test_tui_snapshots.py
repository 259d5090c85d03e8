"""Snapshots of the main screens at 80x24 (pytest-textual-snapshot).

The date is fixed with KVDRILL_NOW, the countdown and the session's clock stand still (here
only: a learner's run with KVDRILL_NOW counts real seconds), paths are relative to the
repository, and the text cursor does not blink, so every run draws the same picture. After an
intended change, look at the new pictures and accept them with ``--snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tui_helpers
from textual.widgets import Input
from tui_helpers import import_fixture, settle, steady

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-03-02T09:00:00"


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    from kvdrill.app.services import drill, environment

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    monkeypatch.chdir(ROOT)
    start = environment.now()
    monkeypatch.setattr(drill, "make_clock", lambda now: lambda: start)


def make_app(db_url: str, **options):
    return tui_helpers.make_app(db_url, frozen_countdown=True, **options)


async def still(pilot) -> None:
    """Settle, and stop the blinking cursor of every input."""
    await settle(pilot)
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await steady(pilot)


def test_home(snap_compare, db_url: str) -> None:
    app = make_app(import_fixture(db_url, "good"), start="home")
    assert snap_compare(app, run_before=still)


def test_drill_prompt(snap_compare, db_url: str) -> None:
    app = make_app(import_fixture(db_url, "good"))
    assert snap_compare(app, run_before=still)


def test_drill_revealed(snap_compare, db_url: str) -> None:
    app = make_app(import_fixture(db_url, "good"))

    async def reveal(pilot) -> None:
        await still(pilot)
        await pilot.press("space")
        await still(pilot)

    assert snap_compare(app, run_before=reveal)


def test_multiple_choice_verdict(snap_compare, db_url: str) -> None:
    app = make_app(import_fixture(db_url, "good"))

    async def answer(pilot) -> None:
        await still(pilot)
        while pilot.app.screen.card.kind != "choice":
            await pilot.press("space", "4")
            await still(pilot)
        await pilot.press("b")
        await still(pilot)

    assert snap_compare(app, run_before=answer)


def test_problem_verdict(snap_compare, db_url: str) -> None:
    app = make_app(import_fixture(db_url, "problems"))

    async def answer(pilot) -> None:
        await still(pilot)
        pilot.app.screen.query_one("#drill-input", Input).value = "512 KiB"
        await pilot.press("enter")
        await still(pilot)

    assert snap_compare(app, run_before=answer)


def test_summary(snap_compare, db_url: str) -> None:
    app = make_app(import_fixture(db_url, "good"))

    async def finish(pilot) -> None:
        await still(pilot)
        letter = "a"
        while type(pilot.app.screen).__name__ == "DrillScreen":
            if pilot.app.screen.card.kind == "choice":
                await pilot.press(letter)
                letter = "c"
                await still(pilot)
                await pilot.press("enter")
            else:
                await pilot.press("space", "4")
            await still(pilot)

    assert snap_compare(app, run_before=finish)


def test_import_with_errors(snap_compare, db_url: str) -> None:
    app = make_app(db_url, start="import", import_path="tests/fixtures/packs/tui/bad")

    async def scan(pilot) -> None:
        await still(pilot)
        await pilot.press("enter")
        await still(pilot)

    assert snap_compare(app, run_before=scan)


def test_import_dry_run(snap_compare, db_url: str) -> None:
    app = make_app(db_url, start="import", import_path="tests/fixtures/packs/tui/good")

    async def scan(pilot) -> None:
        await still(pilot)
        await pilot.press("enter")
        await still(pilot)

    assert snap_compare(app, run_before=scan)


def test_import_browser(snap_compare, db_url: str) -> None:
    app = make_app(db_url, start="import", import_path="tests/fixtures/packs/tui")

    async def browse(pilot) -> None:
        await still(pilot)
        await pilot.press("ctrl+o")
        tree = pilot.app.screen.query_one("#picker-tree")
        for _ in range(200):  # the tree's loader never finishes: poll for its first level
            if len(tree.root.children) == 3:
                break
            await pilot.pause(0.02)
        await pilot.press("down", "space")  # open "bad"
        for _ in range(200):
            if tree.root.children[0].children:
                break
            await pilot.pause(0.02)
        await pilot.pause()

    assert snap_compare(app, run_before=browse)
