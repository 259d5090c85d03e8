"""The store queries that feed the queue policy in engine/queue.py.

One query reads every live card with its schedule for the profile, one reads today's log; the
policy then decides. Narrowing by ``--pack``, ``--tag`` and ``--lesson`` happens in SQL.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date

from sqlalchemy import Select, and_, select
from sqlalchemy.orm import Session

from engine.errors import UserError
from engine.queue import DayCounts, QueueCard
from engine.sm2 import SESSION_REPEAT_BELOW
from store.models import Card, CardState, CardTopic, Pack, Profile, ReviewLog
from store.reviews import was_new


def pack_keys(session: Session) -> list[str]:
    return list(session.scalars(select(Pack.key).order_by(Pack.key)))


def lesson_spellings(lesson: str) -> list[str]:
    """The ways a lesson number may be stored: ``"05"`` and ``"5"`` are the same lesson."""
    text = lesson.strip()
    if not text.isdigit():
        return [text]
    return list(dict.fromkeys([text, str(int(text)), f"{int(text):02d}"]))


def lesson_values(session: Session) -> list[str]:
    """Every lesson some card draws on, numbers in numeric order."""
    values = session.scalars(select(CardTopic.value).where(CardTopic.kind == "lesson").distinct())
    return sorted(values, key=lambda value: (len(value.lstrip("0")), value.lstrip("0"), value))


def _in_lesson(lesson: str) -> Select:
    """The ids of the cards of ``lesson``, as a subquery."""
    return select(CardTopic.card_id).where(
        CardTopic.kind == "lesson", CardTopic.value.in_(lesson_spellings(lesson))
    )


def check_filters(
    session: Session, pack: str | None, tag: str | None, lesson: str | None = None
) -> None:
    """A ``--pack``, ``--tag`` or ``--lesson`` that matches nothing is a UserError naming what
    exists."""
    if pack is not None and session.scalar(select(Pack.id).where(Pack.key == pack)) is None:
        known = ", ".join(pack_keys(session)) or "none imported yet"
        raise UserError(f"there is no pack '{pack}' (packs: {known})")
    if tag is not None:
        found = session.scalar(
            select(CardTopic.card_id)
            .where(CardTopic.kind == "tag", CardTopic.value == tag)
            .limit(1)
        )
        if found is None:
            raise UserError(f"no card has the tag '{tag}'")
    if lesson is not None and session.scalar(_in_lesson(lesson).limit(1)) is None:
        known = ", ".join(lesson_values(session)) or "no card names a lesson"
        raise UserError(f"no card draws on lesson '{lesson.strip()}' (lessons: {known})")


def queue_cards(
    session: Session,
    profile_id: int,
    missed_today: Collection[int] = (),
    *,
    pack: str | None = None,
    tag: str | None = None,
    lesson: str | None = None,
    excluded_kinds: Collection[str] = (),
) -> list[QueueCard]:
    """Every live card (narrowed by pack, tag and lesson) with its schedule, for ``plan_day``."""
    query = (
        select(
            Card.id,
            Card.kind,
            Card.parent_id,
            CardState.reviews,
            CardState.due_day,
            CardState.easiness_milli,
            CardState.suspended,
            CardState.buried_until,
        )
        .join(Pack, Pack.id == Card.pack_id)
        .outerjoin(
            CardState,
            and_(CardState.card_id == Card.id, CardState.profile_id == profile_id),
        )
        .where(Card.retired.is_(False))
        .order_by(Pack.id, Card.position, Card.id)
    )
    if pack is not None:
        query = query.where(Pack.key == pack)
    if tag is not None:
        tagged = select(CardTopic.card_id).where(CardTopic.kind == "tag", CardTopic.value == tag)
        query = query.where(Card.id.in_(tagged))
    if lesson is not None:
        query = query.where(Card.id.in_(_in_lesson(lesson)))
    if excluded_kinds:
        query = query.where(Card.kind.not_in(list(excluded_kinds)))
    missed = set(missed_today)
    cards = []
    # Core rows on the session's connection: no ORM loading for 10,000 plain tuples.
    for order, row in enumerate(session.connection().execute(query)):
        card_id, kind, parent_id, reviews, due_day, easiness, suspended, buried_until = row
        seen = bool(reviews)
        cards.append(
            QueueCard(
                card_id=card_id,
                kind=kind,
                order=order,
                parent_id=parent_id,
                due_day=due_day if seen else None,
                easiness_milli=easiness if easiness is not None else 2500,
                seen=seen,
                missed_today=card_id in missed,
                suspended=bool(suspended),
                buried_until=buried_until,
            )
        )
    return _with_parents_seen(session, profile_id, cards)


def _with_parents_seen(
    session: Session, profile_id: int, cards: list[QueueCard]
) -> list[QueueCard]:
    """Add parents left out by ``--pack``/``--tag``/``--lesson`` as unavailable entries, so the policy knows
    whether a follow-up's parent has been seen."""
    present = {card.card_id for card in cards}
    missing = {c.parent_id for c in cards if c.parent_id is not None and c.parent_id not in present}
    if not missing:
        return cards
    seen_parents = set(
        session.scalars(
            select(CardState.card_id).where(
                CardState.profile_id == profile_id,
                CardState.card_id.in_(missing),
                CardState.reviews > 0,
            )
        )
    )
    extra = [
        QueueCard(card_id=parent, kind="recall", order=-1, seen=True, retired=True)
        for parent in sorted(seen_parents)
    ]
    return cards + extra


def today_log(session: Session, profile: Profile, today: date) -> tuple[DayCounts, set[int]]:
    """Today's counts against the daily limits, and the cards whose last grade today was < 4."""
    rows = session.execute(
        select(ReviewLog.card_id, ReviewLog.quality, ReviewLog.moved_schedule, ReviewLog.prev_state)
        .where(ReviewLog.profile_id == profile.id, ReviewLog.study_day == today)
        .order_by(ReviewLog.id)
    )
    new_done = reviews_done = 0
    last_quality: dict[int, int] = {}
    for card_id, quality, moved, prev_state in rows:
        if moved:
            if was_new(prev_state):
                new_done += 1
            else:
                reviews_done += 1
        last_quality[card_id] = quality
    counts = DayCounts(
        new_per_day=profile.new_per_day,
        reviews_per_day=profile.reviews_per_day,
        new_done_today=new_done,
        reviews_done_today=reviews_done,
    )
    missed = {card for card, quality in last_quality.items() if quality < SESSION_REPEAT_BELOW}
    return counts, missed
