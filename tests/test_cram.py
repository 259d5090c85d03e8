"""Studying outside the schedule: ``drill --cram`` asks every card the filters leave and logs
the answers as practice with every schedule as it was (and as a scheduler switch rebuilds
it); ``--ahead N`` reviews the cards due in the next N days, moving them as early reviews."""

from __future__ import annotations

import io
import sys
from datetime import datetime, timedelta

import pytest
from drill_helpers import keys_until_done
from sqlalchemy import func, select

from kvdrill.app.cli import main
from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.settings import change_settings
from kvdrill.store.db import open_database
from kvdrill.store.models import CardState, ReviewLog

DAY1 = datetime(2026, 3, 10, 9, 0)
DAY2 = DAY1 + timedelta(days=1)


@pytest.fixture
def db(db_url: str, collection):
    database = open_database(db_url)
    collection.import_fixture_pack(database)
    keys_until_done(DrillSession.open(database, now=DAY1, pack="sm2-fixture"), {"beta": [1, 4]})
    yield database
    database.close()


def schedules(db) -> dict[int, dict]:
    with db.session() as session:
        return {
            row.card_id: {c.name: getattr(row, c.name) for c in CardState.__table__.columns}
            for row in session.scalars(select(CardState))
        }


def log_count(db) -> int:
    with db.session() as session:
        return session.scalar(select(func.count()).select_from(ReviewLog))


def test_a_cram_session_asks_every_card_and_leaves_every_schedule_as_it_was(db) -> None:
    before, logged = schedules(db), log_count(db)
    assert DrillSession.open(db, now=DAY1 + timedelta(hours=2), pack="sm2-fixture").current is None
    cram = DrillSession.open(db, now=DAY1 + timedelta(hours=2), pack="sm2-fixture", cram=True)
    shown = keys_until_done(cram, {"alpha": [1, 4], "delta": [0, 5]})
    assert set(shown) >= {"alpha", "beta", "gamma", "delta"}  # seen cards, not due: asked
    assert shown.count("alpha") == 2  # a miss still comes back within the session
    assert schedules(db) == before
    assert log_count(db) == logged + len(shown)
    with db.session() as session:
        practice = session.scalars(select(ReviewLog.practice).order_by(ReviewLog.id)).all()
    assert practice[-len(shown) :] == [True] * len(shown) and not any(practice[: -len(shown)])
    # Today's limits and repeats ignore practice; a switch to FSRS and back rebuilds the same.
    assert DrillSession.open(db, now=DAY1 + timedelta(hours=3), pack="sm2-fixture").current is None
    change_settings(db, "default", DAY1, scheduler="fsrs")
    change_settings(db, "default", DAY1, scheduler="sm2")
    assert schedules(db) == before


def test_cram_narrows_by_flag_and_runs_in_plain_mode(db, db_url, capsys, monkeypatch) -> None:
    monkeypatch.setenv("KVDRILL_NOW", DAY2.isoformat())
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    assert main(["--db", db_url, "flag", "sm2-fixture/delta", "green"]) == 0
    before = schedules(db)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ngood\n"))
    assert main(["--db", db_url, "drill", "--plain", "--cram", "--flag", "green"]) == 0
    out = capsys.readouterr().out
    assert "Third recall card" in out and "First recall card" not in out
    assert schedules(db) == before
    code = main(["--db", db_url, "drill", "--plain", "--cram", "--ahead", "3"])
    assert code == 1
    assert capsys.readouterr().err == (
        "kvdrill: --cram and --ahead do not go together: cram moves no schedule\n"
    )


def test_ahead_reviews_cards_due_in_the_next_days_and_moves_them(db) -> None:
    keys_until_done(DrillSession.open(db, now=DAY2, pack="sm2-fixture"), {})  # due in days now
    day3 = DAY1 + timedelta(days=2)
    before = schedules(db)
    soon = {
        card
        for card, state in before.items()
        if state["due_day"] <= day3.date() + timedelta(days=7)
    }
    due_today = DrillSession.open(db, now=day3, pack="sm2-fixture").remaining
    ahead = DrillSession.open(db, now=day3, pack="sm2-fixture", ahead=7)
    assert ahead.remaining == len(soon) > due_today  # the week's reviews, today's among them
    keys_until_done(ahead, {})
    after = schedules(db)
    moved = {card: (before[card]["due_day"], after[card]["due_day"]) for card in soon}
    assert all(new > old for old, new in moved.values()), moved
    assert all(after[card]["last_review_at"].date() == day3.date() for card in soon)
