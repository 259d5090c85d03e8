"""The card browser's reads (``kvdrill cards``): every live card with the profile's schedule
and flag, narrowed by pack, tag and a text search in SQL; one card's page with its history.
States and sorting are the engine's (engine/study/browse.py)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, func, or_, select
from sqlalchemy.orm import Session

from kvdrill.engine.study.browse import BrowsedCard, CardPage, HistoryEntry
from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI
from kvdrill.store.models import Card, CardFlag, CardState, CardTopic, Note, Pack, ReviewLog


def _columns() -> tuple[Any, ...]:
    return (
        Pack.key,
        Card.key,
        Card.title,
        Card.kind,
        CardState.reviews,
        CardState.lapses,
        CardState.easiness_milli,
        CardState.repetitions,
        CardState.due_day,
        CardState.last_review_at,
        CardState.suspended,
        CardState.buried_until,
        CardState.leech,
        CardFlag.colour,
    )


def _joined(statement: Select[Any], profile_id: int) -> Select[Any]:
    return (
        statement.join(Pack, Pack.id == Card.pack_id)
        .outerjoin(CardState, (CardState.card_id == Card.id) & (CardState.profile_id == profile_id))
        .outerjoin(CardFlag, (CardFlag.card_id == Card.id) & (CardFlag.profile_id == profile_id))
    )


def _browsed(row: Any) -> BrowsedCard:
    (pack, key, title, kind, reviews, lapses, easiness, repetitions, due, last) = row[:10]
    suspended, buried, leech, flag = row[10:]
    return BrowsedCard(
        reference=f"{pack}/{key}",
        title=title,
        kind=kind,
        reviews=reviews or 0,
        lapses=lapses or 0,
        easiness_milli=easiness if easiness is not None else NEW_CARD_EASINESS_MILLI,
        repetitions=repetitions or 0,
        due_day=due,
        last_review_at=last,
        suspended=bool(suspended),
        buried_until=buried,
        leech=bool(leech),
        flag=flag,
    )


def browsed_cards(
    session: Session,
    profile_id: int,
    *,
    pack: str | None = None,
    tag: str | None = None,
    search: str | None = None,
) -> list[BrowsedCard]:
    """Every live card (of ``pack``, with ``tag``, whose title, prompt, answer or the
    profile's note holds ``search``, any case) in pack order."""
    statement = _joined(select(*_columns()).select_from(Card), profile_id).where(~Card.retired)
    if pack is not None:
        statement = statement.where(Pack.key == pack)
    if tag is not None:
        tagged = select(CardTopic.card_id).where(CardTopic.kind == "tag", CardTopic.value == tag)
        statement = statement.where(Card.id.in_(tagged))
    if search:
        pattern = (
            "%" + search.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        )
        noted = select(Note.card_id).where(
            Note.profile_id == profile_id, func.lower(Note.text).like(pattern, escape="\\")
        )
        statement = statement.where(
            or_(
                *(
                    func.lower(column).like(pattern, escape="\\")
                    for column in (Card.title, Card.prompt, Card.answer)
                ),
                Card.id.in_(noted),
            )
        )
    statement = statement.order_by(Pack.id, Card.position, Card.id)
    # Plain rows on the session's connection: no ORM loading for 100,000 tuples.
    return [_browsed(row) for row in session.connection().execute(statement)]


def card_page(session: Session, profile_id: int, card: Card) -> CardPage:
    """The page of ``card`` (from ``find_card``): schedule, whole history, note."""
    row = session.execute(
        _joined(select(*_columns(), CardState.interval_days).select_from(Card), profile_id).where(
            Card.id == card.id
        )
    ).one()
    history = [
        HistoryEntry(*entry)
        for entry in session.execute(
            select(
                ReviewLog.reviewed_at,
                ReviewLog.quality,
                ReviewLog.seconds,
                ReviewLog.graded_by,
                ReviewLog.typed_answer,
                ReviewLog.expected,
                ReviewLog.diagnosis,
                ReviewLog.mistake,
            )
            .where(ReviewLog.profile_id == profile_id, ReviewLog.card_id == card.id)
            # By id, so SQLite reads the card's index (by time it walks the profile's whole
            # log); then by time, ties in log order.
            .order_by(ReviewLog.id)
        )
    ]
    history.sort(key=lambda entry: entry.reviewed_at)
    note = session.scalar(
        select(Note.text).where(Note.profile_id == profile_id, Note.card_id == card.id)
    )
    return CardPage(
        card=_browsed(row[:-1]),
        interval_days=row[-1] or 0,
        prompt=card.prompt,
        history=history,
        note=note,
    )
