"""The home screen's overview: due and new cards per pack, today's reviews, streak, weak topics."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING

from kvdrill.engine.study.clock import study_day

if TYPE_CHECKING:
    from kvdrill.store.sql import Sql

# The home screen's glance at weak topics: the stats screen's ranking, top few, last 30 days.
WEAK_WINDOW_DAYS = 30
WEAK_TOPICS_SHOWN = 3


@dataclass(frozen=True)
class PackLine:
    """One pack on the home screen."""

    key: str
    title: str
    due: int
    new: int
    total: int


@dataclass(frozen=True)
class Overview:
    """Everything the home screen shows."""

    profile: str
    today: date
    packs: list[PackLine]
    reviewed_today: int
    new_today: int  # new cards today's session will still bring (the daily limit applied)
    streak_days: int
    answer_seconds: int
    weak_topics: list[str] = field(default_factory=list)
    suspended: int = 0  # cards set aside until the learner brings them back


def topic_name(kind: str, value: str, pack_titles: dict[str, str] | None = None) -> str:
    """A topic with its kind: ``lesson 17``, ``tag kv-cache``, ``pack Memory and capacity``."""
    if kind == "pack":
        return f"pack {(pack_titles or {}).get(value, value)}"
    return f"{kind} {value}"


def load_overview(
    read: Callable[[Callable[[Sql], Overview]], Overview], profile_name: str, now: datetime
) -> Overview:
    """Due and new cards per pack, today's reviews and the streak, for the home screen, read
    by ``read`` (``Services.read``: a SQLite file through ``sqlite3`` alone, without loading
    SQLAlchemy; any other database through the store's ``Database.read``)."""
    return read(lambda sql: _overview(sql, profile_name, now))


def _overview(sql: Sql, profile_name: str, now: datetime) -> Overview:
    from kvdrill.engine.study.stats_report import mark_same_cards
    from kvdrill.store.overview import pack_counts, reviews_on, suspended_count
    from kvdrill.store.plain_reads import profile_of
    from kvdrill.store.queries_sql import read_day_counts
    from kvdrill.store.stats import study_streak, topic_card_sets, topic_stats

    profile_id, settings = profile_of(sql, profile_name)
    today = study_day(now, settings.rollover_hour)
    counts, _missed = read_day_counts(
        sql.rows, profile_id, today, settings.new_per_day, settings.reviews_per_day
    )
    packs = [
        PackLine(*line) for line in pack_counts(sql, profile_id, today, settings.language, counts)
    ]
    titles = {line.key: line.title for line in packs}
    topics = mark_same_cards(
        topic_stats(sql, profile_id, today, WEAK_WINDOW_DAYS), topic_card_sets(sql)
    )
    weak = [
        topic_name(topic.kind, topic.topic, titles)
        for topic in topics
        if topic.score is not None and topic.score > 0 and topic.same_cards_as is None
    ][:WEAK_TOPICS_SHOWN]
    new_left = max(0, counts.new_per_day - counts.new_done_today)
    return Overview(
        profile=profile_name,
        today=today,
        packs=packs,
        reviewed_today=reviews_on(sql, profile_id, today),
        new_today=min(new_left, sum(line.new for line in packs)),
        streak_days=study_streak(sql, profile_id, today),
        weak_topics=weak,
        answer_seconds=settings.answer_seconds,
        suspended=suspended_count(sql, profile_id),
    )
