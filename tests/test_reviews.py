"""Recording answers, undo, suspend, bury, leeches and notes, on a real SQLite database."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from sqlalchemy import func, select

from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.store import reviews
from kvdrill.store.db import open_database, session_sql
from kvdrill.store.models import CardState, Note, ReviewLog
from kvdrill.store.profiles import get_or_create_profile

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server

MORNING = datetime(2026, 3, 10, 9, 0)


@pytest.fixture
def db(db_url: str, collection):
    database = open_database(db_url)
    with database.session() as session:
        collection.add_pack(session, cards=collection.recall_cards(3))
        get_or_create_profile(session, "default", datetime.now())
    yield database
    database.close()


def answer(db, quality: int, when: datetime = MORNING, card_id: int = 1, **extra):
    with db.session() as session:
        return reviews.answer_in_session(
            session,
            reviews.GivenAnswer(
                profile_id=1,
                card_id=card_id,
                quality=quality,
                seconds=4.5,
                graded_by="self",
                now=when,
                rollover_hour=4,
                **extra,
            ),
        )


def state_of(db, card_id: int = 1) -> dict | None:
    with db.session() as session:
        schedule = reviews.load_schedule(session_sql(session), 1, card_id)
        return schedule.to_dict() if schedule is not None else None


def log_count(db) -> int:
    with db.session() as session:
        return session.scalar(select(func.count()).select_from(ReviewLog))


def test_an_answer_writes_the_schedule_and_a_log_row_together(db) -> None:
    recorded = answer(db, 4)
    assert recorded.moved_schedule and recorded.due_day == date(2026, 3, 11)
    assert state_of(db) == {
        "repetitions": 1,
        "easiness_milli": 2500,
        "interval_days": 1,
        "due_day": "2026-03-11",
        "lapses": 0,
        "reviews": 1,
        "last_review_at": "2026-03-10T09:00:00",
        "suspended": False,
        "buried_until": None,
        "leech": False,
        "fsrs": None,
    }
    with db.session() as session:
        log = session.get(ReviewLog, recorded.log_id)
        assert (log.quality, log.seconds, log.graded_by, log.study_day) == (
            4,
            4.5,
            "self",
            date(2026, 3, 10),
        )
        assert log.prev_state is None  # the card had no state: it was new


def test_only_the_first_answer_of_a_study_day_moves_the_schedule(db) -> None:
    answer(db, 1)  # 09:00: missed, due tomorrow
    again = answer(db, 5, MORNING + timedelta(hours=18))  # 03:00 next morning: same study day
    assert not again.moved_schedule
    state = state_of(db)
    assert (state["repetitions"], state["interval_days"], state["due_day"]) == (
        0,
        1,
        "2026-03-11",
    )
    assert state["reviews"] == 2
    next_day = answer(db, 4, datetime(2026, 3, 11, 8, 0))
    assert next_day.moved_schedule
    assert state_of(db)["due_day"] == "2026-03-12"


def test_undo_restores_the_state_and_removes_the_log_row_exactly(db) -> None:
    answer(db, 4)
    before = state_of(db)
    rows_before = log_count(db)
    recorded = answer(db, 1, datetime(2026, 3, 11, 9, 0))
    assert state_of(db) != before
    with db.session() as session:
        assert reviews.undo_answer(session_sql(session), recorded.log_id)
    assert state_of(db) == before
    assert log_count(db) == rows_before


def test_undoing_a_first_answer_makes_the_card_new_again(db) -> None:
    recorded = answer(db, 5)
    with db.session() as session:
        assert reviews.undo_answer(session_sql(session), recorded.log_id)
    assert state_of(db) is None and log_count(db) == 0


def test_undo_is_refused_once_a_later_answer_exists(db) -> None:
    first = answer(db, 4)
    answer(db, 4, datetime(2026, 3, 11, 9, 0))
    with db.session() as session:
        assert not reviews.undo_answer(session_sql(session), first.log_id)
    assert log_count(db) == 2


def test_a_lapse_is_a_failure_of_a_learned_card_and_eight_make_a_leech(db) -> None:
    day = datetime(2026, 3, 1, 9, 0)
    assert not answer(db, 1, day).lapsed  # a new card failed: no lapse
    leech_days = []
    for n in range(1, 9):
        day += timedelta(days=1)
        answer(db, 4, day)  # learned again
        day += timedelta(days=1)
        recorded = answer(db, 2, day)
        assert recorded.lapsed
        if recorded.became_leech:
            leech_days.append(n)
    state = state_of(db)
    assert (state["lapses"], state["leech"], leech_days) == (8, True, [8])


def test_a_failure_on_the_same_day_is_no_lapse(db) -> None:
    answer(db, 4)
    assert not answer(db, 1, MORNING + timedelta(hours=1)).lapsed
    assert state_of(db)["lapses"] == 0


def test_suspend_unsuspend_and_bury(db) -> None:
    with db.session() as session:
        reviews.set_suspended(session_sql(session), 1, 2, True)
        reviews.bury(session_sql(session), 1, 3, date(2026, 3, 10))
    assert state_of(db, 2)["suspended"] is True
    assert state_of(db, 3)["buried_until"] == "2026-03-11"
    with db.session() as session:
        reviews.set_suspended(session_sql(session), 1, 2, False)
    assert state_of(db, 2)["suspended"] is False
    assert state_of(db, 2)["reviews"] == 0  # still a new card


def test_notes_are_saved_replaced_and_deleted(db) -> None:
    with db.session() as session:
        reviews.set_note(session_sql(session), 1, 1, "K and V: times two", MORNING)
    with db.session() as session:
        assert session.get(Note, (1, 1)).text == "K and V: times two"
        reviews.set_note(session_sql(session), 1, 1, "   ", MORNING)
    with db.session() as session:
        assert session.get(Note, (1, 1)) is None


def test_a_problem_answer_logs_template_seed_params_expected_and_diagnosis(db) -> None:
    variant = Variant(
        template_id="sm2-test/gen",
        seed=42,
        prompt="How many bytes?",
        params={"layers": "32"},
        expected_value=131072.0,
        unit="B",
    )
    verdict = Verdict(
        correct=False,
        quality=1,
        headline="Not quite",
        expected_text="128 KiB",
        worked_solution="...",
        diagnosis="You left out the factor 2 for K and V.",
        mistake="kv_factor_2",
    )
    recorded = answer(db, 1, typed_answer="64 KiB", variant=variant, verdict=verdict)
    with db.session() as session:
        log = session.get(ReviewLog, recorded.log_id)
        assert (log.template_id, log.seed, log.params, log.expected, log.mistake) == (
            "sm2-test/gen",
            42,
            {"layers": "32"},
            "128 KiB",
            "kv_factor_2",
        )
        assert log.typed_answer == "64 KiB"
        assert log.diagnosis.startswith("You left out")


def test_a_failed_write_leaves_neither_state_nor_log(db) -> None:
    with pytest.raises(ValueError), db.session() as session:
        reviews.answer_in_session(
            session,
            reviews.GivenAnswer(
                profile_id=1,
                card_id=1,
                quality=9,
                seconds=1,
                graded_by="self",
                now=MORNING,
                rollover_hour=4,
            ),
        )
    assert state_of(db) is None and log_count(db) == 0
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(CardState)) == 0


def test_a_first_answer_stores_sql_null_as_its_previous_state(db) -> None:
    answer(db, 4)
    with db.session() as session:
        raw = session.connection().exec_driver_sql("SELECT prev_state FROM review_log").scalar()
    assert raw is None
