"""The stats report assembled from query rows, shared by the SQLAlchemy queries (store/stats.py)
and the standard-library SQLite reader (store/fast_stats.py). No SQL and no SQLAlchemy here, so
the fast reader stays free of it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from kvdrill.engine.study.stats_report import (
    DayCount,
    MistakeStats,
    TopicStats,
    WeekRetention,
    mistake_words,
    rank_topics,
    weak_score,
)

HEATMAP_WEEKS = 12
FORECAST_DAYS = 30
LAST_MISTAKES = 10
# Study days read back for a streak: ten years, more than any streak needs.
STREAK_DAYS_READ = 3660

LogRow = tuple[int, int, int, int, int, int, float | None, int]
StateRow = tuple[int, int, float | None, int, int]


def _ratio(part: int | None, whole: int | None) -> float | None:
    return round(part / whole, 4) if whole and part is not None else None


def log_rows_from_rollup(rows: Iterable) -> dict[tuple[str, str], LogRow]:
    """``topic_days`` sums per topic, with the seconds summed turned into a mean."""
    return {
        (kind, value): (n, ok, firsts, failed, p_firsts, p_failed, seconds / n if n else None, dx)
        for kind, value, n, ok, firsts, failed, p_firsts, p_failed, seconds, dx in rows
    }


def state_rows_from_rollup(
    rows: Iterable, topic_cards: Iterable
) -> dict[tuple[str, str], tuple[int, StateRow]]:
    """``topic_states`` sums per topic joined (in Python) to the live cards per topic."""
    states = {
        (kind, value): (reviews, lapses, easiness / seen if seen else None, due, leeches)
        for kind, value, reviews, lapses, easiness, seen, due, leeches in rows
    }
    empty = (0, 0, None, 0, 0)
    return {
        (kind, value): (cards, states.get((kind, value), empty))
        for kind, value, cards in topic_cards
    }


def topics_from_rows(
    log_rows: dict[tuple[str, str], LogRow], state_rows: dict[tuple[str, str], tuple[int, StateRow]]
) -> list[TopicStats]:
    topics = []
    for (kind, value), (cards, state) in state_rows.items():
        reviews, lapses, easiness_milli, due7, leeches = state
        (
            n_recent,
            ok_recent,
            first_recent,
            failed_recent,
            first_previous,
            failed_previous,
            mean_seconds,
            diagnosed,
        ) = log_rows.get((kind, value), (0, 0, 0, 0, 0, 0, None, 0))
        n_recent, diagnosed = int(n_recent or 0), int(diagnosed or 0)
        lapse_rate = _ratio(failed_recent, first_recent)
        previous_rate = _ratio(failed_previous, first_previous)
        # float(): PostgreSQL's AVG of integers is a Decimal.
        mean_easiness = None if easiness_milli is None else round(float(easiness_milli) / 1000, 3)
        topics.append(
            TopicStats(
                kind=kind,
                topic=value,
                cards=cards,
                reviews=int(reviews or 0),
                recent_reviews=n_recent,
                accuracy=_ratio(ok_recent, n_recent),
                lapses=int(lapses or 0),
                lapse_rate=lapse_rate,
                previous_lapse_rate=previous_rate,
                trend=None
                if lapse_rate is None or previous_rate is None
                else round(lapse_rate - previous_rate, 4),
                mean_easiness=mean_easiness,
                mean_seconds=None if mean_seconds is None else round(float(mean_seconds), 1),
                due_next_7_days=int(due7 or 0),
                leeches=int(leeches or 0),
                diagnosed_mistakes=diagnosed,
                score=weak_score(
                    int(first_recent or 0),
                    int(failed_recent or 0),
                    mean_easiness,
                    n_recent,
                    diagnosed,
                ),
            )
        )
    return rank_topics(topics)


def mistakes_from(counts: dict[str, int], last: list[str]) -> list[MistakeStats]:
    """Mistakes in the recent window and among the last ``LAST_MISTAKES``, most frequent first."""
    codes = set(counts) | set(last)
    rows = [
        MistakeStats(
            code=code,
            words=mistake_words(code),
            recent=counts.get(code, 0),
            of_last_10=last.count(code),
        )
        for code in codes
    ]
    return sorted(rows, key=lambda m: (-m.of_last_10, -m.recent, m.code))


def heatmap_start(today: date) -> date:
    return today - timedelta(days=HEATMAP_WEEKS * 7 - 1)


def per_day_from_rows(rows: Iterable) -> dict[date, tuple[int, int, int]]:
    return {day: (int(n), int(firsts or 0), int(passed or 0)) for day, n, firsts, passed in rows}


def heatmap_and_retention(
    per_day: dict[date, tuple[int, int, int]], today: date
) -> tuple[list[DayCount], list[WeekRetention]]:
    start = heatmap_start(today)
    no_reviews = (0, 0, 0)
    heatmap = [
        DayCount(day=day, reviews=per_day.get(day, no_reviews)[0])
        for day in (start + timedelta(days=i) for i in range(HEATMAP_WEEKS * 7))
    ]
    retention = []
    for week in range(HEATMAP_WEEKS):
        week_start = start + timedelta(days=7 * week)
        days = [per_day.get(week_start + timedelta(days=i), no_reviews) for i in range(7)]
        firsts = sum(d[1] for d in days)
        passed = sum(d[2] for d in days)
        retention.append(
            WeekRetention(week_start=week_start, reviews=firsts, retention=_ratio(passed, firsts))
        )
    return heatmap, retention


def forecast_from(rows: Iterable, today: date) -> list[DayCount]:
    """Due counts per day for the next ``FORECAST_DAYS``; overdue cards count as due today."""
    per_day: dict[date, int] = {}
    for day, count in rows:
        key = max(day, today)
        per_day[key] = per_day.get(key, 0) + int(count)
    return [
        DayCount(day=day, reviews=per_day.get(day, 0))
        for day in (today + timedelta(days=i) for i in range(FORECAST_DAYS))
    ]


def card_sets_from_rows(rows: Iterable) -> dict[tuple[str, str], tuple[int, ...]]:
    """Per topic, the fingerprint of its live cards (``store.stats.topic_card_sets``)."""
    return {(row[0], row[1]): tuple(int(value) for value in row[2:]) for row in rows}
