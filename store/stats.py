"""The stats report: each figure one SQL statement over the rollup tables, written once.

The review log is never loaded into Python, and never joined to the topics: the rollups
(store/rollups.py: ``topic_days``, ``topic_states``, ``topic_cards``, kept by triggers on
SQLite and PostgreSQL) hold each figure's sums per topic and day. Each statement runs through
store/sql.py's ``Sql``, the same text on both databases; ``kvdrill stats`` runs it on a
read-only ``sqlite3`` connection without loading SQLAlchemy (store/fast_stats.py), the stats
screen and PostgreSQL through ``Database.read``. The rows become the report in
store/stats_rows.py. The joins the rollups stand for are kept in tests/stats_oracle.py, which
the tests compare every figure with.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from datetime import date, timedelta
from typing import Any, Protocol

from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.stats_report import (
    DayCount,
    GroupReport,
    MistakeStats,
    StatsReport,
    TopicStats,
    WeekRetention,
    group_report,
    mark_same_cards,
    may_share_cards,
    streak,
)
from kvdrill.store.queries_sql import SCHEDULE_COLUMNS, stored_day, stored_schedule
from kvdrill.store.sql import Row, Sql
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

# Per profile and topic, over the recent window and the one before it: reviews, passed, first
# answers and failed ones (recent), first and failed first answers (previous), seconds, diagnosed
# mistakes. ``{profiles}``: one profile (``PROFILE_FILTER``) or every one (``EVERY_PROFILE``).
LOG_SQL = """
SELECT profile_id, kind, value,
  SUM(CASE WHEN study_day >= :recent THEN reviews ELSE 0 END),
  SUM(CASE WHEN study_day >= :recent THEN passed ELSE 0 END),
  SUM(CASE WHEN study_day >= :recent THEN firsts ELSE 0 END),
  SUM(CASE WHEN study_day >= :recent THEN failed_firsts ELSE 0 END),
  SUM(CASE WHEN study_day < :recent THEN firsts ELSE 0 END),
  SUM(CASE WHEN study_day < :recent THEN failed_firsts ELSE 0 END),
  SUM(CASE WHEN study_day >= :recent THEN seconds ELSE 0.0 END),
  SUM(CASE WHEN study_day >= :recent THEN diagnosed ELSE 0 END)
FROM topic_days
WHERE {profiles} AND study_day >= :previous AND study_day <= :today
GROUP BY profile_id, kind, value
"""

# Per profile and topic, of its live cards' states: reviews, lapses, easiness summed over the
# cards seen, cards seen, cards due by ``:due_by`` and not suspended, leeches.
STATES_SQL = """
SELECT profile_id, kind, value, SUM(reviews), SUM(lapses), SUM(easiness_sum), SUM(seen),
  SUM(CASE WHEN due_day <= :due_by AND NOT suspended THEN cards ELSE 0 END), SUM(leeches)
FROM topic_states
WHERE {profiles}
GROUP BY profile_id, kind, value
"""

PROFILE_FILTER = "profile_id = :profile"
EVERY_PROFILE = "1 = 1"

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

# Per study day: reviews, first answers, first answers passed (every card has one pack).
PER_DAY_SQL = """
SELECT study_day, SUM(reviews), SUM(firsts), SUM(firsts - failed_firsts)
FROM topic_days
WHERE profile_id = :profile AND kind = 'pack' AND study_day >= :start AND study_day <= :today
  AND reviews > 0
GROUP BY study_day
"""

FORECAST_SQL = """
SELECT due_day, SUM(cards) FROM topic_states
WHERE profile_id = :profile AND kind = 'pack' AND NOT suspended AND due_day <= :last
GROUP BY due_day
"""

STREAK_SQL = """
SELECT study_day FROM topic_days
WHERE profile_id = :profile AND kind = 'pack' AND reviews > 0 AND study_day <= :today
GROUP BY study_day ORDER BY study_day DESC LIMIT :limit
"""

TOTAL_SQL = "SELECT SUM(reviews) FROM topic_days WHERE profile_id = :profile AND kind = 'pack'"

# A fingerprint of each topic's live cards (count, smallest and largest id, sums of the ids and
# of their squares): equal for topics with the same cards. ``{where}``: the topics asked for.
CARD_SETS_SQL = """
SELECT card_topics.kind, card_topics.value, COUNT(card_topics.card_id),
  MIN(card_topics.card_id), MAX(card_topics.card_id), SUM(card_topics.card_id),
  SUM(card_topics.card_id * card_topics.card_id)
FROM card_topics JOIN cards ON cards.id = card_topics.card_id AND NOT cards.retired{where}
GROUP BY card_topics.kind, card_topics.value
"""

# The schedules of the seen, live, unsuspended cards due by ``:today``.
DUE_SCHEDULES_SQL = f"""
SELECT {", ".join(f"card_states.{name}" for name in SCHEDULE_COLUMNS)}
FROM card_states JOIN cards ON cards.id = card_states.card_id
WHERE card_states.profile_id = :profile AND card_states.reviews > 0
  AND NOT card_states.suspended AND card_states.due_day <= :today AND NOT cards.retired
"""

# Over every profile: per topic, reviews and reviews passed.
GROUP_REVIEWS_SQL = """
SELECT kind, value, SUM(reviews), SUM(passed) FROM topic_days
WHERE study_day >= :start AND study_day <= :today
GROUP BY kind, value
"""

PROFILE_IDS_SQL = "SELECT id FROM profiles ORDER BY id"


class Profile(Protocol):
    """What the report needs of a profile (the ORM's ``Profile`` has it)."""

    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...


def _dated(rows: Iterable[Row]) -> list[tuple[Any, ...]]:
    """Rows whose first column is a day, as ``date`` (SQLite stores ISO text)."""
    return [(stored_day(row[0]), *row[1:]) for row in rows]


def topic_stats(sql: Sql, profile_id: int, today: date, window_days: int) -> list[TopicStats]:
    """Every topic's figures over the window ending ``today``, weakest first."""
    of_profile = _topic_stats_by_profile(
        sql, PROFILE_FILTER, {"profile": profile_id}, today, window_days
    )
    return of_profile(profile_id)


def _topic_stats_by_profile(
    sql: Sql, profiles: str, params: dict[str, Any], today: date, window_days: int
) -> Callable[[int], list[TopicStats]]:
    """``topic_stats`` of a profile id, for the profiles ``profiles`` picks: each statement
    runs once for all of them (a profile with no rows gets its topics' empty figures)."""
    recent = today - timedelta(days=window_days - 1)
    previous = recent - timedelta(days=window_days)
    dates = {"today": sql.day(today), "recent": sql.day(recent), "previous": sql.day(previous)}
    log = _by_profile(sql.rows(LOG_SQL.format(profiles=profiles), {**params, **dates}))
    due_by = sql.day(today + timedelta(days=7))
    states = _by_profile(
        sql.rows(STATES_SQL.format(profiles=profiles), {**params, "due_by": due_by})
    )
    topic_cards = sql.rows(TOPIC_CARDS_SQL)

    def figures(profile_id: int) -> list[TopicStats]:
        return topics_from_rows(
            log_rows_from_rollup(log.get(profile_id, ())),
            state_rows_from_rollup(states.get(profile_id, ()), topic_cards),
        )

    return figures


def _by_profile(rows: Iterable[Row]) -> dict[int, list[Row]]:
    """Rows whose first column is a profile id, grouped by it (the id dropped)."""
    grouped: dict[int, list[Row]] = {}
    for row in rows:
        grouped.setdefault(int(row[0]), []).append(row[1:])
    return grouped


def topic_card_sets(
    sql: Sql, topics: Collection[tuple[str, str]] | None = None
) -> dict[tuple[str, str], tuple[int, ...]]:
    """Per topic (of ``topics`` if given), the fingerprint of its live cards."""
    if topics is None:
        return card_sets_from_rows(sql.rows(CARD_SETS_SQL.format(where="")))
    if not topics:
        return {}
    params: dict[str, Any] = {}
    for index, (kind, value) in enumerate(topics):
        params[f"kind_{index}"], params[f"value_{index}"] = kind, value
    pairs = ", ".join(f"(:kind_{index}, :value_{index})" for index in range(len(topics)))
    where = f"\nWHERE (card_topics.kind, card_topics.value) IN (VALUES {pairs})"
    return card_sets_from_rows(sql.rows(CARD_SETS_SQL.format(where=where), params))


def mistake_stats(sql: Sql, profile_id: int, today: date, window_days: int) -> list[MistakeStats]:
    recent = today - timedelta(days=window_days - 1)
    counts = sql.rows(
        MISTAKE_COUNTS_SQL,
        {"profile": profile_id, "recent": sql.day(recent), "today": sql.day(today)},
    )
    last = sql.rows(LAST_MISTAKES_SQL, {"profile": profile_id, "limit": LAST_MISTAKES})
    return mistakes_from({code: int(count) for code, count in counts}, [code for (code,) in last])


def daily_counts(
    sql: Sql, profile_id: int, today: date
) -> tuple[list[DayCount], list[WeekRetention]]:
    """Reviews per day over the last 12 weeks, and weekly retention of first answers."""
    params = {
        "profile": profile_id,
        "start": sql.day(heatmap_start(today)),
        "today": sql.day(today),
    }
    per_day = per_day_from_rows(_dated(sql.rows(PER_DAY_SQL, params)))
    return heatmap_and_retention(per_day, today)


def forecast(sql: Sql, profile_id: int, today: date) -> list[DayCount]:
    """Cards due on each of the next 30 days; anything overdue is due today."""
    last = sql.day(today + timedelta(days=FORECAST_DAYS - 1))
    return forecast_from(
        _dated(sql.rows(FORECAST_SQL, {"profile": profile_id, "last": last})), today
    )


def study_streak(sql: Sql, profile_id: int, today: date) -> int:
    """Consecutive study days with a review, ending today (or yesterday)."""
    params = {"profile": profile_id, "today": sql.day(today), "limit": STREAK_DAYS_READ}
    return streak([day for (day,) in _dated(sql.rows(STREAK_SQL, params))], today)


def total_reviews(sql: Sql, profile_id: int) -> int:
    row = sql.first(TOTAL_SQL, {"profile": profile_id})
    return int(row[0] or 0) if row is not None else 0


def due_schedules(sql: Sql, profile_id: int, today: date) -> list[Schedule]:
    """The schedules of the seen, live, unsuspended cards due on ``today`` or before."""
    rows = sql.rows(DUE_SCHEDULES_SQL, {"profile": profile_id, "today": sql.day(today)})
    return [stored_schedule(row) for row in rows]


def build_report(sql: Sql, profile: Profile, today: date, window_days: int = 30) -> StatsReport:
    """The report of ``profile`` for study day ``today`` (without its predicted recall, which
    app/services/stats.py computes from ``due_schedules``)."""
    heatmap, retention = daily_counts(sql, profile.id, today)
    topics = topic_stats(sql, profile.id, today, window_days)
    return StatsReport(
        profile=profile.name,
        today=today,
        window_days=window_days,
        total_reviews=total_reviews(sql, profile.id),
        streak_days=study_streak(sql, profile.id, today),
        topics=mark_same_cards(topics, topic_card_sets(sql, may_share_cards(topics))),
        mistakes=mistake_stats(sql, profile.id, today, window_days),
        heatmap=heatmap,
        forecast=forecast(sql, profile.id, today),
        retention=retention,
    )


def group_reviews(sql: Sql, start: date, today: date) -> dict[tuple[str, str], tuple[int, int]]:
    """Per topic, over every profile: reviews from ``start`` to ``today``, and those passed."""
    rows = sql.rows(GROUP_REVIEWS_SQL, {"start": sql.day(start), "today": sql.day(today)})
    return {
        (kind, value): (int(reviews), int(passed or 0))
        for kind, value, reviews, passed in rows
        if reviews
    }


def build_group_report(sql: Sql, today: date, window_days: int = 30) -> GroupReport:
    """The weak topics of every profile in the database, as counts (no names, no notes)."""
    profile_ids = [int(profile_id) for (profile_id,) in sql.rows(PROFILE_IDS_SQL)]
    of_profile = _topic_stats_by_profile(sql, EVERY_PROFILE, {}, today, window_days)
    per_learner = [of_profile(profile_id) for profile_id in profile_ids]
    start = today - timedelta(days=window_days - 1)
    return group_report(today, window_days, per_learner, group_reviews(sql, start, today))
