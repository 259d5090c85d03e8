"""Card schedules and the review log, stored: answers, undo, suspend, bury, notes.

Every function works inside the caller's session and never commits: the caller wraps one
action in one transaction (the drill session does, one per answer), so a card's state and its
log row are written together or not at all.

What an answer does to a schedule (first answer of the day, lapses, leeches) is decided in
engine/study/rules.py; this module stores the result. ``prev_state`` in a log row is the
``Schedule`` before the answer as JSON (None: the card had no state row), so undo puts back
exactly what was there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session

from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.rules import answer_schedule
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.settings import DEFAULT_DESIRED_RETENTION
from kvdrill.store.db import lock_card
from kvdrill.store.models import Card, CardState, Note, Pack, ReviewLog

# Statements of the answer path, built once: building one costs more than running it.
_STATES = CardState.__table__
_STATE_KEY = (_STATES.c.profile_id == bindparam("key_profile")) & (
    _STATES.c.card_id == bindparam("key_card")
)
_STATE_BY_KEY = select(_STATES).where(_STATE_KEY)
_UPDATE_STATE = _STATES.update().where(_STATE_KEY)
_LOG_INSERT = ReviewLog.__table__.insert()


@dataclass(frozen=True)
class RecordedAnswer:
    """What recording one answer did."""

    log_id: int
    moved_schedule: bool
    lapsed: bool
    became_leech: bool
    due_day: date | None


def load_schedule(session: Session, profile_id: int, card_id: int) -> Schedule | None:
    """The card's schedule for the profile; None when the card has no state row (it is new)."""
    return Schedule.from_row(session.get(CardState, (profile_id, card_id)))


def restore_schedule(
    session: Session, profile_id: int, card_id: int, schedule: Schedule | None
) -> None:
    """Put a card's state back to ``schedule``; None deletes the row."""
    lock_card(session, profile_id, card_id)
    state = session.get(CardState, (profile_id, card_id))
    if schedule is None:
        if state is not None:
            session.delete(state)
        return
    if state is None:
        state = CardState(profile_id=profile_id, card_id=card_id)
        session.add(state)
    for name, value in schedule.columns().items():
        setattr(state, name, value)


def ensure_state(session: Session, profile_id: int, card_id: int) -> CardState:
    """The card's state row, created (as a new card's) if missing."""
    lock_card(session, profile_id, card_id)
    state = session.get(CardState, (profile_id, card_id))
    if state is None:
        state = CardState(profile_id=profile_id, card_id=card_id, **Schedule().columns())
        session.add(state)
    return state


def record_answer(
    session: Session,
    *,
    profile_id: int,
    card_id: int,
    quality: int,
    seconds: float,
    graded_by: str,
    now: datetime,
    rollover_hour: int,
    scheduler: str = "sm2",
    desired_retention: float = DEFAULT_DESIRED_RETENTION,
    typed_answer: str | None = None,
    variant: Variant | None = None,
    verdict: Verdict | None = None,
    reveal_seconds: float | None = None,
    grade_seconds: float | None = None,
    choice_seed: int | None = None,
    choice_order: str | None = None,
) -> RecordedAnswer:
    """Apply one answer to the card's schedule (engine/study/rules.py) and log it, with what
    undo needs.

    Written with Core statements rather than the ORM unit of work: this is the hot path
    between an answer and the next card (scripts/bench_answer.py).
    """
    if graded_by not in ("self", "auto"):
        raise ValueError(f"graded_by must be 'self' or 'auto', got {graded_by!r}")
    lock_card(session, profile_id, card_id)
    connection = session.connection()
    key = {"key_profile": profile_id, "key_card": card_id}
    before = Schedule.from_row(connection.execute(_STATE_BY_KEY, key).first())
    answered = answer_schedule(before, quality, now, rollover_hour, scheduler, desired_retention)
    columns = answered.schedule.columns()
    if before is None:
        connection.execute(
            _STATES.insert(), {"profile_id": profile_id, "card_id": card_id} | columns
        )
    else:
        connection.execute(_UPDATE_STATE, key | columns)

    log: dict[str, Any] = {
        "profile_id": profile_id,
        "card_id": card_id,
        "reviewed_at": now,
        "study_day": study_day(now, rollover_hour),
        "quality": quality,
        "seconds": float(seconds),
        "reveal_seconds": reveal_seconds,
        "grade_seconds": grade_seconds,
        "graded_by": graded_by,
        "moved_schedule": answered.moved_schedule,
        "typed_answer": typed_answer,  # for multiple choice: the letters as shown
        "choice_seed": choice_seed,
        "choice_order": choice_order,
    }
    if before is not None:  # left out, the column is SQL NULL rather than JSON null
        log["prev_state"] = before.to_dict()
    if variant is not None:
        log |= {
            "template_id": variant.template_id,
            "seed": variant.seed,
            "params": dict(variant.params),
        }
    if verdict is not None:
        log |= {
            "expected": verdict.expected_text,
            "diagnosis": verdict.diagnosis,
            "mistake": verdict.mistake,
        }
    result = connection.execute(_LOG_INSERT, log)
    # The ORM may hold this card's state from earlier in the session: let it reload.
    session.expire_all()
    return RecordedAnswer(
        log_id=result.inserted_primary_key[0],
        moved_schedule=answered.moved_schedule,
        lapsed=answered.lapsed,
        became_leech=answered.became_leech,
        due_day=answered.schedule.due_day,
    )


def undo_answer(session: Session, log_id: int) -> bool:
    """Restore the card state from before answer ``log_id`` and delete its log row.

    Refused (False) when the row is gone or a later answer to the same card exists (another
    process answered it since): restoring then would throw that answer away.
    """
    log = session.get(ReviewLog, log_id)
    if log is None:
        return False
    lock_card(session, log.profile_id, log.card_id)
    # Another machine may have undone it while this one waited for the lock.
    if session.scalar(select(ReviewLog.id).where(ReviewLog.id == log_id)) is None:
        return False
    later = session.scalar(
        select(ReviewLog.id)
        .where(
            ReviewLog.profile_id == log.profile_id,
            ReviewLog.card_id == log.card_id,
            ReviewLog.id > log.id,
        )
        .limit(1)
    )
    if later is not None:
        return False
    before = Schedule.from_dict(log.prev_state) if log.prev_state else None
    restore_schedule(session, log.profile_id, log.card_id, before)
    session.execute(delete(ReviewLog).where(ReviewLog.id == log_id))
    return True


def set_suspended(session: Session, profile_id: int, card_id: int, suspended: bool) -> None:
    """Suspend a card (out of every drill until unsuspended) or bring it back."""
    ensure_state(session, profile_id, card_id).suspended = suspended


def bury(session: Session, profile_id: int, card_id: int, today: date) -> None:
    """Hide a card for the rest of study day ``today``; it is back tomorrow."""
    ensure_state(session, profile_id, card_id).buried_until = today + timedelta(days=1)


def set_note(session: Session, profile_id: int, card_id: int, text: str, now: datetime) -> None:
    """Save the learner's note on a card; an empty text deletes it."""
    lock_card(session, profile_id, card_id)
    note = session.get(Note, (profile_id, card_id))
    if not text.strip():
        if note is not None:
            session.delete(note)
        return
    if note is None:
        note = Note(profile_id=profile_id, card_id=card_id)
        session.add(note)
    note.text = text
    note.updated_at = now


def suspended_cards(session: Session, profile_id: int) -> list[tuple[str, str]]:
    """The profile's suspended live cards as (``pack/card`` reference, title), in pack order."""
    rows = session.execute(
        select(Pack.key, Card.key, Card.title)
        .join(Card, Card.pack_id == Pack.id)
        .join(CardState, CardState.card_id == Card.id)
        .where(
            CardState.profile_id == profile_id,
            CardState.suspended.is_(True),
            Card.retired.is_(False),
        )
        .order_by(Pack.id, Card.position)
    )
    return [(f"{pack_key}/{card_key}", title) for pack_key, card_key, title in rows]


def find_card(session: Session, reference: str) -> Card:
    """The card named ``pack/card`` (a follow-up: ``pack/card/follow-up``); a UserError if none."""
    pack_key, _, card_key = reference.strip().partition("/")
    card = session.scalars(
        select(Card)
        .join(Pack, Pack.id == Card.pack_id)
        .where(Pack.key == pack_key, Card.key == card_key)
    ).one_or_none()
    if card is None:
        known = [
            f"{pack}/{key}"
            for pack, key in session.execute(
                select(Pack.key, Card.key).join(Pack, Pack.id == Card.pack_id)
            )
        ]
        hint = did_you_mean(reference.strip(), known) or " (write it as pack-id/card-id)"
        raise UserError(f"there is no card '{reference}'{hint}")
    return card
