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

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from engine.clock import study_day
from engine.problem_types import Variant, Verdict
from engine.sm2 import PASSING_QUALITY, Sm2State, review
from store.models import CardState, Note, ReviewLog

LEECH_LAPSES = 8


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


def state_snapshot(state: CardState | None) -> dict[str, Any] | None:
    """The state as plain JSON values; None when the card has no state row."""
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


def was_new(prev_state: dict[str, Any] | None) -> bool:
    """Whether the answer logged with ``prev_state`` was a card's first answer ever."""
    return prev_state is None or not prev_state.get("reviews")


def ensure_state(session: Session, profile_id: int, card_id: int) -> CardState:
    """The card's state row, created (as a new card's) if missing."""
    state = load_state(session, profile_id, card_id)
    if state is None:
        state = CardState(
            profile_id=profile_id,
            card_id=card_id,
            repetitions=0,
            easiness_milli=Sm2State().easiness_milli,
            interval_days=0,
            lapses=0,
            reviews=0,
            suspended=False,
            leech=False,
        )
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
    """Apply one answer to the card's schedule and log it, with what undo needs."""
    if graded_by not in ("self", "auto"):
        raise ValueError(f"graded_by must be 'self' or 'auto', got {graded_by!r}")
    today = study_day(now, rollover_hour)
    state = load_state(session, profile_id, card_id)
    prev = state_snapshot(state)
    if state is None:
        state = ensure_state(session, profile_id, card_id)

    already_today = (
        state.last_review_at is not None
        and study_day(state.last_review_at, rollover_hour) == today
        and state.reviews > 0
    )
    moved = not already_today
    lapsed = became_leech = False
    if moved:
        before = Sm2State(state.repetitions, state.easiness_milli, state.interval_days)
        after = review(before, quality)
        lapsed = quality < PASSING_QUALITY and before.repetitions > 0
        state.repetitions = after.repetitions
        state.easiness_milli = after.easiness_milli
        state.interval_days = after.interval
        state.due_day = today + timedelta(days=after.interval)
        if lapsed:
            state.lapses += 1
            if state.lapses >= LEECH_LAPSES and not state.leech:
                state.leech = became_leech = True
    state.reviews += 1
    state.last_review_at = now

    log = ReviewLog(
        profile_id=profile_id,
        card_id=card_id,
        reviewed_at=now,
        study_day=today,
        quality=quality,
        seconds=float(seconds),
        graded_by=graded_by,
        moved_schedule=moved,
        typed_answer=typed_answer,
        prev_state=prev,
    )
    if variant is not None:
        log.template_id = variant.template_id
        log.seed = variant.seed
        log.params = dict(variant.params)
    if verdict is not None:
        log.expected = verdict.expected_text
        log.diagnosis = verdict.diagnosis
        log.mistake = verdict.mistake
    session.add(log)
    session.flush()
    return RecordedAnswer(
        log_id=log.id,
        moved_schedule=moved,
        lapsed=lapsed,
        became_leech=became_leech,
        due_day=state.due_day,
    )


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
