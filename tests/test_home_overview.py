"""The home screen's counts: read from a SQLite file with ``sqlite3`` alone (no SQLAlchemy loaded
by the time they show), the same counts the open database gives, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from drill_helpers import keys_until_done

from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.overview import load_overview
from kvdrill.app.services.settings import change_settings
from kvdrill.store.db import open_database

pytestmark = pytest.mark.both_backends

ROOT = Path(__file__).resolve().parent.parent
DAY1 = datetime(2026, 3, 10, 9, 0)


@pytest.fixture
def db(db_url: str, collection):
    database = open_database(db_url)
    with database.session() as session:
        collection.add_pack(session, "home-pack", collection.recall_cards(9))
    yield database
    database.close()


def printed(probe: str) -> str:
    """What ``probe`` prints, run in a fresh Python at ``DAY1``."""
    env = {"KVDRILL_NOW": DAY1.isoformat(), "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-c", probe]
    return subprocess.run(run, cwd=ROOT, capture_output=True, text=True, env=env, check=True).stdout


def shown(overview) -> dict:
    return {
        "packs": [[line.key, line.due, line.new, line.total] for line in overview.packs],
        "reviewed": overview.reviewed_today,
        "new": overview.new_today,
        "suspended": overview.suspended,
        "streak": overview.streak_days,
    }


def test_the_counts_follow_the_answers_given(db) -> None:
    change_settings(db, "default", DAY1, new_per_day=4)
    before = shown(load_overview(db.read, "default", DAY1))
    assert before["packs"] == [["home-pack", 0, 9, 9]] and before["new"] == 4
    keys_until_done(DrillSession.open(db, now=DAY1, new_limit=2), {"c1": [5]})
    after = shown(load_overview(db.read, "default", DAY1))
    assert after["reviewed"] == 2 and after["new"] == 2 and after["streak"] == 1
    assert after["packs"] == [["home-pack", 0, 7, 9]]


def test_a_profile_not_stored_reads_with_the_defaults_and_is_not_created(db) -> None:
    home = load_overview(db.read, "newcomer", DAY1)
    assert home.profile == "newcomer" and home.reviewed_today == 0
    assert home.packs[0].new == 9 and home.new_today == 9
    assert db.read(lambda sql: sql.rows("SELECT name FROM profiles")) == []


@pytest.mark.sqlite_only
def test_on_a_sqlite_file_the_counts_come_without_sqlalchemy(db, db_url) -> None:
    change_settings(db, "default", DAY1, new_per_day=4)
    keys_until_done(DrillSession.open(db, now=DAY1, new_limit=1), {"c1": [5]})
    probe = (
        "import json, sys\n"
        "from kvdrill.app.services.backend import Services\n"
        f"home = Services({db_url!r}, 'default').overview()\n"
        "print(json.dumps([[[p.key, p.due, p.new, p.total] for p in home.packs],"
        " home.reviewed_today, home.new_today, 'sqlalchemy' in sys.modules]))\n"
    )
    expected = load_overview(db.read, "default", DAY1)
    packs = [[line.key, line.due, line.new, line.total] for line in expected.packs]
    assert json.loads(printed(probe)) == [packs, 1, 3, False]


@pytest.mark.sqlite_only
def test_a_home_start_reads_everything_without_sqlalchemy(db, db_url) -> None:
    """Counts, the saved theme, today's backup already written, the bundled decks unchanged:
    nothing on a home start needs the store's ORM."""
    from kvdrill.app.services.maintenance import daily_backup

    change_settings(db, "default", DAY1, theme="light")
    assert daily_backup(db, DAY1) is None  # today's copy written now
    probe = (
        "import asyncio, sys\n"
        "from kvdrill.app.app_options import AppOptions\n"
        "from kvdrill.app.tui import create_app\n"
        "async def main():\n"
        f"    app = create_app({db_url!r}, options=AppOptions(bundled=False))\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        for _ in range(200):\n"
        "            await pilot.pause(0.05)\n"
        "            text = str(app.screen.query_one('#home-today').render())\n"
        "            if 'Today' in text and app.theme_settled and not app.workers:\n"
        "                break\n"
        "        print(text.split(' ·')[0], app.theme, 'sqlalchemy' in sys.modules)\n"
        "asyncio.run(main())\n"
    )
    assert printed(probe).split() == ["Today:", "0", "reviewed", "textual-light", "False"]
