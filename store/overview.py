"""The counts of the home screen: cards due and new per pack, and today's reviews."""

from __future__ import annotations

from datetime import date

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from kvdrill.engine.study.queue import DayCounts, QueueCard, is_available, pack_new_room
from kvdrill.store.day_queue import queue_cards
from kvdrill.store.models import Card, CardState, Pack, ReviewLog


def pack_counts(
    session: Session,
    profile_id: int,
    today: date,
    lang: str | None = None,
    counts: DayCounts | None = None,
) -> list[tuple[str, str, int, int, int]]:
    """Per pack with live cards offered in language ``lang``, by title (in ``lang`` where an
    edition has it): key, title, due today, new (its unseen cards, at most the new cards its
    own limit still gives today under ``counts``), all live cards."""
    pack_of = dict(session.execute(select(Card.id, Card.pack_id).where(~Card.retired)).all())
    due: dict[int, int] = {}
    new: dict[int, int] = {}
    total: dict[int, int] = {}
    card: QueueCard
    cards = queue_cards(session, profile_id, lang=lang)
    # A follow-up waits for its card: not counted while that is suspended or buried.
    set_aside = {card.card_id for card in cards if not is_available(card, today)}
    for card in cards:
        pack_id = pack_of.get(card.card_id)
        if pack_id is None:
            continue
        total[pack_id] = total.get(pack_id, 0) + 1
        if not is_available(card, today):
            continue
        if card.parent_id in set_aside:
            continue
        if not card.seen:
            new[pack_id] = new.get(pack_id, 0) + 1
        elif card.due_day is not None and card.due_day <= today:
            due[pack_id] = due.get(pack_id, 0) + 1
    # A pack's title in ``lang``: its edition's, where it has one in that language.
    translated: dict[str, str] = {}
    if lang is not None:
        editions = select(Pack.edition_of, Pack.title).where(
            Pack.edition_of.is_not(None), (Pack.lang == lang) | Pack.lang.like(f"{lang}-%")
        )
        for original, title in session.execute(editions.order_by(Pack.id.desc())):
            if original is not None:
                translated[original] = title
    for pack_id, unseen in new.items():
        room = pack_new_room(counts or DayCounts(), pack_id)
        new[pack_id] = unseen if room is None else min(unseen, room)
    packs = [
        (key, translated.get(key, title), due.get(pack_id, 0), new.get(pack_id, 0), total[pack_id])
        for pack_id, key, title in session.execute(select(Pack.id, Pack.key, Pack.title))
        if total.get(pack_id)
    ]
    return sorted(packs, key=lambda line: line[1])


def suspended_count(session: Session, profile_id: int) -> int:
    """Live cards the profile has suspended."""
    count = session.scalar(
        select(func.count())
        .select_from(CardState)
        .join(Card, Card.id == CardState.card_id)
        .where(
            CardState.profile_id == profile_id,
            CardState.suspended.is_(True),
            Card.retired.is_(False),
        )
    )
    return int(count or 0)


def reviews_on(session: Session, profile_id: int, day: date) -> int:
    """Answers the profile logged on study day ``day``."""
    count = session.scalar(
        select(func.count())
        .select_from(ReviewLog)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.study_day == day)
    )
    return int(count or 0)
