"""The stats report read with ``sqlite3`` alone, without importing SQLAlchemy or Alembic.

``kvdrill stats`` tries this first. It runs the rollup queries of store/stats.py written as SQL
text and assembles the report with the same code (store/stats_rows.py), so the report is the
same (tests/test_stats.py compares the JSON of both). Only the common case: a SQLite file at the
current schema revision with the profile in it; otherwise None, and the caller opens the store.
The predicted recall is the service's to compute (app/services/stats.py), from the profile's
settings and due schedules this reader hands back, as it does after the store's session.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import NamedTuple

from kvdrill.engine.errors import UserError
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.settings import ProfileSettings, setting_names
from kvdrill.engine.study.stats_report import (
    StatsReport,
    mark_same_cards,
    may_share_cards,
    streak,
)
from kvdrill.store.guard import check_on_open
from kvdrill.store.location import HEAD_REVISION, sqlite_file
from kvdrill.store.queries_sql import stored_day, stored_json
from kvdrill.store.stats_rows import (
    FORECAST_DAYS,
    LAST_MISTAKES,
    STREAK_DAYS_READ,
    card_sets_from_rows,
    forecast_from,
    heatmap_and_retention,
    heatmap_start,
    log_rows_from_rollup,
    mistakes_from,
    per_day_from_rows,
    state_rows_from_rollup,
    topics_from_rows,
)

PROFILE_SQL = "SELECT * FROM profiles WHERE name = :name"

LOG_SQL = """
SELECT kind, value,
  SUM(CASE WHEN study_day >= :recent THEN reviews ELSE 0 END),
  SUM(CASE WHEN study_day >= :recent THEN passed ELSE 0 END),
  SUM(CASE WHEN study_day >= :recent THEN firsts ELSE 0 END),
  SUM(CASE WHEN study_day >= :recent THEN failed_firsts ELSE 0 END),
  SUM(CASE WHEN study_day < :recent THEN firsts ELSE 0 END),
  SUM(CASE WHEN study_day < :recent THEN failed_firsts ELSE 0 END),
  SUM(CASE WHEN study_day >= :recent THEN seconds ELSE 0.0 END),
  SUM(CASE WHEN study_day >= :recent THEN diagnosed ELSE 0 END)
FROM topic_days
WHERE profile_id = :profile AND study_day >= :previous AND study_day <= :today
GROUP BY kind, value
"""

STATES_SQL = """
SELECT kind, value, SUM(reviews), SUM(lapses), SUM(easiness_sum), SUM(seen),
  SUM(CASE WHEN due_day <= :due_by AND suspended = 0 THEN cards ELSE 0 END), SUM(leeches)
FROM topic_states
WHERE profile_id = :profile
GROUP BY kind, value
"""

TOPIC_CARDS_SQL = "SELECT kind, value, cards FROM topic_cards WHERE cards > 0"

MISTAKE_COUNTS_SQL = """
SELECT mistake, COUNT(*) FROM review_log
WHERE profile_id = :profile AND study_day >= :recent AND study_day <= :today
  AND mistake IS NOT NULL
GROUP BY mistake
"""

LAST_MISTAKES_SQL = """
SELECT mistake FROM review_log
WHERE profile_id = :profile AND mistake IS NOT NULL
ORDER BY reviewed_at DESC LIMIT :limit
"""

PER_DAY_SQL = """
SELECT study_day, SUM(reviews), SUM(firsts), SUM(firsts - failed_firsts)
FROM topic_days
WHERE profile_id = :profile AND kind = 'pack' AND study_day >= :start AND study_day <= :today
  AND reviews > 0
GROUP BY study_day
"""

FORECAST_SQL = """
SELECT due_day, SUM(cards) FROM topic_states
WHERE profile_id = :profile AND kind = 'pack' AND suspended = 0 AND due_day <= :last
GROUP BY due_day
"""

STREAK_SQL = """
SELECT study_day FROM topic_days
WHERE profile_id = :profile AND kind = 'pack' AND reviews > 0 AND study_day <= :today
GROUP BY study_day ORDER BY study_day DESC LIMIT :limit
"""

TOTAL_SQL = "SELECT SUM(reviews) FROM topic_days WHERE profile_id = :profile AND kind = 'pack'"

# store.stats.topic_card_sets of the topics in VALUES ({topics}: "(?, ?), ...")
CARD_SETS_SQL = """
SELECT card_topics.kind, card_topics.value, COUNT(card_topics.card_id),
  MIN(card_topics.card_id), MAX(card_topics.card_id), SUM(card_topics.card_id),
  SUM(card_topics.card_id * card_topics.card_id)
FROM card_topics JOIN cards ON cards.id = card_topics.card_id AND cards.retired = 0
WHERE (card_topics.kind, card_topics.value) IN (VALUES {topics})
GROUP BY card_topics.kind, card_topics.value
"""

# store.scheduler_switch.due_schedules (the conditions of store.cards.due_on), the columns in
# the order of Schedule's fields.
DUE_SCHEDULES_SQL = """
SELECT card_states.repetitions, card_states.easiness_milli, card_states.interval_days,
  card_states.due_day, card_states.lapses, card_states.reviews, card_states.last_review_at,
  card_states.suspended, card_states.buried_until, card_states.leech, card_states.fsrs
FROM card_states JOIN cards ON cards.id = card_states.card_id
WHERE card_states.profile_id = :profile AND card_states.reviews > 0
  AND card_states.suspended = 0 AND card_states.due_day <= :today AND cards.retired = 0
"""


class FastStats(NamedTuple):
    """The report without its predicted recall, and what the service computes that from."""

    report: StatsReport
    settings: ProfileSettings
    due: list[Schedule]


def _dated(rows) -> list[tuple]:
    """Rows whose first column is a study day, stored as ISO text, read back as ``date``."""
    return [(date.fromisoformat(row[0]), *row[1:]) for row in rows]


def _settings(profile: sqlite3.Row) -> ProfileSettings:
    """``store.profiles.profile_settings`` of a row read with sqlite3."""
    values = dict(stored_json(profile["options"]) or {})
    columns = set(profile.keys()) - {"options"}
    values.update({name: profile[name] for name in setting_names() if name in columns})
    return ProfileSettings.from_values(values)


def _schedule(row: tuple) -> Schedule:
    """A ``DUE_SCHEDULES_SQL`` row as SQLite stores it (ISO text, 0 and 1, JSON text)."""
    (
        repetitions,
        easiness,
        interval,
        due,
        lapses,
        reviews,
        last,
        suspended,
        buried,
        leech,
        memory,
    ) = row
    return Schedule(
        repetitions=repetitions,
        easiness_milli=easiness,
        interval_days=interval,
        due_day=stored_day(due),
        lapses=lapses,
        reviews=reviews,
        last_review_at=datetime.fromisoformat(last) if last else None,
        suspended=bool(suspended),
        buried_until=stored_day(buried),
        leech=bool(leech),
        fsrs=stored_json(memory),
    )


def _card_sets(
    connection: sqlite3.Connection, topics: list[tuple[str, str]]
) -> dict[tuple[str, str], tuple[int, ...]]:
    if not topics:
        return {}
    sql = CARD_SETS_SQL.format(topics=", ".join("(?, ?)" for _ in topics))
    return card_sets_from_rows(connection.execute(sql, [part for t in topics for part in t]))


def read_report(
    database_url: str, profile_name: str, today_of: Callable[[int], date], window_days: int
) -> FastStats | None:
    """The report ``store.stats.build_report`` gives, or None when this reader cannot read it.

    ``today_of(rollover_hour)`` gives the study day: the caller owns the clock.
    """
    try:
        path = sqlite_file(database_url)
        if path is None or not path.is_file():
            return None
    except (OSError, UserError):
        return None  # a path the store reports in one clear line
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        # The store's open checks the file; a read that bypasses the store checks it too, or a
        # damaged file would be reported from whatever its readable pages hold.
        check_on_open(connection, path)
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchone()
        if revision is None or revision[0] != HEAD_REVISION:
            return None  # the store migrates it first
        named = connection.cursor()
        named.row_factory = sqlite3.Row
        profile = named.execute(PROFILE_SQL, {"name": profile_name}).fetchone()
        if profile is None:
            return None  # the store creates the profile
        profile_id, name = profile["id"], profile["name"]
        today = today_of(profile["rollover_hour"])
        recent = today - timedelta(days=window_days - 1)
        common = {"profile": profile_id, "today": today.isoformat()}

        def rows(sql: str, **params) -> list[tuple]:
            values = {key: str(v) if isinstance(v, date) else v for key, v in params.items()}
            return connection.execute(sql, {**common, **values}).fetchall()

        log_rows = log_rows_from_rollup(
            rows(LOG_SQL, recent=recent, previous=recent - timedelta(days=window_days))
        )
        state_rows = state_rows_from_rollup(
            rows(STATES_SQL, due_by=today + timedelta(days=7)), rows(TOPIC_CARDS_SQL)
        )
        heatmap, retention = heatmap_and_retention(
            per_day_from_rows(_dated(rows(PER_DAY_SQL, start=heatmap_start(today)))), today
        )
        last = today + timedelta(days=FORECAST_DAYS - 1)
        days = [day for (day,) in _dated(rows(STREAK_SQL, limit=STREAK_DAYS_READ))]
        topics = topics_from_rows(log_rows, state_rows)
        report = StatsReport(
            profile=name,
            today=today,
            window_days=window_days,
            total_reviews=int(rows(TOTAL_SQL)[0][0] or 0),
            streak_days=streak(days, today),
            topics=mark_same_cards(topics, _card_sets(connection, may_share_cards(topics))),
            mistakes=mistakes_from(
                dict(rows(MISTAKE_COUNTS_SQL, recent=recent)),
                [code for (code,) in rows(LAST_MISTAKES_SQL, limit=LAST_MISTAKES)],
            ),
            heatmap=heatmap,
            forecast=forecast_from(_dated(rows(FORECAST_SQL, last=last)), today),
            retention=retention,
        )
        due = [_schedule(row) for row in rows(DUE_SCHEDULES_SQL)]
        return FastStats(report, _settings(profile), due)
    except sqlite3.Error:
        return None  # a locked or odd file: the store reports it properly
    finally:
        connection.close()
