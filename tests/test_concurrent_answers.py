"""Two machines on one profile: answers are neither lost nor counted twice, on SQLite and on a
real PostgreSQL server (two engines, each with its own connections, stand for two machines)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime

import pytest
from sqlalchemy import func, select, text
from stats_helpers import build_report

from kvdrill.app.services.drill import DrillSession
from kvdrill.store import reviews
from kvdrill.store.db import Database, open_database, session_sql
from kvdrill.store.models import CardState, ReviewLog, TopicDay
from kvdrill.store.profiles import get_or_create_profile

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server

MORNING = datetime(2026, 3, 10, 9, 0)
WAIT_S = 20  # bound on every wait for the other machine


@pytest.fixture
def machines(db_url: str, collection):
    """Two databases opened on one URL, with a pack of eight cards tagged alike."""
    first = open_database(db_url)
    with first.session() as session:
        collection.add_pack(session, cards=collection.recall_cards(8, tags=["kv", "weights"]))
        get_or_create_profile(session, "default", MORNING)
    second = open_database(db_url)
    yield first, second
    first.close()
    second.close()


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.02)


def answer(session, quality: int, card_id: int = 1) -> reviews.RecordedAnswer:
    from kvdrill.store.db import begin_write

    begin_write(session)
    return reviews.answer_in_session(
        session,
        reviews.GivenAnswer(
            profile_id=1,
            card_id=card_id,
            quality=quality,
            seconds=3.0,
            graded_by="self",
            now=MORNING,
            rollover_hour=4,
        ),
    )


def is_waiting_for_a_lock(database: Database) -> bool:
    """PostgreSQL: some other connection is blocked on a lock right now."""
    with database.engine.connect() as connection:
        return bool(
            connection.execute(
                text("SELECT count(*) FROM pg_locks WHERE NOT granted AND pid <> pg_backend_pid()")
            ).scalar()
        )


def log_rows(database: Database) -> list[tuple[int, bool]]:
    with database.session() as session:
        return session.execute(
            select(ReviewLog.quality, ReviewLog.moved_schedule).order_by(ReviewLog.id)
        ).all()


def test_the_second_machine_waits_and_then_sees_the_first_answer(machines, backend: str) -> None:
    """Both machines answer a new card at once: one moves the schedule, the other is a repeat."""
    first, second = machines
    held = first.sessionmaker()
    answer(held, 4)  # written, holding the card's lock, not committed yet
    results: list[object] = []

    def second_machine() -> None:
        try:
            with second.session() as session:
                results.append(answer(session, 1))
        except BaseException as exc:  # noqa: BLE001 - reported by the asserts below
            results.append(exc)

    thread = threading.Thread(target=second_machine)
    thread.start()
    if backend == "postgresql":
        wait_until(lambda: is_waiting_for_a_lock(first), "the second machine to wait")
    else:
        time.sleep(0.3)  # SQLite: it waits on the write lock (busy timeout), if it got there
    assert thread.is_alive() and not results  # blocked behind the first answer
    held.commit()
    held.close()
    thread.join(WAIT_S)
    assert not thread.is_alive()
    (second_answer,) = results
    assert isinstance(second_answer, reviews.RecordedAnswer)
    assert not second_answer.moved_schedule  # it read the first answer's state
    assert log_rows(first) == [(4, True), (1, False)]
    with first.session() as session:
        state = session.get(CardState, (1, 1))
        assert (state.reviews, state.repetitions, state.lapses) == (2, 1, 0)
        kv_today = session.get(TopicDay, (1, "tag", "kv", MORNING.date()))
        assert (kv_today.reviews, kv_today.firsts, kv_today.passed) == (2, 1, 1)


def test_undo_on_one_machine_and_an_answer_on_the_other_do_not_both_win(machines) -> None:
    first, second = machines
    with first.session() as session:
        log_id = answer(session, 4).log_id
    with second.session() as session:
        answer(session, 2)  # the other machine answered again since
    with first.session() as session:
        assert (
            reviews.undo_answer(session_sql(session), log_id) is False
        )  # refused: it would lose that answer
    assert log_rows(first) == [(4, True), (2, False)]


def test_many_answers_from_two_machines_at_once_are_all_counted_once(machines) -> None:
    """Two drill sessions, one per machine, race through the same eight cards twice over."""
    first, second = machines
    errors: list[BaseException] = []

    def drill(database: Database, grades: list[int]) -> None:
        try:
            for quality in grades:
                session = DrillSession.open(database, now=MORNING, pack="sm2-test")
                if session.current is None:
                    return
                session.grade(quality, 2.0)
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [
        threading.Thread(target=drill, args=(first, [4, 5] * 6)),
        threading.Thread(target=drill, args=(second, [3, 4] * 6)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S * 3)
    assert errors == []
    with first.session() as session:
        logged = session.scalar(select(func.count()).select_from(ReviewLog))
        moved = session.scalar(select(func.count()).where(ReviewLog.moved_schedule.is_(True)))
        states = session.execute(select(CardState.card_id, CardState.reviews)).all()
        # Every card's review count is its log rows, and each card moved once that day.
        per_card = dict(
            session.execute(
                select(ReviewLog.card_id, func.count()).group_by(ReviewLog.card_id)
            ).all()
        )
        assert len(per_card) == 8 and dict(states) == per_card
        assert moved == len(per_card)
        assert sum(per_card.values()) == logged
        profile = get_or_create_profile(session, "default", MORNING)
        by_rollup = build_report(session, profile, MORNING.date(), 30, use_rollups=True)
        by_join = build_report(session, profile, MORNING.date(), 30, use_rollups=False)
    assert by_rollup == by_join
    assert by_rollup.total_reviews == logged


def test_two_machines_starting_at_once_import_the_bundled_packs_once(db_url: str) -> None:
    from kvdrill.app.services.importing import import_bundled
    from kvdrill.store.models import Pack

    databases = [open_database(db_url) for _ in range(2)]
    plans: list[object] = []

    def start(database: Database) -> None:
        try:
            plans.append(import_bundled(database, MORNING))
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            plans.append(exc)

    threads = [threading.Thread(target=start, args=(database,)) for database in databases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S * 3)
    assert not any(isinstance(plan, BaseException) for plan in plans), plans
    assert sum(plan is not None for plan in plans) == 1  # one imported, the other found it done
    with databases[0].session() as session:
        keys = session.scalars(select(Pack.key).where(Pack.bundled)).all()
    assert len(keys) == len(set(keys)) > 0
    for database in databases:
        database.close()
