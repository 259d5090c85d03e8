"""``kvdrill due``: the counts are the session's own (due reviews and repeats, new cards), on
SQLite (sqlite3 alone, no SQLAlchemy) and on PostgreSQL; a read never writes."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from drill_helpers import keys_until_done
from sqlalchemy import func, select

from kvdrill.app.cli import main
from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.settings import change_settings
from kvdrill.store.db import open_database
from kvdrill.store.location import sqlite_file
from kvdrill.store.models import Profile

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server

ROOT = Path(__file__).resolve().parent.parent
DAY1 = datetime(2026, 3, 10, 9, 0)


@pytest.fixture
def db(db_url: str, collection):
    database = open_database(db_url)
    with database.session() as session:
        collection.add_pack(session, "due-pack", collection.recall_cards(9))
    yield database
    database.close()


def due(capsys, db_url: str, now: datetime, *extra: str) -> tuple[int, str, str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KVDRILL_NOW", now.isoformat())
        code = main(["--db", db_url, "due", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def session_size(db, now: datetime) -> int:
    return DrillSession.open(db, now=now).remaining


def test_the_counts_are_what_a_drill_now_brings_as_the_days_go(db, db_url, capsys) -> None:
    change_settings(db, "default", DAY1, new_per_day=4)
    assert due(capsys, db_url, DAY1)[1] == "0 due · 4 new\n"
    keys_until_done(DrillSession.open(db, now=DAY1, new_limit=2), {"c1": [1]})  # c1 missed
    # Two new cards used of four; c1's repeat was owed and given: nothing due today.
    assert due(capsys, db_url, DAY1 + timedelta(hours=1))[1] == "0 due · 2 new\n"
    tomorrow = DAY1 + timedelta(days=1)
    code, out, _ = due(capsys, db_url, tomorrow, "--json")
    counts = json.loads(out)
    assert code == 0 and counts == {"profile": "default", "due": 2, "new": 4}
    assert counts["due"] + counts["new"] == session_size(db, tomorrow)


def test_a_missed_card_still_owed_today_is_due(db, db_url, capsys) -> None:
    session = DrillSession.open(db, now=DAY1)
    session.grade(1, 3.0)  # missed, then the learner stops before its repeat
    code, out, _ = due(capsys, db_url, DAY1 + timedelta(minutes=5))
    assert out == "1 due · 8 new\n"  # its repeat is owed; the eight unseen fit in ten a day


def test_a_read_creates_no_profile_and_leaves_the_file_as_it_was(db, db_url, capsys) -> None:
    path = sqlite_file(db_url)
    before = hashlib.sha256(path.read_bytes()).hexdigest() if path else None
    code, out, _ = due(capsys, db_url, DAY1, "--profile", "ana")
    assert (code, out) == (0, "0 due · 9 new\n")  # a new learner's ten a day: all nine cards
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(Profile)) == 0
    if path:
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before


@pytest.mark.sqlite_only
def test_no_database_yet_is_one_sentence_and_creates_nothing(tmp_path, capsys) -> None:
    missing = tmp_path / "none.db"
    code, out, err = due(capsys, f"sqlite:///{missing}", DAY1)
    assert code == 1 and out == ""
    assert (
        err == f"kvdrill: there is no kvdrill database at {missing} yet: run kvdrill to create it\n"
    )
    assert not missing.exists()


@pytest.mark.sqlite_only
def test_on_a_sqlite_file_it_needs_neither_sqlalchemy_nor_textual(db, db_url) -> None:
    change_settings(db, "default", DAY1, new_per_day=3)  # the profile exists
    probe = (
        "import sys; from kvdrill.app.cli import main; code = main(sys.argv[1:]); "
        "heavy = [m for m in ('sqlalchemy', 'textual', 'pydantic', 'sympy') if m in sys.modules]; "
        "print(heavy)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, "--db", db_url, "due"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"KVDRILL_NOW": DAY1.isoformat(), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert result.stdout == "0 due · 3 new\n[]\n"


def test_a_follow_up_of_a_card_seen_earlier_counts_as_new_as_the_session_has_it(
    db_url: str, collection, capsys
) -> None:
    database = open_database(db_url)
    with database.session() as session:
        cards = [
            {"key": "parent", "prompt": "P?", "answer": "P."},
            {
                "key": "child",
                "kind": "followup",
                "parent": "parent",
                "prompt": "C?",
                "answer": "C.",
            },
            *collection.recall_cards(3),
        ]
        collection.add_pack(session, "follow", cards)
    session = DrillSession.open(database, now=DAY1, new_limit=1)
    assert session.current.key == "parent"
    session.grade(5, 3.0)  # due tomorrow; its follow-up is now a new card of its own
    later = DAY1 + timedelta(hours=1)
    code, out, _ = due(capsys, db_url, later, "--json")
    assert json.loads(out) | {"profile": None} == {"profile": None, "due": 0, "new": 4}
    assert DrillSession.open(database, now=later).remaining == 4
    database.close()
