"""Stats on weak topics, computed with SQL aggregates on indexed columns.

The review log is never loaded into Python: each figure is a GROUP BY over ``review_log``
(index on profile and study day) or ``card_states`` joined to ``card_topics``. Only the
windows the report needs are scanned: the recent window and the one before it, and 12 weeks of
daily counts.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date, timedelta

from sqlalchemy import and_, case, func, select, tuple_
from sqlalchemy.orm import Session

from kvdrill.engine.study.stats_report import (
    DayCount,
    GroupReport,
    MistakeStats,
    StatsReport,
    TopicStats,
    WeekRetention,
    group_report,
    mark_same_cards,
    may_share_cards,
    streak,
)
from kvdrill.store import rollups
from kvdrill.store.models import (
    Card,
    CardState,
    CardTopic,
    Profile,
    ReviewLog,
    TopicCards,
    TopicDay,
    TopicState,
)
from kvdrill.store.stats_rows import (
    FORECAST_DAYS,
    LAST_MISTAKES,
    STREAK_DAYS_READ,
    LogRow,
    StateRow,
    card_sets_from_rows,
    forecast_from,
    heatmap_and_retention,
    heatmap_start,
    log_rows_from_rollup,
    mistakes_from,
    per_day_from_rows,
    state_rows_from_rollup,
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


def _log_by_rollup(
    session: Session, profile_id: int, today: date, recent_start: date, previous_start: date
) -> dict[tuple[str, str], LogRow]:
    recent = TopicDay.study_day >= recent_start
    rows = session.execute(
        select(
            TopicDay.kind,
            TopicDay.value,
            func.sum(case((recent, TopicDay.reviews), else_=0)),
            func.sum(case((recent, TopicDay.passed), else_=0)),
            func.sum(case((recent, TopicDay.firsts), else_=0)),
            func.sum(case((recent, TopicDay.failed_firsts), else_=0)),
            func.sum(case((~recent, TopicDay.firsts), else_=0)),
            func.sum(case((~recent, TopicDay.failed_firsts), else_=0)),
            func.sum(case((recent, TopicDay.seconds), else_=0.0)),
            func.sum(case((recent, TopicDay.diagnosed), else_=0)),
        )
        .where(TopicDay.profile_id == profile_id, TopicDay.study_day >= previous_start)
        .where(TopicDay.study_day <= today)
        .group_by(TopicDay.kind, TopicDay.value)
    ).all()
    return log_rows_from_rollup(rows)


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


def _states_by_rollup(
    session: Session, profile_id: int, due_by: date
) -> dict[tuple[str, str], tuple[int, StateRow]]:
    due_soon = and_(TopicState.due_day <= due_by, TopicState.suspended.is_(False))
    rows = session.execute(
        select(
            TopicState.kind,
            TopicState.value,
            func.sum(TopicState.reviews),
            func.sum(TopicState.lapses),
            func.sum(TopicState.easiness_sum),
            func.sum(TopicState.seen),
            func.sum(case((due_soon, TopicState.cards), else_=0)),
            func.sum(TopicState.leeches),
        )
        .where(TopicState.profile_id == profile_id)
        .group_by(TopicState.kind, TopicState.value)
    ).all()
    return state_rows_from_rollup(
        rows,
        session.execute(
            select(TopicCards.kind, TopicCards.value, TopicCards.cards).where(TopicCards.cards > 0)
        ),
    )


def topic_card_sets(
    session: Session, topics: Collection[tuple[str, str]] | None = None
) -> dict[tuple[str, str], tuple[int, ...]]:
    """Per topic (of ``topics`` if given), a fingerprint of its live cards (count, smallest and
    largest id, sums of the ids and of their squares): equal for topics with the same cards."""
    if topics is not None and not topics:
        return {}
    query = (
        select(
            CardTopic.kind,
            CardTopic.value,
            func.count(CardTopic.card_id),
            func.min(CardTopic.card_id),
            func.max(CardTopic.card_id),
            func.sum(CardTopic.card_id),
            func.sum(CardTopic.card_id * CardTopic.card_id),
        )
        .join(Card, and_(Card.id == CardTopic.card_id, Card.retired.is_(False)))
        .group_by(CardTopic.kind, CardTopic.value)
    )
    if topics is not None:
        query = query.where(tuple_(CardTopic.kind, CardTopic.value).in_(list(topics)))
    rows = session.execute(query)
    return card_sets_from_rows(rows)


def uses_rollups(session: Session) -> bool:
    """The trigger-kept rollups exist on SQLite and PostgreSQL (store/rollups.py); elsewhere,
    join."""
    return session.get_bind().dialect.name in rollups.DIALECTS


def topic_stats(
    session: Session,
    profile_id: int,
    today: date,
    window_days: int,
    use_rollups: bool | None = None,
) -> list[TopicStats]:
    recent_start = today - timedelta(days=window_days - 1)
    previous_start = recent_start - timedelta(days=window_days)
    if use_rollups is None:
        use_rollups = uses_rollups(session)
    log_rows = (_log_by_rollup if use_rollups else _log_by_join)(
        session, profile_id, today, recent_start, previous_start
    )
    state_rows = (_states_by_rollup if use_rollups else _states_by_join)(
        session, profile_id, today + timedelta(days=7)
    )
    return topics_from_rows(log_rows, state_rows)


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
    return mistakes_from(counts, list(last))


def _per_day(
    session: Session, profile_id: int, start: date, today: date, use_rollups: bool
) -> dict[date, tuple[int, int, int]]:
    """Per study day: reviews, first answers, first answers graded 3 or more."""
    if use_rollups:
        query = select(
            TopicDay.study_day,
            func.sum(TopicDay.reviews),
            func.sum(TopicDay.firsts),
            func.sum(TopicDay.firsts - TopicDay.failed_firsts),
        ).where(
            TopicDay.profile_id == profile_id,
            TopicDay.kind == "pack",  # every card has exactly one pack
            TopicDay.study_day >= start,
            TopicDay.study_day <= today,
            TopicDay.reviews > 0,
        )
        day_column = TopicDay.study_day
    else:
        first = ReviewLog.moved_schedule.is_(True)
        query = select(
            ReviewLog.study_day,
            func.count(),
            func.sum(_is_true(first)),
            func.sum(_is_true(and_(first, ReviewLog.quality >= 3))),
        ).where(
            ReviewLog.profile_id == profile_id,
            ReviewLog.study_day >= start,
            ReviewLog.study_day <= today,
        )
        day_column = ReviewLog.study_day
    rows = session.execute(query.group_by(day_column)).all()
    return per_day_from_rows(rows)


def daily_counts(
    session: Session, profile_id: int, today: date, use_rollups: bool
) -> tuple[list[DayCount], list[WeekRetention]]:
    """Reviews per day over the last 12 weeks, and weekly retention of first answers."""
    start = heatmap_start(today)
    return heatmap_and_retention(_per_day(session, profile_id, start, today, use_rollups), today)


def forecast(session: Session, profile_id: int, today: date, use_rollups: bool) -> list[DayCount]:
    """Cards due on each of the next 30 days; anything overdue is due today."""
    last = today + timedelta(days=FORECAST_DAYS - 1)
    if use_rollups:
        query = (
            select(TopicState.due_day, func.sum(TopicState.cards))
            .where(
                TopicState.profile_id == profile_id,
                TopicState.kind == "pack",
                TopicState.suspended.is_(False),
                TopicState.due_day <= last,
            )
            .group_by(TopicState.due_day)
        )
    else:
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


def study_streak(
    session: Session, profile_id: int, today: date, use_rollups: bool | None = None
) -> int:
    """Consecutive study days with a review, ending today (or yesterday)."""
    if use_rollups is None:
        use_rollups = uses_rollups(session)
    if use_rollups:
        query = select(TopicDay.study_day).where(
            TopicDay.profile_id == profile_id,
            TopicDay.kind == "pack",
            TopicDay.reviews > 0,
            TopicDay.study_day <= today,
        )
        day_column = TopicDay.study_day
    else:
        query = select(ReviewLog.study_day).where(
            ReviewLog.profile_id == profile_id, ReviewLog.study_day <= today
        )
        day_column = ReviewLog.study_day
    days = session.scalars(
        query.group_by(day_column).order_by(day_column.desc()).limit(STREAK_DAYS_READ)
    ).all()
    return streak(list(days), today)


def total_reviews(session: Session, profile_id: int, use_rollups: bool) -> int:
    if use_rollups:
        query = select(func.sum(TopicDay.reviews)).where(
            TopicDay.profile_id == profile_id, TopicDay.kind == "pack"
        )
    else:
        query = (
            select(func.count()).select_from(ReviewLog).where(ReviewLog.profile_id == profile_id)
        )
    return int(session.scalar(query) or 0)


def build_report(
    session: Session,
    profile: Profile,
    today: date,
    window_days: int = 30,
    use_rollups: bool | None = None,
) -> StatsReport:
    if use_rollups is None:
        use_rollups = uses_rollups(session)
    heatmap, retention = daily_counts(session, profile.id, today, use_rollups)
    topics = topic_stats(session, profile.id, today, window_days, use_rollups)
    return StatsReport(
        profile=profile.name,
        today=today,
        window_days=window_days,
        total_reviews=total_reviews(session, profile.id, use_rollups),
        streak_days=study_streak(session, profile.id, today, use_rollups),
        topics=mark_same_cards(topics, topic_card_sets(session, may_share_cards(topics))),
        mistakes=mistake_stats(session, profile.id, today, window_days),
        heatmap=heatmap,
        forecast=forecast(session, profile.id, today, use_rollups),
        retention=retention,
    )


def group_reviews(
    session: Session, start: date, today: date, use_rollups: bool
) -> dict[tuple[str, str], tuple[int, int]]:
    """Per topic, over every profile: reviews from ``start`` to ``today``, and those passed."""
    if use_rollups:
        query = (
            select(
                TopicDay.kind, TopicDay.value, func.sum(TopicDay.reviews), func.sum(TopicDay.passed)
            )
            .where(TopicDay.study_day >= start, TopicDay.study_day <= today)
            .group_by(TopicDay.kind, TopicDay.value)
        )
    else:
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


def build_group_report(
    session: Session, today: date, window_days: int = 30, use_rollups: bool | None = None
) -> GroupReport:
    """The weak topics of every profile in the database, as counts (no names, no notes)."""
    if use_rollups is None:
        use_rollups = uses_rollups(session)
    profile_ids = session.scalars(select(Profile.id).order_by(Profile.id)).all()
    per_learner = [
        topic_stats(session, profile_id, today, window_days, use_rollups)
        for profile_id in profile_ids
    ]
    start = today - timedelta(days=window_days - 1)
    return group_report(
        today, window_days, per_learner, group_reviews(session, start, today, use_rollups)
    )
