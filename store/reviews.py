"""Card schedules and the review log, stored: answers, undo, suspend, bury, notes.

Every write is statement text run through an ``Sql`` (store/sql.py), the same on SQLite and
PostgreSQL, inside the caller's transaction, and never commits: the caller wraps one action in
one transaction (``Database.write``; the drill session does, one per answer), so a card's state
and its log row are written together or not at all. A caller holding an ORM session passes
``session_sql(session)``.

What an answer does to a schedule (first answer of the day, lapses, leeches) is decided in
engine/study/rules.py; this module stores the result. ``prev_state`` in a log row is the
``Schedule`` before the answer as JSON (None: the card had no state row), so undo puts back
exactly what was there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from operator import attrgetter
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.engine.packs.card_view import own_title
from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.engine.records import unchecked
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.rules import Answered, answer_schedule
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.settings import DEFAULT_DESIRED_RETENTION
from kvdrill.i18n import _
from kvdrill.store.db import Database, session_sql
from kvdrill.store.models import Card, CardState, Pack
from kvdrill.store.queries_sql import SCHEDULE_COLUMNS, stored_json, stored_schedule
from kvdrill.store.sql import Sql, insert_statement, update_statement


@dataclass(frozen=True)
class RecordedAnswer:
    """What recording one answer did."""

    log_id: int
    moved_schedule: bool
    lapsed: bool
    became_leech: bool
    due_day: date | None
    schedule: Schedule  # the card's state as written


def load_schedule(sql: Sql, profile_id: int, card_id: int) -> Schedule | None:
    """The card's schedule for the profile; None when the card has no state row (it is new)."""
    row = sql.first(_SELECT_STATE_SQL, {"profile_id": profile_id, "card_id": card_id})
    return None if row is None else stored_schedule(row)


def restore_schedule(sql: Sql, profile_id: int, card_id: int, schedule: Schedule | None) -> None:
    """Put a card's state back to ``schedule``; None deletes the row."""
    sql.lock_card(profile_id, card_id)
    exists = load_schedule(sql, profile_id, card_id) is not None
    if schedule is None:
        if exists:
            sql.run(_DELETE_STATE_SQL, {"profile_id": profile_id, "card_id": card_id})
        return
    _store_state(sql, profile_id, card_id, schedule, exists=exists)


def change_schedule(
    sql: Sql, profile_id: int, card_id: int, change: Callable[[Schedule], Schedule]
) -> None:
    """Store ``change`` of the card's schedule (a new card's when it has no state row)."""
    sql.lock_card(profile_id, card_id)
    before = load_schedule(sql, profile_id, card_id)
    _store_state(sql, profile_id, card_id, change(before or Schedule()), exists=before is not None)


def _store_state(
    sql: Sql, profile_id: int, card_id: int, schedule: Schedule, *, exists: bool
) -> None:
    """Write the card's state row: an UPDATE when it ``exists``, else an INSERT."""
    state = _state_values(sql, schedule)
    state["profile_id"] = profile_id
    state["card_id"] = card_id
    (_UPDATE_STATE if exists else _INSERT_STATE).run(sql, state)


@dataclass(frozen=True)
class GivenAnswer:
    """One answer as the drill gives it to the store."""

    profile_id: int
    card_id: int
    quality: Grade
    seconds: float
    graded_by: str
    now: datetime
    rollover_hour: int
    scheduler: str = "sm2"
    desired_retention: float = DEFAULT_DESIRED_RETENTION
    fsrs_parameters: tuple[float, ...] | None = None
    typed_answer: str | None = None  # for multiple choice: the letters as shown
    variant: Variant | None = None
    verdict: Verdict | None = None
    reveal_seconds: float | None = None
    grade_seconds: float | None = None
    choice_seed: int | None = None
    choice_order: str | None = None
    practice: bool = False  # drill --cram: logged, the schedule left as it is

    def __post_init__(self) -> None:
        if self.graded_by not in ("self", "auto"):
            raise ValueError(f"graded_by must be 'self' or 'auto', got {self.graded_by!r}")


def record_answer(sql: Sql, given: GivenAnswer) -> RecordedAnswer:
    """Apply one answer to the card's schedule (engine/study/rules.py) and log it, with what
    undo needs, in the caller's transaction: read the state, write the new one, insert the log
    row, the same three statements on every database."""
    key = {"profile_id": given.profile_id, "card_id": given.card_id}
    sql.lock_card(given.profile_id, given.card_id)
    row = sql.first(_SELECT_STATE_SQL, key)
    before = None if row is None else stored_schedule(row)
    if given.practice:  # the schedule stays as it was, row or no row
        answered = Answered(
            before or Schedule(), moved_schedule=False, lapsed=False, became_leech=False
        )
    else:
        answered = answer_schedule(
            before,
            given.quality,
            given.now,
            given.rollover_hour,
            given.scheduler,
            given.desired_retention,
            given.fsrs_parameters,
        )
        _store_state(
            sql, given.profile_id, given.card_id, answered.schedule, exists=before is not None
        )
    log_id = _INSERT_LOG.insert_id(sql, _log_values(sql, given, before, answered))
    # Every field given, without the frozen ``__init__`` (engine/records.py): the answer path.
    return unchecked(
        RecordedAnswer,
        {
            "log_id": log_id,
            "moved_schedule": answered.moved_schedule,
            "lapsed": answered.lapsed,
            "became_leech": answered.became_leech,
            "due_day": answered.schedule.due_day,
            "schedule": answered.schedule,
        },
    )


def commit_answer(database: Database, given: GivenAnswer, locked_message: str) -> RecordedAnswer:
    """``record_answer`` in a write transaction of its own, committed before it returns; a
    database that stays locked is a UserError with ``locked_message``, nothing written."""
    return database.write(lambda sql: record_answer(sql, given), locked_message)


def answer_in_session(session: Session, given: GivenAnswer) -> RecordedAnswer:
    """``record_answer`` inside an ORM session's transaction (the session's objects reload)."""
    recorded = record_answer(session_sql(session), given)
    session.expire_all()
    return recorded


# The review log's columns, in the order of its rows (every column but ``id``; a test checks
# none is missing).
LOG_COLUMNS = (
    "profile_id",
    "card_id",
    "reviewed_at",
    "study_day",
    "quality",
    "seconds",
    "reveal_seconds",
    "grade_seconds",
    "graded_by",
    "moved_schedule",
    "typed_answer",
    "template_id",
    "seed",
    "params",
    "expected",
    "diagnosis",
    "mistake",
    "choice_seed",
    "choice_order",
    "prev_state",
    "practice",
    # An answer imported from Anki only (store/anki_history.py): NULL for one given here.
    "imported_id",
    "interval_days",
    "easiness_milli",
)
_STATE_FIELDS = SCHEDULE_COLUMNS
_STATE_KEY = "profile_id = :profile_id AND card_id = :card_id"
_SELECT_STATE_SQL = f"SELECT {', '.join(_STATE_FIELDS)} FROM card_states WHERE {_STATE_KEY}"
_INSERT_STATE = insert_statement("card_states", ("profile_id", "card_id", *_STATE_FIELDS))
_UPDATE_STATE = update_statement("card_states", _STATE_FIELDS, ("profile_id", "card_id"))
_INSERT_LOG = insert_statement("review_log", LOG_COLUMNS)
_DELETE_STATE_SQL = f"DELETE FROM card_states WHERE {_STATE_KEY}"
_LOG_ROW_SQL = "SELECT profile_id, card_id, prev_state FROM review_log WHERE id = :id"
_LATER_ANSWER_SQL = (
    "SELECT 1 FROM review_log WHERE profile_id = :profile_id AND card_id = :card_id "
    "AND id > :id LIMIT 1"
)
_DELETE_LOG_SQL = "DELETE FROM review_log WHERE id = :id"
_DELETE_FLAG_SQL = f"DELETE FROM card_flags WHERE {_STATE_KEY}"
_SET_FLAG_SQL = (
    "INSERT INTO card_flags (profile_id, card_id, colour) VALUES (:profile_id, :card_id, :colour) "
    "ON CONFLICT (profile_id, card_id) DO UPDATE SET colour = excluded.colour"
)
_DELETE_NOTE_SQL = f"DELETE FROM notes WHERE {_STATE_KEY}"
_SET_NOTE_SQL = (
    "INSERT INTO notes (profile_id, card_id, text, updated_at) "
    "VALUES (:profile_id, :card_id, :text, :updated_at) ON CONFLICT (profile_id, card_id) "
    "DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at"
)
_state_fields = attrgetter(*_STATE_FIELDS)


def _state_values(sql: Sql, schedule: Schedule) -> dict[str, Any]:
    """A schedule's ``card_states`` columns as the database stores them."""
    values = dict(zip(_STATE_FIELDS, _state_fields(schedule), strict=True))
    for name in ("due_day", "buried_until"):
        if values[name] is not None:
            values[name] = sql.day(values[name])
    if values["last_review_at"] is not None:
        values["last_review_at"] = sql.time(values["last_review_at"])
    values["fsrs"] = sql.json(values["fsrs"])
    values["suspended"] = sql.boolean(values["suspended"])
    values["leech"] = sql.boolean(values["leech"])
    return values


def _log_values(
    sql: Sql, given: GivenAnswer, before: Schedule | None, answered: Answered
) -> dict[str, Any]:
    """The answer's review-log row (``LOG_COLUMNS``) as the database stores it; None is SQL
    NULL, also for the JSON columns ``params`` and ``prev_state``."""
    variant, verdict = given.variant, given.verdict
    return {
        "profile_id": given.profile_id,
        "card_id": given.card_id,
        "reviewed_at": sql.time(given.now),
        "study_day": sql.day(study_day(given.now, given.rollover_hour)),
        # The int itself: ``sqlite3`` binds an int subclass (``Grade``) only after looking for
        # an adapter for it, which raises and formats two AttributeErrors.
        "quality": int(given.quality),
        "seconds": float(given.seconds),
        "reveal_seconds": given.reveal_seconds,
        "grade_seconds": given.grade_seconds,
        "graded_by": given.graded_by,
        "moved_schedule": sql.boolean(answered.moved_schedule),
        "typed_answer": given.typed_answer,
        "template_id": variant.template_id if variant is not None else None,
        "seed": variant.seed if variant is not None else None,
        "params": sql.json(dict(variant.params)) if variant is not None else None,
        "expected": verdict.expected_text if verdict is not None else None,
        "diagnosis": verdict.diagnosis if verdict is not None else None,
        "mistake": verdict.mistake if verdict is not None else None,
        "choice_seed": given.choice_seed,
        "choice_order": given.choice_order,
        "prev_state": sql.json(before.to_dict()) if before is not None else None,
        "practice": sql.boolean(given.practice),
        # What another tool's answers carry (store/anki_history.py); none for kvdrill's own.
        "imported_id": None,
        "interval_days": None,
        "easiness_milli": None,
    }


def undo_answer(sql: Sql, log_id: int) -> bool:
    """Restore the card state from before answer ``log_id`` and delete its log row.

    Refused (False) when the row is gone or a later answer to the same card exists (another
    process answered it since): restoring then would throw that answer away.
    """
    row = sql.first(_LOG_ROW_SQL, {"id": log_id})
    if row is None:
        return False
    profile_id, card_id, _ = row
    sql.lock_card(profile_id, card_id)
    # Another machine may have undone it while this one waited for the lock.
    row = sql.first(_LOG_ROW_SQL, {"id": log_id})
    if row is None:
        return False
    key = {"profile_id": profile_id, "card_id": card_id, "id": log_id}
    if sql.first(_LATER_ANSWER_SQL, key) is not None:
        return False
    prev_state = stored_json(row[2])
    before = Schedule.from_dict(prev_state) if prev_state else None
    restore_schedule(sql, profile_id, card_id, before)
    sql.run(_DELETE_LOG_SQL, {"id": log_id})
    return True


def set_suspended(sql: Sql, profile_id: int, card_id: int, suspended: bool) -> None:
    """Suspend a card (out of every drill until unsuspended) or bring it back."""
    change_schedule(sql, profile_id, card_id, lambda s: replace(s, suspended=suspended))


def bury(sql: Sql, profile_id: int, card_id: int, today: date) -> None:
    """Hide a card for the rest of study day ``today``; it is back tomorrow."""
    tomorrow = today + timedelta(days=1)
    change_schedule(sql, profile_id, card_id, lambda s: replace(s, buried_until=tomorrow))


def set_flag(sql: Sql, profile_id: int, card_id: int, colour: str | None) -> None:
    """Flag a card with ``colour`` (engine/study/flags.py); None takes its flag off."""
    sql.lock_card(profile_id, card_id)
    key: dict[str, Any] = {"profile_id": profile_id, "card_id": card_id}
    if colour is None:
        sql.run(_DELETE_FLAG_SQL, key)
    else:
        sql.run(_SET_FLAG_SQL, {**key, "colour": colour})


def set_note(sql: Sql, profile_id: int, card_id: int, text: str, now: datetime) -> None:
    """Save the learner's note on a card; an empty text deletes it."""
    sql.lock_card(profile_id, card_id)
    key: dict[str, Any] = {"profile_id": profile_id, "card_id": card_id}
    if not text.strip():
        sql.run(_DELETE_NOTE_SQL, key)
    else:
        sql.run(_SET_NOTE_SQL, {**key, "text": text, "updated_at": sql.time(now)})


def suspended_cards(session: Session, profile_id: int) -> list[tuple[str, str]]:
    """The profile's suspended live cards as (``pack/card`` reference, title), in pack order;
    a follow-up by its own title (engine/packs/card_view.py)."""
    rows = session.execute(
        select(Pack.key, Card.key, Card.kind, Card.title, Card.prompt)
        .join(Card, Card.pack_id == Pack.id)
        .join(CardState, CardState.card_id == Card.id)
        .where(
            CardState.profile_id == profile_id,
            CardState.suspended.is_(True),
            Card.retired.is_(False),
        )
        .order_by(Pack.id, Card.position)
    )
    return [
        (f"{pack_key}/{card_key}", own_title(kind, title, prompt))
        for pack_key, card_key, kind, title, prompt in rows
    ]


def find_card(session: Session, reference: str) -> Card:
    """The card named ``pack/card`` (a follow-up: ``pack/card/follow-up``; an edition's
    ``pack``: its original's card); a UserError if none."""
    pack_key, _slash, card_key = reference.strip().partition("/")
    # An edition's card is its original's card (the one with the schedule).
    original = session.scalar(select(Pack.edition_of).where(Pack.key == pack_key))
    card = session.scalars(
        select(Card)
        .join(Pack, Pack.id == Card.pack_id)
        .where(Pack.key == (original or pack_key), Card.key == card_key)
    ).one_or_none()
    if card is None:
        known = [
            f"{pack}/{key}"
            for pack, key in session.execute(
                select(Pack.key, Card.key).join(Pack, Pack.id == Card.pack_id)
            )
        ]
        hint = did_you_mean(reference.strip(), known) or _(" (write it as pack-id/card-id)")
        raise UserError(
            _("there is no card '{reference}'{hint}").format(reference=reference, hint=hint)
        )
    return card
