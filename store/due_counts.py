"""How many cards today's session holds, due and new (``kvdrill due``, a shell prompt's count).

The count is the session's own: the same queue query, today's log and ``plan_day`` as
``DrillSession.open``. A SQLite file at the current schema is read with ``sqlite3`` alone,
read-only, without importing SQLAlchemy (store/fast_start.py does the same for the first card);
anything else (another database, an older schema, a follow-up whose parent is left out) goes
through the store's session (``count_in_session``). Neither writes: a profile that does not
exist yet counts with the default settings and is not created. Standard library only at module level.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.queue import (
    DayCounts,
    QueueCard,
    due_and_new,
    missing_parents,
    plan_day,
)
from kvdrill.store.queries_sql import (
    PROFILE_SQL,
    options_language,
    queue_cards_from_rows,
    queue_cards_statement,
    read_day_counts,
)
from kvdrill.store.sqlite_file import open_current

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


@dataclass(frozen=True)
class DueCount:
    """Today's session for one profile: cards due (reviews and owed repeats) and new ones."""

    profile: str
    due: int
    new: int


def count_in_file(path: Path, profile_name: str, now: datetime) -> DueCount | None:
    """The count read from the SQLite file at ``path`` with ``sqlite3``; None when the store's
    session must read it (no such file, an older schema, a profile not stored yet, a follow-up
    of a left-out parent)."""
    connection = open_current(path, read_only=True)
    if connection is None:
        return None  # no such file, or an older schema
    try:
        profile = connection.execute(PROFILE_SQL, {"name": profile_name}).fetchone()
        if profile is None:
            return None  # the session checks the name and counts with the default settings
        profile_id, new_per_day, reviews_per_day, rollover_hour = profile[:4]
        today, language = study_day(now, rollover_hour), options_language(profile[5])
        counts, missed = read_day_counts(
            connection.execute, profile_id, today, new_per_day, reviews_per_day
        )
        statement, params = queue_cards_statement(
            profile_id, lang=language, due_by=today.isoformat(), missed=missed
        )
        cards = queue_cards_from_rows(connection.execute(statement, params), missed)
    except sqlite3.DatabaseError:
        return None  # not a kvdrill file as this version knows it: the session says what is wrong
    finally:
        connection.close()
    if missing_parents(cards):
        return None
    return _count(profile_name, cards, today, counts)


def count_in_session(session: Session, profile_name: str, now: datetime) -> DueCount:
    """The count through the store's session (any database; a profile is never created)."""
    from kvdrill.store.day_queue import queue_cards, today_log
    from kvdrill.store.profiles import profile_for_reading, profile_settings

    profile = profile_for_reading(session, profile_name, now)
    today = study_day(now, profile.rollover_hour)
    counts, missed = today_log(session, profile, today)
    language = profile_settings(profile).language
    cards = queue_cards(session, profile.id, missed, lang=language, due_by=today)
    return _count(profile_name, cards, today, counts)


def _count(profile: str, cards: list[QueueCard], today: date, counts: DayCounts) -> DueCount:
    due, new = due_and_new(plan_day(cards, today, counts))
    return DueCount(profile, due, new)
