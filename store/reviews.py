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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from itertools import repeat
from operator import attrgetter, is_
from typing import Any

from sqlalchemy import Date, DateTime, Dialect, bindparam, delete, select
from sqlalchemy.orm import Session

from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.engine.records import unchecked
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.rules import Answered, answer_schedule
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.settings import DEFAULT_DESIRED_RETENTION
from kvdrill.store.db import Database, lock_card, raw_write_transaction, write_transaction
from kvdrill.store.models import Card, CardFlag, CardState, Note, Pack, ReviewLog

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
    schedule: Schedule  # the card's state as written


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


@dataclass(frozen=True)
class GivenAnswer:
    """One answer as the drill gives it to the store (``record_answer``'s keywords)."""

    profile_id: int
    card_id: int
    quality: int
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


def record_answer(session: Session, **answer: Any) -> RecordedAnswer:
    """Apply one answer (``GivenAnswer``'s fields) to the card's schedule
    (engine/study/rules.py) and log it, with what undo needs, in the caller's transaction.

    Written with Core statements rather than the ORM unit of work; ``commit_answer`` is the
    drill's own, cheaper path on SQLite."""
    given = GivenAnswer(**answer)
    lock_card(session, given.profile_id, given.card_id)
    connection = session.connection()
    key = {"key_profile": given.profile_id, "key_card": given.card_id}
    before = Schedule.from_row(connection.execute(_STATE_BY_KEY, key).first())
    answered, log = _answer_rows(given, before)
    columns = answered.schedule.columns()
    if given.practice:
        pass  # the schedule stays as it was, row or no row
    elif before is None:
        connection.execute(
            _STATES.insert(), {"profile_id": given.profile_id, "card_id": given.card_id} | columns
        )
    else:
        connection.execute(_UPDATE_STATE, key | columns)
    result = connection.execute(_LOG_INSERT, dict(zip(LOG_COLUMNS, log, strict=True)))
    # The ORM may hold this card's state from earlier in the session: let it reload.
    session.expire_all()
    return _recorded(result.inserted_primary_key[0], answered)


def commit_answer(database: Database, locked_message: str, **answer: Any) -> RecordedAnswer:
    """``record_answer`` in a transaction of its own, committed before it returns; a
    database that stays locked is a UserError with ``locked_message``, nothing written.

    On SQLite this is the hot path between an answer and the next card
    (scripts/bench_vs_anki.py): three prepared statements on the database's DB-API
    connection, no ORM session. PostgreSQL goes through ``record_answer`` (its card locks)."""
    given = GivenAnswer(**answer)
    if not database.answers_raw:
        return write_transaction(
            database, lambda session: record_answer(session, **answer), locked_message
        )
    statements = _raw_statements(database.engine.dialect)
    return raw_write_transaction(
        database, lambda cursor: statements.record(cursor, given), locked_message
    )


# The review log's columns, in the order ``_answer_rows`` gives their values (every column
# but ``id``; a test checks none is missing).
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


def _answer_rows(given: GivenAnswer, before: Schedule | None) -> tuple[Answered, tuple[Any, ...]]:
    """The schedule after the answer, and its review-log row (values in ``LOG_COLUMNS``
    order; None is SQL NULL, also for the JSON columns ``params`` and ``prev_state``). A
    practice answer leaves the schedule as it was."""
    if given.practice:
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
    variant, verdict = given.variant, given.verdict
    log = (
        given.profile_id,
        given.card_id,
        given.now,
        study_day(given.now, given.rollover_hour),
        given.quality,
        float(given.seconds),
        given.reveal_seconds,
        given.grade_seconds,
        given.graded_by,
        answered.moved_schedule,
        given.typed_answer,
        variant.template_id if variant is not None else None,
        variant.seed if variant is not None else None,
        dict(variant.params) if variant is not None else None,
        verdict.expected_text if verdict is not None else None,
        verdict.diagnosis if verdict is not None else None,
        verdict.mistake if verdict is not None else None,
        given.choice_seed,
        given.choice_order,
        before.to_dict() if before is not None else None,
        given.practice,
        None,
        None,
        None,
    )
    return answered, log


def _recorded(log_id: int, answered: Answered) -> RecordedAnswer:
    return RecordedAnswer(
        log_id=log_id,
        moved_schedule=answered.moved_schedule,
        lapsed=answered.lapsed,
        became_leech=answered.became_leech,
        due_day=answered.schedule.due_day,
        schedule=answered.schedule,
    )


class _RawAnswerStatements:
    """The answer's statements as SQL text for one dialect, with each column's own
    SQLAlchemy converters (taken once), so a row is stored exactly as the Core path stores it.

    Only the columns whose type converts a value (dates, booleans, floats, JSON) are passed
    through their converter, and only when the value is not None (every one of them turns None
    into None): the others go to the driver as they are."""

    def __init__(self, dialect: Dialect):
        states, log = CardState.__table__, ReviewLog.__table__
        self.fields = tuple(Schedule().columns())
        self.schedule_values = attrgetter(*self.fields)
        self.decode_state = _converters([states.c[name] for name in self.fields], dialect, True)
        self.encode_state = _converters([states.c[name] for name in self.fields], dialect)
        self.encode_log = _converters([log.c[name] for name in LOG_COLUMNS], dialect)
        self.select_state = f"SELECT {', '.join(self.fields)} FROM card_states WHERE {_KEY}"
        self.update_state = _NullsInText(self._update_text)
        self.insert_state = _insert("card_states", ("profile_id", "card_id", *self.fields))
        self.insert_log = _insert("review_log", LOG_COLUMNS)

    def _decoded(self, row: Sequence[Any]) -> list[Any]:
        return _converted(row, self.decode_state)

    def _update_text(self, nulls: tuple[bool, ...]) -> str:
        # The values are the fields', then the key's two (never NULL).
        fields = zip(self.fields, nulls[: len(self.fields)], strict=True)
        marks = ", ".join(f"{name} = {_mark(null)}" for name, null in fields)
        return f"UPDATE card_states SET {marks} WHERE {_KEY}"

    def record(self, cursor: Any, given: GivenAnswer) -> RecordedAnswer:
        key = (given.profile_id, given.card_id)
        row = cursor.execute(self.select_state, key).fetchone()
        before = None
        if row is not None:  # every field, from the row: no frozen __init__ to go through
            before = unchecked(Schedule, dict(zip(self.fields, self._decoded(row), strict=True)))
        answered, log = _answer_rows(given, before)
        state = _converted(self.schedule_values(answered.schedule), self.encode_state)
        if given.practice:
            pass  # the schedule stays as it was, row or no row
        elif before is None:
            self.insert_state.run(cursor, (*key, *state))
        else:
            self.update_state.run(cursor, (*state, *key))
        self.insert_log.run(cursor, _converted(log, self.encode_log))
        return _recorded(cursor.lastrowid, answered)


_KEY = "profile_id = ? AND card_id = ?"  # a card state's key in the raw statements


class _NullsInText:
    """An INSERT or UPDATE whose None values are written as NULL in its SQL text.

    ``sqlite3`` binds a None only after looking for an adapter for it, which raises and
    formats an AttributeError each time (about 0.3 us; an answer has a dozen Nones). One text
    per pattern of NULLs, made on first use (an answer meets a handful), binds the rest."""

    def __init__(self, text: Callable[[tuple[bool, ...]], str]):
        self._text = text  # the statement for a pattern of NULLs (True: that value is NULL)
        self._texts: dict[tuple[bool, ...], str] = {}

    def run(self, cursor: Any, values: Sequence[Any]) -> None:
        nulls = tuple(map(is_, repeat(None), values))
        sql = self._texts.get(nulls)
        if sql is None:
            sql = self._texts[nulls] = self._text(nulls)
        cursor.execute(sql, [value for value in values if value is not None])


def _insert(table: str, columns: tuple[str, ...]) -> _NullsInText:
    names = ", ".join(columns)
    return _NullsInText(
        lambda nulls: (
            f"INSERT INTO {table} ({names}) VALUES ({', '.join(_mark(null) for null in nulls)})"
        )
    )


def _mark(null: bool) -> str:
    return "NULL" if null else "?"


def _converters(
    columns: list[Any], dialect: Dialect, read: bool = False
) -> tuple[tuple[int, Callable[[Any], Any]], ...]:
    """(position, converter) of the ``columns`` whose type has a bind (or, ``read``, result)
    processor for ``dialect``."""
    found = []
    for position, column in enumerate(columns):
        impl = column.type.dialect_impl(dialect)
        if read:
            processor = impl.result_processor(dialect, None)
        else:
            processor = _with_iso_shortcut(impl, impl.bind_processor(dialect))
        if processor is not None:
            found.append((position, processor))
    return tuple(found)


def _with_iso_shortcut(impl: Any, processor: Callable[[Any], Any] | None) -> Any:
    """A date or datetime column's bind processor, with the text it stores for a date or a
    naive datetime made by ``isoformat`` (a few times faster than the processor's own
    formatting; an answer stores four). Only if the processor gives that very text for a range
    of samples: else, and for any other value, the processor itself."""
    if processor is None:
        return None
    if isinstance(impl, DateTime):
        if any(processor(moment) != _iso_moment(moment) for moment in _SAMPLE_MOMENTS):
            return processor

        def moment_text(value: Any) -> Any:
            if type(value) is datetime and value.tzinfo is None:
                return _iso_moment(value)
            return processor(value)

        return moment_text
    if isinstance(impl, Date):
        if any(processor(day) != day.isoformat() for day in _SAMPLE_DAYS):
            return processor

        def day_text(value: Any) -> Any:
            return value.isoformat() if type(value) is date else processor(value)

        return day_text
    return processor


def _iso_moment(value: datetime) -> str:
    return value.isoformat(" ", "microseconds")


_SAMPLE_DAYS = (date(1, 1, 1), date(999, 12, 31), date(2026, 3, 9), date(9999, 12, 31))
_SAMPLE_MOMENTS = (
    datetime(1, 1, 1),
    datetime(999, 2, 3, 4, 5, 6, 7),
    datetime(2026, 3, 9, 23, 59, 59, 999999),
    datetime(9999, 12, 31, 12, 0, 0, 500000),
)


def _converted(
    values: Sequence[Any], converters: tuple[tuple[int, Callable[[Any], Any]], ...]
) -> list[Any]:
    """``values`` with each converter applied at its position, None left as it is."""
    converted = list(values)
    for position, convert in converters:
        value = converted[position]
        if value is not None:
            converted[position] = convert(value)
    return converted


@cache
def _raw_statements(dialect: Dialect) -> _RawAnswerStatements:
    return _RawAnswerStatements(dialect)


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


def set_flag(session: Session, profile_id: int, card_id: int, colour: str | None) -> None:
    """Flag a card with ``colour`` (engine/study/flags.py); None takes its flag off."""
    lock_card(session, profile_id, card_id)
    flag = session.get(CardFlag, (profile_id, card_id))
    if colour is None:
        if flag is not None:
            session.delete(flag)
        return
    if flag is None:
        flag = CardFlag(profile_id=profile_id, card_id=card_id)
        session.add(flag)
    flag.colour = colour


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
