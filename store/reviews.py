"""Card schedules and the review log: recording answers, undo, suspend, bury, notes.

Every function works inside the caller's session and never commits: the caller wraps one
action in one transaction (``store.drill`` does, one per answer), so a card's state and its log
row are written together or not at all.

Definitions used here and in the stats:

- Only the first answer of a study day moves the SM-2 schedule; later answers that day (the
  step-7 repeats) are logged with ``moved_schedule=False`` and leave the schedule alone.
- A lapse is a schedule-moving answer below 3 on a card whose repetitions were above 0, i.e. a
  card that had been learned and was forgotten. A first failure of a new card is no lapse.
- A card with ``LEECH_LAPSES`` lapses or more is flagged a leech; it stays in the drills.
- A card is new until it has been answered once (``reviews == 0`` or no state row).
- ``prev_state`` in a log row is the card state before the answer as JSON (None: the card had no
  state row), so undo puts back exactly what was there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session

from kvdrill.engine.errors import UserError
from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.sm2 import PASSING_QUALITY, Sm2State, review
from kvdrill.store.models import Card, CardState, Note, Pack, ReviewLog

LEECH_LAPSES = 8

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


def load_state(session: Session, profile_id: int, card_id: int) -> CardState | None:
    return session.get(CardState, (profile_id, card_id))


def state_snapshot(state: Any) -> dict[str, Any] | None:
    """A state (a ``CardState`` or a row of ``card_states``) as plain JSON values; None when
    the card has no state row."""
    if state is None:
        return None
    return {
        "repetitions": state.repetitions,
        "easiness_milli": state.easiness_milli,
        "interval_days": state.interval_days,
        "due_day": _iso(state.due_day),
        "lapses": state.lapses,
        "reviews": state.reviews,
        "last_review_at": _iso(state.last_review_at),
        "suspended": state.suspended,
        "buried_until": _iso(state.buried_until),
        "leech": state.leech,
    }


def restore_state(
    session: Session, profile_id: int, card_id: int, snapshot: dict[str, Any] | None
) -> None:
    """Put a card's state back to ``snapshot`` (from ``state_snapshot``); None deletes the row."""
    state = load_state(session, profile_id, card_id)
    if snapshot is None:
        if state is not None:
            session.delete(state)
        return
    if state is None:
        state = CardState(profile_id=profile_id, card_id=card_id)
        session.add(state)
    state.repetitions = snapshot["repetitions"]
    state.easiness_milli = snapshot["easiness_milli"]
    state.interval_days = snapshot["interval_days"]
    state.due_day = _date(snapshot["due_day"])
    state.lapses = snapshot["lapses"]
    state.reviews = snapshot["reviews"]
    state.last_review_at = _datetime(snapshot["last_review_at"])
    state.suspended = snapshot["suspended"]
    state.buried_until = _date(snapshot["buried_until"])
    state.leech = snapshot["leech"]


def ensure_state(session: Session, profile_id: int, card_id: int) -> CardState:
    """The card's state row, created (as a new card's) if missing."""
    state = load_state(session, profile_id, card_id)
    if state is None:
        state = CardState(profile_id=profile_id, card_id=card_id, **_new_card_values())
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
    typed_answer: str | None = None,
    variant: Variant | None = None,
    verdict: Verdict | None = None,
) -> RecordedAnswer:
    """Apply one answer to the card's schedule and log it, with what undo needs.

    Written with Core statements rather than the ORM unit of work: this is the hot path
    between an answer and the next card (scripts/bench_answer.py).
    """
    if graded_by not in ("self", "auto"):
        raise ValueError(f"graded_by must be 'self' or 'auto', got {graded_by!r}")
    today = study_day(now, rollover_hour)
    connection = session.connection()
    key = {"key_profile": profile_id, "key_card": card_id}
    row = connection.execute(_STATE_BY_KEY, key).first()
    prev = state_snapshot(row)
    values = dict(prev) if prev is not None else _new_card_values()

    already_today = (
        row is not None
        and row.last_review_at is not None
        and study_day(row.last_review_at, rollover_hour) == today
        and row.reviews > 0
    )
    moved = not already_today
    lapsed = became_leech = False
    changes: dict[str, Any] = {"reviews": values["reviews"] + 1, "last_review_at": now}
    due_day = row.due_day if row is not None else None
    if moved:
        before = Sm2State(values["repetitions"], values["easiness_milli"], values["interval_days"])
        after = review(before, quality)
        lapsed = quality < PASSING_QUALITY and before.repetitions > 0
        due_day = today + timedelta(days=after.interval)
        changes |= {
            "repetitions": after.repetitions,
            "easiness_milli": after.easiness_milli,
            "interval_days": after.interval,
            "due_day": due_day,
        }
        if lapsed:
            changes["lapses"] = values["lapses"] + 1
            if changes["lapses"] >= LEECH_LAPSES and not values["leech"]:
                changes["leech"] = became_leech = True
    if row is None:
        full = {**values, "due_day": None, "last_review_at": None, "buried_until": None}
        connection.execute(
            _STATES.insert(), {"profile_id": profile_id, "card_id": card_id, **full, **changes}
        )
    else:
        connection.execute(_UPDATE_STATE, {**key, **changes})

    log: dict[str, Any] = {
        "profile_id": profile_id,
        "card_id": card_id,
        "reviewed_at": now,
        "study_day": today,
        "quality": quality,
        "seconds": float(seconds),
        "graded_by": graded_by,
        "moved_schedule": moved,
        "typed_answer": typed_answer,
    }
    if prev is not None:  # left out, the column is SQL NULL rather than JSON null
        log["prev_state"] = prev
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
        moved_schedule=moved,
        lapsed=lapsed,
        became_leech=became_leech,
        due_day=due_day,
    )


def _new_card_values() -> dict[str, Any]:
    return {
        "repetitions": 0,
        "easiness_milli": Sm2State().easiness_milli,
        "interval_days": 0,
        "lapses": 0,
        "reviews": 0,
        "suspended": False,
        "leech": False,
    }


def undo_answer(session: Session, log_id: int) -> bool:
    """Restore the card state from before answer ``log_id`` and delete its log row.

    Refused (False) when the row is gone or a later answer to the same card exists (another
    process answered it since): restoring then would throw that answer away.
    """
    log = session.get(ReviewLog, log_id)
    if log is None:
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
    restore_state(session, log.profile_id, log.card_id, log.prev_state)
    session.execute(delete(ReviewLog).where(ReviewLog.id == log_id))
    return True


def set_suspended(session: Session, profile_id: int, card_id: int, suspended: bool) -> None:
    """Suspend a card (out of every drill until unsuspended) or bring it back."""
    ensure_state(session, profile_id, card_id).suspended = suspended


def bury(session: Session, profile_id: int, card_id: int, today: date) -> None:
    """Hide a card for the rest of study day ``today``; it is back tomorrow."""
    ensure_state(session, profile_id, card_id).buried_until = today + timedelta(days=1)


def get_note(session: Session, profile_id: int, card_id: int) -> str:
    note = session.get(Note, (profile_id, card_id))
    return note.text if note is not None else ""


def set_note(session: Session, profile_id: int, card_id: int, text: str, now: datetime) -> None:
    """Save the learner's note on a card; an empty text deletes it."""
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


def _iso(value: date | datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _date(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None


def _datetime(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


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
        raise UserError(f"there is no card '{reference}' (write it as pack-id/card-id)")
    return card
