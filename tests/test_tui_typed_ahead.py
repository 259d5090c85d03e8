"""Keys typed ahead are queued and applied in order, never dropped: in Pilot, and in a real
tmux pane (the browser's burst is in test_serve_browser.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from tui_helpers import NOW, import_fixture, logged, make_app, settle

BURST = ("space", "4") * 3  # reveal, Easy; three times, without waiting for the screen


def burst(app, *keys: str) -> None:
    """Send ``keys`` at once, as a terminal delivers keys typed ahead: none waits for the
    screen (Pilot's ``press`` waits for the app to be idle after each key)."""
    from textual import events

    for key in keys:
        app.post_message(events.Key(key, " " if key == "space" else key))


@pytest.fixture
def three_recall_db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Three recall cards and nothing else, the clock on a Monday morning."""
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    # Not under packs/tui/: the import picker's snapshot lists that folder.
    return import_fixture(db_url, "../three-recall")


async def test_a_burst_of_space_4_three_times_logs_three_reviews(three_recall_db: str) -> None:
    app = make_app(three_recall_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.card is not None and app.screen.card.kind == "recall"
        burst(app, *BURST)
        await settle(pilot)
        await settle(pilot)
        assert type(app.screen).__name__ == "SummaryScreen"
    assert logged(three_recall_db, "quality") == [(5,), (5,), (5,)]


async def test_keys_pressed_while_an_answer_commits_apply_once_it_is_saved(
    three_recall_db: str,
) -> None:
    """The grade's worker holds the session; a reveal and an exact grade typed meanwhile land
    on the next card, in order."""
    app = make_app(three_recall_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.screen.card.title
        burst(app, "space", "3", "space", "g", "2")
        await settle(pilot)
        await settle(pilot)
        assert app.screen.card.title not in (first, "")
        assert app.screen.phase == "prompt"
    assert logged(three_recall_db, "quality") == [(4,), (2,)]


async def test_a_reveal_typed_while_the_grade_is_saving_shows_the_next_answer_when_saved(
    three_recall_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grade's worker is held inside the session until released: the reveal typed
    meanwhile waits (nothing shown of the next card's answer, nothing logged), then shows the
    next card's answer as soon as the worker ends, with no further key."""
    import asyncio
    import threading

    from kvdrill.app.services.drill import DrillSession

    saving, release = threading.Event(), threading.Event()
    grade = DrillSession.grade

    def held_grade(self, *args, **kwargs):
        saving.set()
        assert release.wait(timeout=30)
        return grade(self, *args, **kwargs)

    monkeypatch.setattr(DrillSession, "grade", held_grade)
    app = make_app(three_recall_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        first = screen.card
        await pilot.press("space")
        await pilot.press("4")
        while not saving.is_set():
            await asyncio.sleep(0.01)
        burst(app, "space")
        for _ in range(5):
            await pilot.pause()
        assert screen.card is first and screen.phase == "revealed"
        assert logged(three_recall_db, "quality") == []
        release.set()
        await settle(pilot)
        assert screen.card is not None and screen.card.title != first.title
        assert screen.phase == "revealed"
        reveal = screen.query_one("#drill-reveal")
        assert reveal.display and screen.card.answer.strip() in reveal.source
    assert logged(three_recall_db, "quality") == [(5,)]


def tmux(*args: str) -> str:
    done = subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_burst_sent_to_a_real_tmux_pane_logs_three_reviews(
    three_recall_db: str, tmp_path: Path, collection
) -> None:
    from kvdrill.store.db import open_database

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install tmux)")
    # The first start here: the app in the pane has no bundled decks to parse while it drills.
    database = open_database(three_recall_db)
    collection.import_bundled(database)
    database.close()
    session = f"kvdrill-burst-{uuid.uuid4().hex[:8]}"
    env = {
        "KVDRILL_DATA_DIR": str(tmp_path / "data"),
        "KVDRILL_NOW": NOW,
        "TERM": "xterm-256color",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    command = [
        "env",
        *(f"{name}={value}" for name, value in env.items()),
        sys.executable,
        "-m",
        "kvdrill.app",
        "--db",
        three_recall_db,
        "drill",
        "--pack",
        "three-recall",
    ]
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", *command)
    try:

        def screen() -> str:
            return tmux("capture-pane", "-p", "-t", session)

        def wait_to_see(text: str, what: str) -> None:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                if text in screen():
                    return
                time.sleep(0.1)
            raise AssertionError(f"gave up waiting for {what}; the pane shows:\n{screen()}")

        wait_to_see("3 left", "the first card")
        tmux("send-keys", "-t", session, *("Space" if key == "space" else key for key in BURST))
        wait_to_see("Session done", "the summary after three answers")
        assert logged(three_recall_db, "quality") == [(5,), (5,), (5,)]
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, timeout=30)
