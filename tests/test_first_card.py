"""The fast-start helper: the first card read with sqlite3 alone is the session's own first card."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.first_card import card_state, fast_card_state, main
from kvdrill.engine.study.schedule import Schedule
from kvdrill.store import reviews
from kvdrill.store.db import open_database, session_sql
from kvdrill.store.fast_start import NeedsSession
from kvdrill.store.location import sqlite_file
from kvdrill.store.models import Card
from kvdrill.store.profiles import get_or_create_profile

ROOT = Path(__file__).resolve().parent.parent
DAY1 = datetime(2026, 3, 10, 9, 0)
DAY2 = datetime(2026, 3, 11, 9, 0)
HEAVY = ("sqlalchemy", "pydantic", "sympy", "pint", "textual", "alembic")


@pytest.fixture
def db(db_url: str, monkeypatch: pytest.MonkeyPatch, collection):
    monkeypatch.setenv("KVDRILL_NOW", DAY1.isoformat())
    database = open_database(db_url)
    collection.import_fixture_pack(database)
    with database.session() as session:
        get_or_create_profile(session, "default", datetime.now())
    yield database
    database.close()


def request(db_url: str, **options) -> dict:
    keys = ("pack", "tag", "lesson", "new_limit", "limit")
    return {"database_url": db_url, "profile": "default", **{k: options.get(k) for k in keys}}


def both_states(db, db_url: str, **options) -> tuple[str, str]:
    """What the fast path emits and what ``card_state`` of the real session emits, as JSON."""
    fast = fast_card_state(request(db_url, **options))
    session = DrillSession.open(db, **options)
    return json.dumps(fast, default=str), json.dumps(card_state(session), default=str)


def answer_day(db, now: datetime, grades: dict[str, int], **options) -> None:
    """Run a session at ``now``, grading recall cards once each by key; stop at any other."""
    session = DrillSession.open(db, now=now, **options)
    while (card := session.current) is not None and card.key in grades:
        session.grade(grades.pop(card.key))


def card_id(db, key: str) -> int:
    with db.session() as session:
        return session.scalar(text("SELECT id FROM cards WHERE key = :key"), {"key": key})


def test_new_cards_only(db, db_url: str) -> None:
    fast, real = both_states(db, db_url)
    assert json.loads(fast)["card"]["key"] == "alpha"
    assert fast == real


def test_new_and_session_limits_are_applied(db, db_url: str) -> None:
    fast, real = both_states(db, db_url, new_limit=2, limit=1)
    assert json.loads(fast)["remaining"] == 1
    assert fast == real


def test_due_reviews_come_first(db, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    answer_day(db, DAY1, {"alpha": 5, "alpha/follow-up": 4, "beta": 3})
    monkeypatch.setenv("KVDRILL_NOW", DAY2.isoformat())
    fast, real = both_states(db, db_url)
    assert json.loads(fast)["card"]["is_new"] is False
    assert fast == real


def test_a_card_missed_today_comes_back_as_a_repeat(db, db_url: str) -> None:
    answer_day(db, DAY1, {"alpha": 1}, new_limit=1)
    fast, real = both_states(db, db_url, new_limit=0)
    card = json.loads(fast)["card"]
    assert (card["key"], card["is_repeat"]) == ("alpha", True)
    assert fast == real


def test_a_follow_up_comes_after_its_parent(db, db_url: str) -> None:
    answer_day(db, DAY1, {"alpha": 4}, new_limit=1)
    with db.session() as session:
        profile = get_or_create_profile(session, "default", datetime.now())
        reviews.set_suspended(
            session_sql(session), profile.id, card_id(db, "alpha"), suspended=True
        )
        # The other pack's recall card would take its turn first (that pack is less seen).
        reviews.set_suspended(
            session_sql(session), profile.id, card_id(db, "between"), suspended=True
        )
    fast, real = both_states(db, db_url)
    card = json.loads(fast)["card"]
    assert (card["kind"], card["parent_title"]) == ("followup", "First recall card")
    assert fast == real


def test_a_note_suspended_and_buried_cards(db, db_url: str) -> None:
    with db.session() as session:
        profile = get_or_create_profile(session, "default", datetime.now())
        reviews.set_suspended(
            session_sql(session), profile.id, card_id(db, "alpha"), suspended=True
        )
        reviews.bury(session_sql(session), profile.id, card_id(db, "beta"), date(2026, 3, 10))
        reviews.set_note(
            session_sql(session), profile.id, card_id(db, "gamma"), "my own words", DAY1
        )
    fast, real = both_states(db, db_url)
    card = json.loads(fast)["card"]
    assert (card["key"], card["note"], card["kind"]) == ("gamma", "my own words", "choice")
    assert card["choices"] and "choices" in card["tags"]
    assert fast == real


def test_an_empty_session_has_no_card(db, db_url: str) -> None:
    fast, real = both_states(db, db_url, new_limit=0)
    assert json.loads(fast)["card"] is None
    assert fast == real


def test_unusual_cases_are_left_to_the_app(db, db_url: str, tmp_path) -> None:
    assert fast_card_state(request(f"sqlite:///{tmp_path / 'absent.db'}")) is None
    assert fast_card_state(request("sqlite://")) is None
    with db.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    assert fast_card_state(request(db_url)) is None


@pytest.mark.parametrize("option", [{"pack": "sm2-problems"}, {"tag": "choices"}])
def test_filtered_drills_go_through_the_store(db, db_url: str, option, capsys) -> None:
    with pytest.raises(NeedsSession):
        fast_card_state(request(db_url, **option))
    assert main(["first_card", json.dumps(request(db_url, **option))]) == 0
    expected = json.dumps(card_state(DrillSession.open(db, **option)), default=str)
    assert capsys.readouterr().out == expected


def test_a_lesson_drill_and_a_new_profile_go_through_the_store(db, db_url: str) -> None:
    with pytest.raises(NeedsSession):
        fast_card_state(request(db_url, lesson="5"))
    with pytest.raises(NeedsSession):
        fast_card_state({**request(db_url), "profile": "newcomer"})


def test_a_problem_first_card_goes_through_the_store(db, db_url: str, capsys) -> None:
    with db.session() as session:
        profile = get_or_create_profile(session, "default", datetime.now())
        due = Schedule(reviews=1, repetitions=1, due_day=date(2026, 3, 9))
        reviews.restore_schedule(session_sql(session), profile.id, card_id(db, "kv-drawn"), due)
    assert DrillSession.open(db).current.key == "kv-drawn"
    with pytest.raises(NeedsSession):
        fast_card_state(request(db_url))


def test_a_follow_up_of_a_retired_card_goes_through_the_store(db, db_url: str, capsys) -> None:
    with db.session() as session:
        session.get(Card, card_id(db, "alpha")).retired = True
    with pytest.raises(NeedsSession):
        fast_card_state(request(db_url))
    assert main(["first_card", json.dumps(request(db_url))]) == 0
    expected = json.dumps(card_state(DrillSession.open(db)), default=str)
    assert capsys.readouterr().out == expected


def test_the_helper_process_imports_nothing_heavy(db, db_url: str) -> None:
    probe = (
        "import json, sys\n"
        "from kvdrill.app.services.first_card import fast_card_state\n"
        "state = fast_card_state(json.loads(sys.argv[1]))\n"
        f"heavy = [name for name in {HEAVY!r} if name in sys.modules]\n"
        "print(json.dumps({'key': state['card']['key'], 'heavy': heavy}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(request(db_url))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout) == {"key": "alpha", "heavy": []}


def test_the_helper_process_prints_the_sessions_first_card(db, db_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "kvdrill.app.services.first_card", json.dumps(request(db_url))],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0
    expected = card_state(DrillSession.open(db))
    assert result.stdout == json.dumps(expected, default=str)


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///a.db",
        "sqlite:////tmp/a.db",
        "sqlite://",
        "sqlite:///",
        "sqlite:///:memory:",
        "sqlite+pysqlite:///x%20y.db",
        "sqlite:///~/k.db",
        "sqlite:///a.db?mode=ro",
        "sqlite:///file:a.db?uri=true",
        "sqlite://host/a.db",
        "SQLITE:///a.db",
        "postgresql://user@host/db",
    ],
)
def test_the_sqlite_file_is_read_from_a_url_as_sqlalchemy_reads_it(url: str) -> None:
    parsed = make_url(url)
    database = parsed.database or ""
    expected = None
    if parsed.get_backend_name() == "sqlite" and database not in ("", ":memory:"):
        expected = None if database.startswith("file:") else database
    assert sqlite_file(url) == (Path(expected).expanduser() if expected else None)
