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

from kvdrill.engine.study.stats_report import (
    DayCount,
    GroupReport,
    MistakeStats,
    StatsReport,
    TopicStats,
    WeekRetention,
    group_topics,
    mark_same_cards,
    mistake_words,
    rank_topics,
    streak,
    weak_score,
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

HEATMAP_WEEKS = 12
FORECAST_DAYS = 30
LAST_MISTAKES = 10


def _ratio(part: int | None, whole: int | None) -> float | None:
    return round(part / whole, 4) if whole else None


def _is_true(column):
    return case((column, 1), else_=0)


LogRow = tuple[int, int, int, int, int, int, float | None, int]
StateRow = tuple[int, int, int, float | None, int, int]


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
    return {
        (kind, value): (n, ok, firsts, failed, p_firsts, p_failed, seconds / n if n else None, dx)
        for kind, value, n, ok, firsts, failed, p_firsts, p_failed, seconds, dx in rows
    }


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
    states = {
        (kind, value): (reviews, lapses, easiness / seen if seen else None, due, leeches)
        for kind, value, reviews, lapses, easiness, seen, due, leeches in rows
    }
    empty = (0, 0, None, 0, 0)
    return {
        (kind, value): (cards, states.get((kind, value), empty))
        for kind, value, cards in session.execute(
            select(TopicCards.kind, TopicCards.value, TopicCards.cards).where(TopicCards.cards > 0)
        )
    }


def topic_card_sets(session: Session) -> dict[tuple[str, str], tuple[int, ...]]:
    """Per topic, a fingerprint of its live cards (count, smallest and largest id, sums of the
    ids and of their squares): equal for topics with the same cards."""
    rows = session.execute(
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
    return {(row[0], row[1]): tuple(int(value) for value in row[2:]) for row in rows}


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
    return {day: (int(n), int(firsts or 0), int(passed or 0)) for day, n, firsts, passed in rows}


def daily_counts(
    session: Session, profile_id: int, today: date, use_rollups: bool
) -> tuple[list[DayCount], list[WeekRetention]]:
    """Reviews per day over the last 12 weeks, and weekly retention of first answers."""
    start = today - timedelta(days=HEATMAP_WEEKS * 7 - 1)
    per_day = _per_day(session, profile_id, start, today, use_rollups)
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
    per_day: dict[date, int] = {}
    for day, count in session.execute(query).all():
        key = max(day, today)
        per_day[key] = per_day.get(key, 0) + int(count)
    return [
        DayCount(day=day, reviews=per_day.get(day, 0))
        for day in (today + timedelta(days=i) for i in range(FORECAST_DAYS))
    ]


# Study days read back for a streak: ten years, more than any streak needs.
STREAK_DAYS_READ = 3660


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
    return StatsReport(
        profile=profile.name,
        today=today,
        window_days=window_days,
        total_reviews=total_reviews(session, profile.id, use_rollups),
        streak_days=study_streak(session, profile.id, today, use_rollups),
        topics=mark_same_cards(
            topic_stats(session, profile.id, today, window_days, use_rollups),
            topic_card_sets(session),
        ),
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
    return GroupReport(
        today=today,
        window_days=window_days,
        learners=len(profile_ids),
        topics=group_topics(per_learner, group_reviews(session, start, today, use_rollups)),
    )
