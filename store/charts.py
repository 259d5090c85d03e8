"""The stats charts' reads: reviews and seconds per study day (the rollups), and the cards
seen by interval. The shaping is the engine's (engine/study/charts.py)."""

from __future__ import annotations

from datetime import date, timedelta

from kvdrill.engine.study.charts import CHART_DAYS, ChartData, day_activity, interval_buckets
from kvdrill.engine.study.stats_report import WeekRetention
from kvdrill.store.queries_sql import stored_day
from kvdrill.store.sql import Sql

# Every review counts once under its card's one pack.
ACTIVITY_SQL = """
SELECT study_day, SUM(reviews), SUM(seconds) FROM topic_days
WHERE profile_id = :profile AND kind = 'pack' AND study_day >= :start AND study_day <= :today
GROUP BY study_day
"""

INTERVALS_SQL = """
SELECT interval_days, COUNT(*) FROM card_states
WHERE profile_id = :profile AND reviews > 0 AND NOT suspended
GROUP BY interval_days
"""


def read_charts(
    sql: Sql, profile_id: int, today: date, retention: list[WeekRetention]
) -> ChartData:
    """The charts of ``profile_id`` on study day ``today``; ``retention`` from its report."""
    params = {
        "profile": profile_id,
        "start": sql.day(today - timedelta(days=CHART_DAYS - 1)),
        "today": sql.day(today),
    }
    activity = [
        (day, reviews, seconds)
        for stored, reviews, seconds in sql.rows(ACTIVITY_SQL, params)
        if (day := stored_day(stored)) is not None  # a rollup row always has its day
    ]
    intervals = sql.rows(INTERVALS_SQL, {"profile": profile_id})
    return ChartData(
        day_activity(activity, today),
        interval_buckets((int(days or 0), int(cards)) for days, cards in intervals),
        retention,
    )
