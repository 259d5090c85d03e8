"""The stats report of a profile's current study day, and the group's weak topics (``kvdrill
stats [--group]`` and the stats screen)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.stats_report import GroupReport, StatsReport

if TYPE_CHECKING:
    from kvdrill.engine.study.charts import ChartData
    from kvdrill.engine.study.schedule import Schedule
    from kvdrill.engine.study.settings import ProfileSettings
    from kvdrill.store.db import Database
    from kvdrill.store.sql import Sql

DEFAULT_WINDOW_DAYS = 30


def load_report(
    database: Database, profile_name: str, now: datetime, window_days: int = DEFAULT_WINDOW_DAYS
) -> StatsReport:
    """Weak topics, mistakes, heatmap, forecast and retention for the study day of ``now``."""
    from kvdrill.store.profiles import profile_for_reading, profile_settings
    from kvdrill.store.stats import build_report, due_schedules

    with database.session() as session:
        profile = profile_for_reading(session, profile_name, now)
        settings = profile_settings(profile)
    today = study_day(now, profile.rollover_hour)
    report, due = database.read(
        lambda sql: (
            build_report(sql, profile, today, window_days),
            due_schedules(sql, profile.id, today),
        )
    )
    return with_predicted_recall(report, due, now, settings)


def load_charts(
    database: Database, profile_name: str, now: datetime, report: StatsReport
) -> ChartData:
    """The stats charts of the study day of ``now`` (``report``: that day's, for retention)."""
    from kvdrill.store.charts import read_charts
    from kvdrill.store.profiles import profile_for_reading

    with database.session() as session:
        profile = profile_for_reading(session, profile_name, now)
    today = study_day(now, profile.rollover_hour)
    return database.read(lambda sql: read_charts(sql, profile.id, today, report.retention))


def with_predicted_recall(
    report: StatsReport, due: list[Schedule], now: datetime, settings: ProfileSettings
) -> StatsReport:
    """``report`` with the mean predicted recall of its ``due`` cards at ``now``."""
    from kvdrill.engine.study.fsrs_memory import recall_of_due

    recall = recall_of_due(
        due, now, settings.scheduler, settings.desired_retention, settings.fsrs_parameters
    )
    return report.model_copy(update={"predicted_recall": recall})


def fast_report(
    database_url: str | None, profile_name: str, now: datetime, window_days: int
) -> StatsReport | None:
    """The report ``load_report`` gives, read with ``sqlite3`` alone (no SQLAlchemy import)
    from a SQLite file at the current schema with this profile in it; None otherwise (a
    PostgreSQL URL, no file yet, an older schema, a new profile): then use ``load_report``."""
    found = fast_report_and_charts(database_url, profile_name, now, window_days)
    return found[0] if found is not None else None


def fast_report_and_charts(
    database_url: str | None, profile_name: str, now: datetime, window_days: int
) -> tuple[StatsReport, ChartData] | None:
    """``fast_report`` and the charts ``load_charts`` gives, read in the same way."""
    from kvdrill.app.services import environment
    from kvdrill.store.fast_stats import read_report

    read = read_report(
        environment.database_url(database_url),
        profile_name,
        lambda rollover_hour: study_day(now, rollover_hour),
        window_days,
    )
    if read is None:
        return None
    return with_predicted_recall(read.report, read.due, now, read.settings), read.charts


def load_group_report(
    database: Database, profile_name: str, now: datetime, window_days: int = DEFAULT_WINDOW_DAYS
) -> GroupReport:
    """Every profile's weak topics as counts (no names, no notes), over the window ending on
    this profile's study day of ``now``."""
    return database.read(lambda sql: _group_report(sql, profile_name, now, window_days))


def fast_group_report(
    database_url: str | None, profile_name: str, now: datetime, window_days: int
) -> GroupReport | None:
    """``load_group_report`` read without SQLAlchemy (a PostgreSQL database through psycopg
    alone, a SQLite file through ``sqlite3``); None when the store must open the database."""
    from kvdrill.app.services import environment
    from kvdrill.store.pg_sql import read_postgresql
    from kvdrill.store.plain_reads import read_sqlite_file

    url = environment.database_url(database_url)

    def report(sql: Sql) -> GroupReport:
        return _group_report(sql, profile_name, now, window_days)

    found = read_postgresql(url, report)
    return found if found is not None else read_sqlite_file(url, report)


def _group_report(sql: Sql, profile_name: str, now: datetime, window_days: int) -> GroupReport:
    from kvdrill.store.plain_reads import settings_of
    from kvdrill.store.stats import build_group_report

    today = study_day(now, settings_of(sql, profile_name).rollover_hour)
    return build_group_report(sql, today, window_days)
