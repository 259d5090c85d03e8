"""The answer path (store/reviews.py ``commit_answer``: three statements of SQL text, on SQLite
through ``sqlite3`` on a kept connection) stores exactly what SQLAlchemy's own models store for
the same answer (the oracle below writes it through the ORM), for every kind of answer, so
stats, undo and the FSRS replay read the rows as the models define them."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from kvdrill.engine.errors import UserError
from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.rules import answer_schedule
from kvdrill.engine.study.schedule import Schedule
from kvdrill.store import reviews
from kvdrill.store.db import open_database, session_sql
from kvdrill.store.models import CardState, ReviewLog
from kvdrill.store.profiles import get_or_create_profile

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server

MORNING = datetime(2026, 3, 10, 9, 0, 12, 345678)
LOCKED = "locked"
FAST, REFERENCE = 1, 2  # the two profiles: answered through commit_answer / the ORM oracle


@pytest.fixture
def db(db_url: str, collection):
    database = open_database(db_url)
    with database.session() as session:
        collection.add_pack(session, cards=collection.recall_cards(4))
        get_or_create_profile(session, "fast", MORNING)
        get_or_create_profile(session, "reference", MORNING)
    yield database
    database.close()


def oracle_answer(session: Session, given: reviews.GivenAnswer) -> reviews.RecordedAnswer:
    """The answer written through SQLAlchemy's models: the rule of engine/study/rules.py, its
    schedule set on the ORM's ``CardState``, a ``ReviewLog`` object added."""
    state = session.get(CardState, (given.profile_id, given.card_id))
    before = Schedule.from_row(state)
    answered = answer_schedule(
        before, given.quality, given.now, given.rollover_hour, given.scheduler,
        given.desired_retention,
    )  # fmt: skip
    if state is None:
        state = CardState(profile_id=given.profile_id, card_id=given.card_id)
        session.add(state)
    for name, value in answered.schedule.columns().items():
        setattr(state, name, value)
    variant, verdict = given.variant, given.verdict
    log = ReviewLog(
        profile_id=given.profile_id,
        card_id=given.card_id,
        reviewed_at=given.now,
        study_day=study_day(given.now, given.rollover_hour),
        quality=given.quality,
        seconds=float(given.seconds),
        reveal_seconds=given.reveal_seconds,
        grade_seconds=given.grade_seconds,
        graded_by=given.graded_by,
        moved_schedule=answered.moved_schedule,
        typed_answer=given.typed_answer,
        template_id=variant.template_id if variant else None,
        seed=variant.seed if variant else None,
        params=dict(variant.params) if variant else None,
        expected=verdict.expected_text if verdict else None,
        diagnosis=verdict.diagnosis if verdict else None,
        mistake=verdict.mistake if verdict else None,
        choice_seed=given.choice_seed,
        choice_order=given.choice_order,
        prev_state=before.to_dict() if before is not None else None,
    )
    session.add(log)
    session.flush()
    return reviews.RecordedAnswer(
        log.id, answered.moved_schedule, answered.lapsed, answered.became_leech,
        answered.schedule.due_day, answered.schedule,
    )  # fmt: skip


def both(db, **answer: Any) -> tuple[reviews.RecordedAnswer, reviews.RecordedAnswer]:
    """The same answer by both profiles: through the answer path, and through the oracle."""
    fast = reviews.commit_answer(db, reviews.GivenAnswer(profile_id=FAST, **answer), LOCKED)
    with db.session() as session:
        reference = oracle_answer(session, reviews.GivenAnswer(profile_id=REFERENCE, **answer))
    return fast, reference


def stored(db, profile_id: int) -> tuple[list[tuple], list[tuple]]:
    """Every review-log and card-state column of a profile as the database holds them."""
    with db.engine.connect() as connection:
        log = connection.execute(
            text("SELECT * FROM review_log WHERE profile_id = :p ORDER BY id"), {"p": profile_id}
        ).mappings()
        logs = [tuple(v for k, v in row.items() if k not in ("id", "profile_id")) for row in log]
        states = connection.execute(
            text("SELECT * FROM card_states WHERE profile_id = :p ORDER BY card_id"),
            {"p": profile_id},
        ).mappings()
        return logs, [tuple(v for k, v in row.items() if k != "profile_id") for row in states]


def test_every_kind_of_answer_is_stored_as_the_models_store_it(db) -> None:
    base = {"seconds": 4.5, "graded_by": "self", "rollover_hour": 4}
    # A new card, its same-day repeat, and a timed self-grade the next day.
    both(db, card_id=1, quality=4, now=MORNING, **base)
    both(db, card_id=1, quality=1, now=MORNING + timedelta(minutes=3), **base)
    fast, reference = both(
        db,
        card_id=1,
        quality=5,
        now=MORNING + timedelta(days=1),
        reveal_seconds=2.25,
        grade_seconds=0.75,
        **base,
    )
    assert fast.moved_schedule and fast.due_day == reference.due_day
    # Built without its __init__: every field there, the same as the oracle's but for the id.
    assert vars(fast) == vars(reference) | {"log_id": fast.log_id}
    # A problem with its variant and verdict, and a multiple-choice answer with its shuffle.
    variant = Variant("pack/kv", 7, "How many bytes?", {"layers": "32"}, 128.0, "KiB")
    verdict = Verdict(
        correct=False,
        quality=2,
        headline="Not quite: expected 128 KiB",
        expected_text="128 KiB",
        worked_solution="2 x 32 x ...",
        diagnosis="You left out the factor 2.",
        mistake="kv_factor_2",
    )
    both(
        db,
        card_id=2,
        quality=2,
        now=MORNING,
        seconds=9.0,
        graded_by="auto",
        rollover_hour=4,
        typed_answer="64 KiB",
        variant=variant,
        verdict=verdict,
    )
    both(
        db,
        card_id=3,
        quality=4,
        now=MORNING,
        seconds=3.0,
        graded_by="auto",
        rollover_hour=4,
        typed_answer="AC",
        choice_seed=123456789,
        choice_order="CADB",
    )
    # Lapses day after day until the card is a leech, under FSRS.
    became_leech = []
    for day in range(17):
        quality = 4 if day % 2 == 0 else 1
        fast, reference = both(
            db,
            card_id=4,
            quality=quality,
            now=MORNING + timedelta(days=day),
            scheduler="fsrs",
            desired_retention=0.85,
            **base,
        )
        assert (fast.lapsed, fast.schedule) == (reference.lapsed, reference.schedule)
        became_leech.append(fast.became_leech)
    assert became_leech.count(True) == 1
    assert stored(db, FAST) == stored(db, REFERENCE)
    with db.engine.connect() as connection:
        # A new card's first answer has no state to log, a recall card no variant: SQL NULL,
        # not JSON null, on both.
        nulls = connection.execute(
            text(
                "SELECT profile_id, COUNT(*) FROM review_log "
                "WHERE prev_state IS NULL AND params IS NULL GROUP BY profile_id"
            )
        ).all()
    assert sorted(nulls) == [(FAST, 3), (REFERENCE, 3)]


def test_a_suspended_and_buried_card_is_stored_as_the_models_store_it(db) -> None:
    # Every column of the state, and of the state logged before an answer, set at least once.
    with db.session() as session:
        for profile in (FAST, REFERENCE):
            reviews.set_suspended(session_sql(session), profile, 2, True)
            reviews.bury(session_sql(session), profile, 2, MORNING.date())
    base = {"card_id": 2, "seconds": 2.0, "graded_by": "self", "rollover_hour": 4}
    both(db, quality=3, now=MORNING, reveal_seconds=1.5, **base)
    both(db, quality=5, now=MORNING.replace(microsecond=0) + timedelta(days=3), **base)
    logs, states = stored(db, FAST)
    assert len(logs) == 2 and states[0][-1] is None  # fsrs: NULL under SM-2
    assert (logs, states) == stored(db, REFERENCE)


def test_an_answer_is_undone_exactly(db) -> None:
    base = {"card_id": 1, "seconds": 1.0, "graded_by": "self", "rollover_hour": 4}
    both(db, quality=4, now=MORNING, **base)
    before = stored(db, FAST)
    fast, reference = both(db, quality=1, now=MORNING + timedelta(days=2), **base)
    with db.session() as session:
        assert reviews.undo_answer(session_sql(session), fast.log_id)
        assert reviews.undo_answer(session_sql(session), reference.log_id)
    assert stored(db, FAST) == before == stored(db, REFERENCE)


def test_a_refused_answer_leaves_nothing_and_the_next_one_is_kept(db) -> None:
    with pytest.raises(ValueError):
        reviews.commit_answer(
            db, reviews.GivenAnswer(profile_id=FAST, card_id=1, quality=9, seconds=1,
            graded_by="self", now=MORNING, rollover_hour=4,), LOCKED
        )  # fmt: skip
    with pytest.raises(UserError if db.engine.dialect.name == "sqlite" else Exception):
        reviews.commit_answer(
            db, reviews.GivenAnswer(profile_id=FAST, card_id=999, quality=4, seconds=1,
            graded_by="self", now=MORNING, rollover_hour=4,), LOCKED
        )  # fmt: skip
    assert stored(db, FAST) == ([], [])
    reviews.commit_answer(
        db, reviews.GivenAnswer(profile_id=FAST, card_id=1, quality=4, seconds=1,
        graded_by="self", now=MORNING, rollover_hour=4,), LOCKED
    )  # fmt: skip
    logs, states = stored(db, FAST)
    assert len(logs) == 1 and len(states) == 1
