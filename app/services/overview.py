"""The home screen's overview: due and new cards per pack, today's reviews, streak, weak topics."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING

from kvdrill.engine.study.clock import study_day

if TYPE_CHECKING:
    from kvdrill.store.db import Database

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


def load_overview(database: Database, profile_name: str, now: datetime) -> Overview:
    """Due and new cards per pack, today's reviews and the streak, for the home screen."""
    from kvdrill.engine.study.stats_report import mark_same_cards
    from kvdrill.store.day_queue import today_log
    from kvdrill.store.db import session_sql
    from kvdrill.store.overview import pack_counts, reviews_on, suspended_count
    from kvdrill.store.profiles import profile_for_reading, profile_settings
    from kvdrill.store.stats import study_streak, topic_card_sets, topic_stats

    with database.session() as session:
        profile = profile_for_reading(session, profile_name, now)
        today = study_day(now, profile.rollover_hour)
        language = profile_settings(profile).language
        counts, _missed = today_log(session, profile, today)
        packs = [
            PackLine(*line) for line in pack_counts(session, profile.id, today, language, counts)
        ]
        titles = {line.key: line.title for line in packs}
        sql = session_sql(session)
        topics = mark_same_cards(
            topic_stats(sql, profile.id, today, WEAK_WINDOW_DAYS), topic_card_sets(sql)
        )
        weak = [
            topic_name(topic.kind, topic.topic, titles)
            for topic in topics
            if topic.score is not None and topic.score > 0 and topic.same_cards_as is None
        ][:WEAK_TOPICS_SHOWN]
        new_left = max(0, counts.new_per_day - counts.new_done_today)
        return Overview(
            profile=profile.name,
            today=today,
            packs=packs,
            reviewed_today=reviews_on(session, profile.id, today),
            new_today=min(new_left, sum(line.new for line in packs)),
            streak_days=study_streak(sql, profile.id, today),
            weak_topics=weak,
            answer_seconds=profile.answer_seconds,
            suspended=suspended_count(session, profile.id),
        )
