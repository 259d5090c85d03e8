"""The stats report read with ``sqlite3`` alone, without importing SQLAlchemy or Alembic.

``kvdrill stats`` tries this first: it opens the file read-only as the store opens every SQLite
file (store/sqlite_file.py ``open_current``) and builds the report with the store's own
statements (store/stats.py ``build_report``), so the report is the store's. Only the common case:
a SQLite file at the current schema revision with the profile in it; otherwise None, and the
caller opens the store. The predicted recall is the service's to compute (app/services/stats.py),
from the profile's settings and due schedules this reader hands back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import NamedTuple

from kvdrill.engine.study.charts import ChartData
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.settings import ProfileSettings
from kvdrill.engine.study.stats_report import StatsReport
from kvdrill.store.charts import read_charts
from kvdrill.store.queries_sql import PROFILE_SQL, stored_settings
from kvdrill.store.sql import Sql
from kvdrill.store.sqlite_file import read_current
from kvdrill.store.stats import build_report, due_schedules


class FastStats(NamedTuple):
    """The report without its predicted recall, and what the service computes that from."""

    report: StatsReport
    settings: ProfileSettings
    due: list[Schedule]
    charts: ChartData


class _Profile(NamedTuple):
    id: int
    name: str


def read_report(
    database_url: str, profile_name: str, today_of: Callable[[int], date], window_days: int
) -> FastStats | None:
    """The report ``store.stats.build_report`` gives, or None when this reader cannot read it
    (store/sqlite_file.py ``read_current``: the file quick-checked as the store's open checks
    it, so a damaged file is not reported from whatever its readable pages hold).

    ``today_of(rollover_hour)`` gives the study day: the caller owns the clock.
    """

    def report(sql: Sql) -> FastStats | None:
        found = sql.first_named(PROFILE_SQL, {"name": profile_name})
        if found is None:
            return None  # the store creates the profile
        profile = _Profile(found["id"], profile_name)
        today = today_of(found["rollover_hour"])
        report = build_report(sql, profile, today, window_days)
        due = due_schedules(sql, profile.id, today)
        charts = read_charts(sql, profile.id, today, report.retention)
        return FastStats(report, stored_settings(found), due, charts)

    return read_current(database_url, report)
