"""The stats figures computed the slow, obvious way: every one a join of the review log and the
card states to the topics, through SQLAlchemy Core. The rollup tables (store/rollups.py) are by
definition these joins' GROUP BY; tests compare store/stats.py's figures, read from the
rollups, with these (beside ``rollups.rebuild``)."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session

from kvdrill.engine.study.stats_report import (
    DayCount,
    GroupReport,
    StatsReport,
    TopicStats,
    group_report,
    mark_same_cards,
    may_share_cards,
    streak,
)
from kvdrill.store.db import session_sql
from kvdrill.store.models import Card, CardState, CardTopic, Profile, ReviewLog
from kvdrill.store.stats import mistake_stats, topic_card_sets
from kvdrill.store.stats_rows import (
    FORECAST_DAYS,
    STREAK_DAYS_READ,
    LogRow,
    StateRow,
    forecast_from,
    heatmap_and_retention,
    heatmap_start,
    per_day_from_rows,
    topics_from_rows,
)


def _is_true(column):
    return case((column, 1), else_=0)


def _log_by_join(
    session: Session, profile_id: int, today: date, recent_start: date, previous_start: date
) -> dict[tuple[str, str], LogRow]:
    """Per topic: recent reviews, passed, first answers, failed first answers; the previous
    window's first and failed first answers; mean seconds; diagnosed mistakes."""
    recent = ReviewLog.study_day >= recent_start
    first = ReviewLog.moved_schedule.is_(True)
    failed = ReviewLog.quality < 3
    rows = session.execute(
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
    return {(row[0], row[1]): tuple(row[2:]) for row in rows}


def _states_by_join(
    session: Session, profile_id: int, due_by: date
) -> dict[tuple[str, str], tuple[int, StateRow]]:
    """Per topic: live cards, and of their states: reviews, lapses, mean easiness (milli) of
    the cards seen, cards due by ``due_by`` and not suspended, leeches."""
    due_soon = and_(
        CardState.due_day.is_not(None),
        CardState.due_day <= due_by,
        CardState.suspended.is_(False),
    )
    rows = session.execute(
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
    return {(row[0], row[1]): (row[2], tuple(row[3:])) for row in rows}


def topic_stats(
    session: Session, profile_id: int, today: date, window_days: int
) -> list[TopicStats]:
    recent_start = today - timedelta(days=window_days - 1)
    previous_start = recent_start - timedelta(days=window_days)
    log_rows = _log_by_join(session, profile_id, today, recent_start, previous_start)
    state_rows = _states_by_join(session, profile_id, today + timedelta(days=7))
    return topics_from_rows(log_rows, state_rows)


def _per_day(
    session: Session, profile_id: int, start: date, today: date
) -> dict[date, tuple[int, int, int]]:
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
    return per_day_from_rows(rows)


def forecast(session: Session, profile_id: int, today: date) -> list[DayCount]:
    last = today + timedelta(days=FORECAST_DAYS - 1)
    query = (
        select(CardState.due_day, func.count())
        .join(Card, and_(Card.id == CardState.card_id, Card.retired.is_(False)))
        .where(
            CardState.profile_id == profile_id,
            CardState.suspended.is_(False),
            CardState.due_day.is_not(None),
            CardState.due_day <= last,
        )
        .group_by(CardState.due_day)
    )
    return forecast_from(session.execute(query).all(), today)


def study_streak(session: Session, profile_id: int, today: date) -> int:
    days = session.scalars(
        select(ReviewLog.study_day)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.study_day <= today)
        .group_by(ReviewLog.study_day)
        .order_by(ReviewLog.study_day.desc())
        .limit(STREAK_DAYS_READ)
    ).all()
    return streak(list(days), today)


def total_reviews(session: Session, profile_id: int) -> int:
    query = select(func.count()).select_from(ReviewLog).where(ReviewLog.profile_id == profile_id)
    return int(session.scalar(query) or 0)


def build_report(
    session: Session, profile: Profile, today: date, window_days: int = 30
) -> StatsReport:
    """store/stats.py's ``build_report``, every figure by its join (the mistakes and the
    topics' card sets read the log and the cards themselves, no rollup, so they are shared)."""
    heatmap, retention = heatmap_and_retention(
        _per_day(session, profile.id, heatmap_start(today), today), today
    )
    topics = topic_stats(session, profile.id, today, window_days)
    sql = session_sql(session)
    return StatsReport(
        profile=profile.name,
        today=today,
        window_days=window_days,
        total_reviews=total_reviews(session, profile.id),
        streak_days=study_streak(session, profile.id, today),
        topics=mark_same_cards(topics, topic_card_sets(sql, may_share_cards(topics))),
        mistakes=mistake_stats(sql, profile.id, today, window_days),
        heatmap=heatmap,
        forecast=forecast(session, profile.id, today),
        retention=retention,
    )


def group_reviews(
    session: Session, start: date, today: date
) -> dict[tuple[str, str], tuple[int, int]]:
    query = (
        select(
            CardTopic.kind,
            CardTopic.value,
            func.count(),
            func.sum(_is_true(ReviewLog.quality >= 3)),
        )
        .join(CardTopic, CardTopic.card_id == ReviewLog.card_id)
        .where(ReviewLog.study_day >= start, ReviewLog.study_day <= today)
        .group_by(CardTopic.kind, CardTopic.value)
    )
    return {
        (kind, value): (int(reviews), int(passed or 0))
        for kind, value, reviews, passed in session.execute(query)
        if reviews
    }


def build_group_report(session: Session, today: date, window_days: int = 30) -> GroupReport:
    profile_ids = session.scalars(select(Profile.id).order_by(Profile.id)).all()
    per_learner = [
        topic_stats(session, profile_id, today, window_days) for profile_id in profile_ids
    ]
    start = today - timedelta(days=window_days - 1)
    return group_report(today, window_days, per_learner, group_reviews(session, start, today))
