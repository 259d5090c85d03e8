"""The shortcuts of the answer path give exactly what the plain code they replaced gave.

Between an answer and the next card every microsecond counts (scripts/bench_vs_anki.py), so
the session queue no longer copies itself for undo, an answer copies its schedule once, dates
are written by ``isoformat`` and JSON read by the decoder's scanner. Each test here runs the
plain version (kept below as the reference) and the fast one side by side on many inputs.
"""

from __future__ import annotations

import json
import random
import sqlite3
from dataclasses import fields, replace
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy.dialects import sqlite

from kvdrill.engine.packs.card_view import CardView
from kvdrill.engine.study.queue import REQUEUE_GAP, Plan, SessionQueue
from kvdrill.engine.study.rules import LEECH_LAPSES, answer_schedule
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.sm2 import PASSING_QUALITY, SESSION_REPEAT_BELOW, review
from kvdrill.store.card_rows import card_view
from kvdrill.store.models import CardState, ReviewLog
from kvdrill.store.queries_sql import stored_json
from kvdrill.store.reviews import LOG_COLUMNS
from kvdrill.store.sql import SqliteSql

# --- the session queue -------------------------------------------------------------------------


class ListQueue:
    """The session queue as it was: the whole running order copied for every undo snapshot."""

    def __init__(self, plan: Plan, gap: int = REQUEUE_GAP):
        self.pending = list(plan.cards)
        self.held = {k: list(v) for k, v in plan.follow_ups.items()}
        self.missed = set(plan.repeats)
        self.set_aside = 0
        self.gap = gap

    @property
    def current(self) -> int | None:
        return self.pending[0] if self.pending else None

    @property
    def remaining(self) -> int:
        return len(self.pending) + sum(len(held) for held in self.held.values())

    def answered(self, quality: int) -> None:
        card = self.pending.pop(0)
        self.pending[0:0] = self.held.pop(card, [])
        if quality < SESSION_REPEAT_BELOW:
            self.missed.add(card)
            self.pending.insert(min(self.gap, len(self.pending)), card)

    def drop_current(self, set_aside: bool = True) -> None:
        card = self.pending.pop(0)
        held = self.held.pop(card, [])
        if set_aside:
            self.set_aside += 1 + len(held)

    def snapshot(self) -> Any:
        held = {parent: list(ids) for parent, ids in self.held.items()}
        return list(self.pending), held, set(self.missed), self.set_aside

    def restore(self, snapshot: Any) -> None:
        pending, held, missed, self.set_aside = snapshot
        self.pending = list(pending)
        self.held = {parent: list(ids) for parent, ids in held.items()}
        self.missed = set(missed)


def random_plan(rng: random.Random) -> Plan:
    cards = list(range(1, rng.randint(1, 40)))
    held_ids = iter(range(100, 200))
    follow_ups = {
        parent: tuple(next(held_ids) for _ in range(rng.randint(1, 3)))
        for parent in cards
        if rng.random() < 0.2
    }
    repeats = frozenset(card for card in cards if rng.random() < 0.2)
    return Plan(tuple(cards), follow_ups, repeats)


def seen_state(queue: Any, cards: range) -> tuple:
    return (
        queue.current,
        queue.remaining,
        queue.set_aside,
        [card for card in cards if card in queue.missed]
        if isinstance(queue, ListQueue)
        else [card for card in cards if queue.is_repeat(card)],
    )


def test_the_session_queue_runs_as_the_copied_list_it_replaced() -> None:
    rng = random.Random(2026)
    everything = range(0, 200)
    for _ in range(300):
        plan = random_plan(rng)
        gap = rng.choice((1, 2, REQUEUE_GAP, 5))
        fast, plain = SessionQueue(plan, gap), ListQueue(plan, gap)
        undo: list[tuple[Any, Any]] = []
        for _ in range(rng.randint(0, 120)):
            assert seen_state(fast, everything) == seen_state(plain, everything)
            if fast.current is None:
                break
            action = rng.random()
            if action < 0.15 and undo:  # undo goes back in order, like the session's history
                fast_snapshot, plain_snapshot = undo.pop()
                fast.restore(fast_snapshot)
                plain.restore(plain_snapshot)
                continue
            undo.append((fast.snapshot(), plain.snapshot()))
            if action < 0.25:
                set_aside = rng.random() < 0.7
                fast.drop_current(set_aside)
                plain.drop_current(set_aside)
            else:
                quality = rng.randint(0, 5)
                fast.answered(quality)
                plain.answered(quality)
        assert seen_state(fast, everything) == seen_state(plain, everything)
        while plain.current is not None:  # the rest of the order, drained with good grades
            assert fast.current == plain.current
            fast.answered(5)
            plain.answered(5)
        assert (fast.current, fast.remaining) == (None, 0)


# --- the schedule after an answer --------------------------------------------------------------


def reference_answer(before: Schedule | None, quality: int, now: datetime, rollover: int):
    """The SM-2 answer rules as they were written, one copy of the schedule per rule."""
    previous = before if before is not None else Schedule()
    today = (now - timedelta(hours=rollover)).date()
    already_today = (
        previous.last_review_at is not None
        and (previous.last_review_at - timedelta(hours=rollover)).date() == today
        and previous.reviews > 0
    )
    after = replace(previous, reviews=previous.reviews + 1, last_review_at=now)
    if already_today:
        return after, False, False, False
    after = review(replace(after, fsrs=None), quality)
    after = replace(after, due_day=today + timedelta(days=after.interval_days))
    lapsed = quality < PASSING_QUALITY and previous.repetitions > 0
    became_leech = False
    if lapsed:
        after = replace(after, lapses=previous.lapses + 1)
        if after.lapses >= LEECH_LAPSES and not previous.leech:
            after = replace(after, leech=True)
            became_leech = True
    return after, True, lapsed, became_leech


SCHEDULE_FIELDS = [field.name for field in fields(Schedule)]


def random_schedule(rng: random.Random, now: datetime) -> Schedule | None:
    if rng.random() < 0.1:
        return None
    reviewed = now - timedelta(hours=rng.choice((1, 5, 20, 30, 24 * 40)))
    return Schedule(
        repetitions=rng.randint(0, 9),
        easiness_milli=rng.randint(1300, 3200),
        interval_days=rng.randint(0, 400),
        due_day=rng.choice((None, now.date() + timedelta(days=rng.randint(-30, 30)))),
        lapses=rng.randint(0, LEECH_LAPSES + 1),
        reviews=rng.randint(0, 30),
        last_review_at=rng.choice((None, reviewed)),
        suspended=rng.random() < 0.2,
        buried_until=rng.choice((None, now.date())),
        leech=rng.random() < 0.2,
        fsrs=rng.choice((None, {"stability": 3.5, "difficulty": 5.1})),
    )


def test_an_answer_moves_the_schedule_as_the_rule_by_rule_copies_did() -> None:
    rng = random.Random(7)
    for _ in range(5000):
        now = datetime(2026, 3, 10, rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
        before = random_schedule(rng, now)
        quality, rollover = rng.randint(0, 5), rng.randint(0, 6)
        answered = answer_schedule(before, quality, now, rollover)
        moved = (answered.moved_schedule, answered.lapsed, answered.became_leech)
        assert (answered.schedule, *moved) == reference_answer(before, quality, now, rollover)
        assert list(vars(answered.schedule)) == SCHEDULE_FIELDS  # every field, in order


@pytest.mark.parametrize("quality", [6, -1, True, 2.5])
def test_a_quality_outside_0_to_5_is_refused_as_before(quality: Any) -> None:
    with pytest.raises(ValueError, match="SM-2 quality must be an integer 0..5"):
        answer_schedule(None, quality, datetime(2026, 3, 10, 9), 4)


def test_the_answer_path_writes_every_column_of_the_review_log() -> None:
    columns = [column.name for column in ReviewLog.__table__.columns if column.name != "id"]
    assert sorted(LOG_COLUMNS) == sorted(columns)


# --- what the store writes and reads -----------------------------------------------------------


def random_moment(rng: random.Random) -> datetime:
    day = date(1, 1, 1) + timedelta(days=rng.randint(0, 3_652_058))
    return datetime.combine(day, datetime.min.time()) + timedelta(
        seconds=rng.randint(0, 86_399), microseconds=rng.choice((0, rng.randint(0, 999_999)))
    )


def test_dates_and_times_are_written_as_sqlalchemy_writes_them() -> None:
    dialect = sqlite.dialect()
    sql = SqliteSql(sqlite3.connect(":memory:"))
    table = ReviewLog.__table__
    sqlalchemy_moment = table.c.reviewed_at.type.dialect_impl(dialect).bind_processor(dialect)
    sqlalchemy_day = table.c.study_day.type.dialect_impl(dialect).bind_processor(dialect)
    rng = random.Random(3)
    for _ in range(20_000):
        moment = random_moment(rng)
        assert sql.time(moment) == sqlalchemy_moment(moment)
        assert sql.day(moment.date()) == sqlalchemy_day(moment.date())
    # A time with a zone is stored by its fields, as SQLAlchemy stores it.
    aware = datetime(2026, 3, 10, 9, 30, tzinfo=timezone(timedelta(hours=2)))
    assert sql.time(aware) == sqlalchemy_moment(aware) == "2026-03-10 09:30:00.000000"
    due_processor = CardState.__table__.c.due_day.type.dialect_impl(dialect)
    assert sql.day(date(33, 1, 2)) == due_processor.bind_processor(dialect)(date(33, 1, 2))


def test_a_logged_state_is_the_same_json_as_field_by_field() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        now = datetime(2000, 1, 1) + timedelta(
            seconds=rng.randint(0, 10**9), microseconds=rng.randint(0, 999_999)
        )
        schedule = random_schedule(rng, now) or Schedule()
        plain = {
            name: value.isoformat() if isinstance(value, date) else value
            for name, value in ((name, getattr(schedule, name)) for name in schedule.columns())
        }
        assert json.dumps(schedule.to_dict()) == json.dumps(plain)


@pytest.mark.parametrize(
    "text",
    ['[]', 'null', ' [1]', '[1] ', '{"a": [1, 2.5, "\\u00e9"]}', '"x"', "12", "[1,", "", "tru",
     "\ufeff[]", "[] x", "NaN"],
)  # fmt: skip
def test_a_stored_json_column_reads_as_json_loads_reads_it(text: str) -> None:
    try:
        expected: Any = json.loads(text)
    except json.JSONDecodeError as error:
        with pytest.raises(json.JSONDecodeError) as raised:
            stored_json(text)
        assert str(raised.value) == str(error)
        return
    assert json.dumps(stored_json(text)) == json.dumps(expected)


def view_row(kind: str, **extra: Any) -> dict[str, Any]:
    """A ``CARD_VIEW_SQL`` row as SQLite gives it."""
    return {
        "id": 7, "key": "kv", "kind": kind, "title": "KV bytes", "prompt": "How many?",
        "answer": "2 x layers", "key_numbers": '[{"text": "2 bytes", "claim": null}]',
        "tip": "", "choices": "[]", "explanation": "", "related": '[{"prompt": "Why 2?"}]',
        "problem": None, "tags": '["kv", "memory"]', "status": "priority", "pack_key": "p",
        "pack_title": "Pack", "pack_path": "p.md", "parent_title": None, "reviews": 3, "leech": 1, "note": None,
    } | extra  # fmt: skip


def test_a_card_view_is_built_whole_without_its_init() -> None:
    choices = '[{"text": "A", "correct": true}, {"text": "B", "correct": false}]'
    for row in (view_row("recall"), view_row("choice", choices=choices, reviews=None)):
        view = card_view(row, is_repeat=True, seed=42)
        assert list(vars(view)) == [field.name for field in fields(CardView)]
        assert view == CardView(**vars(view))
    assert view.choice_seed == 42 and view.is_new and view.priority and view.leech
