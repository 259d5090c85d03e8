"""The stats charts' data: reviews and minutes per study day, the interval distribution of the
cards seen, and retention over time (the report's weekly retention). Pure."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import NamedTuple

from kvdrill.engine.study.stats_report import WeekRetention
from kvdrill.i18n import N_

CHART_DAYS = 30  # reviews and minutes per day over the last month
# Interval buckets: (label, the longest interval in days it holds); the last holds the rest.
# The labels are translated where the chart is drawn (at most 5 characters).
INTERVAL_BUCKETS = (
    (N_("1d"), 1),
    (N_("2-3d"), 3),
    (N_("4-7d"), 7),
    (N_("1-2w"), 14),
    (N_("2-4w"), 30),
    (N_("1-3m"), 90),
)
LONGEST_BUCKET = N_("3m+")


class DayActivity(NamedTuple):
    day: date
    reviews: int
    minutes: float


class ChartData(NamedTuple):
    days: list[DayActivity]  # the last CHART_DAYS study days, oldest first, idle days too
    intervals: list[tuple[str, int]]  # (bucket label, cards), shortest first
    retention: list[WeekRetention]  # oldest week first


def day_activity(rows: Iterable[tuple[date, int, float]], today: date) -> list[DayActivity]:
    """(day, reviews, seconds) rows as one entry per day of the last ``CHART_DAYS``."""
    found = {day: (int(reviews), float(seconds or 0)) for day, reviews, seconds in rows}
    first = today - timedelta(days=CHART_DAYS - 1)
    days = [first + timedelta(days=offset) for offset in range(CHART_DAYS)]
    return [
        DayActivity(day, found.get(day, (0, 0.0))[0], found.get(day, (0, 0.0))[1] / 60)
        for day in days
    ]


def interval_buckets(rows: Iterable[tuple[int, int]]) -> list[tuple[str, int]]:
    """(interval in days, cards) rows counted into ``INTERVAL_BUCKETS``."""
    counts = dict.fromkeys([label for label, _ in INTERVAL_BUCKETS] + [LONGEST_BUCKET], 0)
    for interval, cards in rows:
        label = next((label for label, most in INTERVAL_BUCKETS if interval <= most), None)
        counts[label or LONGEST_BUCKET] += int(cards)
    return list(counts.items())
