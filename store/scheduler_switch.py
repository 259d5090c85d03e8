"""Rebuilding a profile's schedules from its review log (a scheduler switch), and reading that
log per card (fitting FSRS).

Like every store module it works inside the caller's session and never commits: the switch and
the setting change are one transaction, so a profile is never left half on each scheduler.
"""

from __future__ import annotations

from datetime import datetime
from itertools import groupby

from sqlalchemy import select
from sqlalchemy.orm import Session

from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.rules import replay
from kvdrill.engine.study.schedule import Schedule
from kvdrill.store.db import session_sql
from kvdrill.store.models import CardState, ReviewLog
from kvdrill.store.reviews import restore_schedule


def replay_profile(
    session: Session,
    profile_id: int,
    rollover_hour: int,
    scheduler: str,
    desired_retention: float,
    fsrs_parameters: tuple[float, ...] | None = None,
) -> int:
    """Rebuild every card schedule of the profile under ``scheduler`` by replaying its review
    log in order (engine/study/rules.py ``replay``); each log row's ``prev_state`` is rebuilt
    too, so undo stays exact. Returns how many cards were rebuilt."""
    current = {
        state.card_id: Schedule.from_row(state)
        for state in session.scalars(select(CardState).where(CardState.profile_id == profile_id))
    }
    logs = session.scalars(
        select(ReviewLog)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.practice.is_(False))
        .order_by(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.id)
    )
    sql = session_sql(session)
    rebuilt = 0
    answered: set[int] = set()
    for card_id, grouped in groupby(logs, key=lambda row: row.card_id):
        rows = list(grouped)
        answered.add(card_id)
        states = replay(
            current.get(card_id),
            [(row.quality, row.reviewed_at) for row in rows],
            rollover_hour,
            scheduler,
            desired_retention,
            fsrs_parameters,
        )
        for row, before in zip(rows, states, strict=False):
            row.prev_state = _with_flags_of(before, row.prev_state)
        restore_schedule(sql, profile_id, card_id, states[-1])
        rebuilt += 1
    for card_id, schedule in current.items():
        if card_id not in answered and schedule is not None:
            restore_schedule(sql, profile_id, card_id, replay(schedule, [], rollover_hour)[-1])
    session.flush()
    session.expire_all()  # the states the session read are rewritten
    return rebuilt


def _with_flags_of(before: Schedule | None, logged: dict | None) -> dict | None:
    """The replayed ``before`` with the suspended/buried flags the log row recorded; a first
    answer's logged state (a new card's, the same under either scheduler) is kept."""
    if before is None or logged is None:
        return logged if before is None else dict(before.to_dict())
    flags = {name: logged[name] for name in ("suspended", "buried_until") if name in logged}
    return dict(before.to_dict()) | flags


def answer_histories(session: Session, profile_id: int) -> list[list[tuple[Grade, datetime]]]:
    """Per card the profile answered, its answers (quality, time), oldest first."""
    rows = session.execute(
        select(ReviewLog.card_id, ReviewLog.quality, ReviewLog.reviewed_at)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.practice.is_(False))
        .order_by(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.id)
    )
    return [
        [(quality, moment) for _, quality, moment in answers]
        for _, answers in groupby(rows, key=lambda row: row.card_id)
    ]
