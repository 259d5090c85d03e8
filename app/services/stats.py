"""The stats report of a profile's current study day, and the group's weak topics (``kvdrill
stats [--group]`` and the stats screen)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.stats_report import GroupReport, StatsReport

if TYPE_CHECKING:
    from kvdrill.store.db import Database

DEFAULT_WINDOW_DAYS = 30


def load_report(
    database: Database, profile_name: str, now: datetime, window_days: int = DEFAULT_WINDOW_DAYS
) -> StatsReport:
    """Weak topics, mistakes, heatmap, forecast and retention for the study day of ``now``."""
    from kvdrill.engine.study.fsrs_memory import recall_of_due
    from kvdrill.store.profiles import get_or_create_profile, profile_settings
    from kvdrill.store.scheduler_switch import due_schedules
    from kvdrill.store.stats import build_report

    with database.session() as session:
        profile = get_or_create_profile(session, profile_name, now)
        today = study_day(now, profile.rollover_hour)
        report = build_report(session, profile, today, window_days)
        settings = profile_settings(profile)
        recall = recall_of_due(
            due_schedules(session, profile.id, today),
            now,
            settings.scheduler,
            settings.desired_retention,
        )
        return report.model_copy(update={"predicted_recall": recall})


def load_group_report(
    database: Database, profile_name: str, now: datetime, window_days: int = DEFAULT_WINDOW_DAYS
) -> GroupReport:
    """Every profile's weak topics as counts (no names, no notes), over the window ending on
    this profile's study day of ``now``."""
    from kvdrill.store.profiles import get_or_create_profile
    from kvdrill.store.stats import build_group_report

    with database.session() as session:
        profile = get_or_create_profile(session, profile_name, now)
        return build_group_report(session, study_day(now, profile.rollover_hour), window_days)
