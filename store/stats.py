"""Stats on weak topics, computed with SQL aggregates on indexed columns.

The review log is never loaded into Python: each figure is a GROUP BY over ``review_log``
(index on profile and study day) or ``card_states`` joined to ``card_topics``. Only the
windows the report needs are scanned: the recent window and the one before it, and 12 weeks of
daily counts.
"""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session

from engine.stats_report import (
    DayCount,
    MistakeStats,
    StatsReport,
    TopicStats,
    WeekRetention,
    mistake_words,
    rank_topics,
    streak,
    weak_score,
)
from store.models import Card, CardState, CardTopic, Profile, ReviewLog

HEATMAP_WEEKS = 12
FORECAST_DAYS = 30
LAST_MISTAKES = 10


def _ratio(part: int | None, whole: int | None) -> float | None:
    return round(part / whole, 4) if whole else None


def _is_true(column):
    return case((column, 1), else_=0)


def topic_stats(
    session: Session, profile_id: int, today: date, window_days: int
) -> list[TopicStats]:
    recent_start = today - timedelta(days=window_days - 1)
    previous_start = recent_start - timedelta(days=window_days)
    recent = ReviewLog.study_day >= recent_start
    first = ReviewLog.moved_schedule.is_(True)
    failed = ReviewLog.quality < 3

    log_rows = session.execute(
        select(
            CardTopic.kind,
            CardTopic.value,
            func.sum(_is_true(recent)),
            func.sum(_is_true(and_(recent, ReviewLog.quality >= 3))),
            func.sum(_is_true(and_(recent, first))),
            func.sum(_is_true(and_(recent, first, failed))),
            func.sum(_is_true(and_(~recent, first))),
            func.sum(_is_true(and_(~recent, first, failed))),
            func.avg(case((recent, ReviewLog.seconds))),
            func.sum(_is_true(and_(recent, ReviewLog.mistake.is_not(None)))),
        )
        .join(CardTopic, CardTopic.card_id == ReviewLog.card_id)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.study_day >= previous_start)
        .where(ReviewLog.study_day <= today)
        .group_by(CardTopic.kind, CardTopic.value)
    ).all()
    by_topic = {(row[0], row[1]): row[2:] for row in log_rows}

    due_soon = and_(
        CardState.due_day.is_not(None),
        CardState.due_day <= today + timedelta(days=7),
        CardState.suspended.is_(False),
    )
    state_rows = session.execute(
        select(
            CardTopic.kind,
            CardTopic.value,
            func.count(Card.id),
            func.coalesce(func.sum(CardState.reviews), 0),
            func.coalesce(func.sum(CardState.lapses), 0),
            func.avg(case((CardState.reviews > 0, CardState.easiness_milli))),
            func.sum(_is_true(due_soon)),
            func.sum(_is_true(CardState.leech.is_(True))),
        )
        .join(Card, and_(Card.id == CardTopic.card_id, Card.retired.is_(False)))
        .outerjoin(
            CardState,
            and_(CardState.card_id == Card.id, CardState.profile_id == profile_id),
        )
        .group_by(CardTopic.kind, CardTopic.value)
    ).all()

    topics = []
    for kind, value, cards, reviews, lapses, easiness_milli, due7, leeches in state_rows:
        (
            n_recent,
            ok_recent,
            first_recent,
            failed_recent,
            first_previous,
            failed_previous,
            mean_seconds,
            diagnosed,
        ) = by_topic.get((kind, value), (0, 0, 0, 0, 0, 0, None, 0))
        n_recent, diagnosed = int(n_recent or 0), int(diagnosed or 0)
        lapse_rate = _ratio(failed_recent, first_recent)
        previous_rate = _ratio(failed_previous, first_previous)
        mean_easiness = None if easiness_milli is None else round(easiness_milli / 1000, 3)
        topics.append(
            TopicStats(
                kind=kind,
                topic=value,
                cards=cards,
                reviews=int(reviews),
                recent_reviews=n_recent,
                accuracy=_ratio(ok_recent, n_recent),
                lapses=int(lapses),
                lapse_rate=lapse_rate,
                previous_lapse_rate=previous_rate,
                trend=None
                if lapse_rate is None or previous_rate is None
                else round(lapse_rate - previous_rate, 4),
                mean_easiness=mean_easiness,
                mean_seconds=None if mean_seconds is None else round(mean_seconds, 1),
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


def mistake_stats(
    session: Session, profile_id: int, today: date, window_days: int
) -> list[MistakeStats]:
    recent_start = today - timedelta(days=window_days - 1)
    counts = dict(
        session.execute(
            select(ReviewLog.mistake, func.count())
            .where(
                ReviewLog.profile_id == profile_id,
                ReviewLog.study_day >= recent_start,
                ReviewLog.study_day <= today,
                ReviewLog.mistake.is_not(None),
            )
            .group_by(ReviewLog.mistake)
        ).all()
    )
    last = session.scalars(
        select(ReviewLog.mistake)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.mistake.is_not(None))
        .order_by(ReviewLog.reviewed_at.desc())
        .limit(LAST_MISTAKES)
    ).all()
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


def daily_counts(
    session: Session, profile_id: int, today: date
) -> tuple[list[DayCount], list[WeekRetention]]:
    """Reviews per day over the last 12 weeks, and weekly retention of first answers."""
    start = today - timedelta(days=HEATMAP_WEEKS * 7 - 1)
    first = ReviewLog.moved_schedule.is_(True)
    rows = session.execute(
        select(
            ReviewLog.study_day,
            func.count(),
            func.sum(_is_true(first)),
            func.sum(_is_true(and_(first, ReviewLog.quality >= 3))),
        )
        .where(
            ReviewLog.profile_id == profile_id,
            ReviewLog.study_day >= start,
            ReviewLog.study_day <= today,
        )
        .group_by(ReviewLog.study_day)
    ).all()
    per_day = {row[0]: row[1:] for row in rows}
    heatmap = [
        DayCount(day=day, reviews=per_day.get(day, (0,))[0])
        for day in (start + timedelta(days=i) for i in range(HEATMAP_WEEKS * 7))
    ]
    retention = []
    for week in range(HEATMAP_WEEKS):
        week_start = start + timedelta(days=7 * week)
        days = [per_day.get(week_start + timedelta(days=i)) for i in range(7)]
        firsts = sum(int(d[1] or 0) for d in days if d)
        passed = sum(int(d[2] or 0) for d in days if d)
        retention.append(
            WeekRetention(week_start=week_start, reviews=firsts, retention=_ratio(passed, firsts))
        )
    return heatmap, retention


def forecast(session: Session, profile_id: int, today: date) -> list[DayCount]:
    """Cards due on each of the next 30 days; anything overdue is due today."""
    last = today + timedelta(days=FORECAST_DAYS - 1)
    rows = session.execute(
        select(CardState.due_day, func.count())
        .join(Card, and_(Card.id == CardState.card_id, Card.retired.is_(False)))
        .where(
            CardState.profile_id == profile_id,
            CardState.suspended.is_(False),
            CardState.due_day.is_not(None),
            CardState.due_day <= last,
        )
        .group_by(CardState.due_day)
    ).all()
    per_day: dict[date, int] = {}
    for day, count in rows:
        key = max(day, today)
        per_day[key] = per_day.get(key, 0) + count
    return [
        DayCount(day=day, reviews=per_day.get(day, 0))
        for day in (today + timedelta(days=i) for i in range(FORECAST_DAYS))
    ]


def study_streak(session: Session, profile_id: int, today: date) -> int:
    days = session.scalars(
        select(ReviewLog.study_day)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.study_day <= today)
        .group_by(ReviewLog.study_day)
        .order_by(ReviewLog.study_day.desc())
        .limit(3660)
    ).all()
    return streak(list(days), today)


def build_report(
    session: Session, profile: Profile, today: date, window_days: int = 30
) -> StatsReport:
    heatmap, retention = daily_counts(session, profile.id, today)
    total = session.scalar(
        select(func.count()).select_from(ReviewLog).where(ReviewLog.profile_id == profile.id)
    )
    return StatsReport(
        profile=profile.name,
        today=today,
        window_days=window_days,
        total_reviews=int(total or 0),
        streak_days=study_streak(session, profile.id, today),
        topics=topic_stats(session, profile.id, today, window_days),
        mistakes=mistake_stats(session, profile.id, today, window_days),
        heatmap=heatmap,
        forecast=forecast(session, profile.id, today),
        retention=retention,
    )


__all__ = ["build_report"]
