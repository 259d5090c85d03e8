"""The card browser's reads (``kvdrill cards``): every live card with the profile's schedule
and flag, narrowed by pack, tag and a text search in SQL; one card's page with its history.
States and sorting are the engine's (engine/study/browse.py)."""

from __future__ import annotations

from itertools import starmap
from typing import Any

from sqlalchemy import ColumnElement, Select, case, func, or_, select
from sqlalchemy.orm import Session, aliased

from kvdrill.engine.packs.card_view import own_title
from kvdrill.engine.study.browse import BrowsedCard, CardPage, HistoryEntry
from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI
from kvdrill.store.day_queue import cards_of_lesson, lesson_values, pack_keys
from kvdrill.store.models import Card, CardFlag, CardState, CardTopic, Note, Pack, ReviewLog


def _in_edition(column: Any, language: str | None) -> ColumnElement[Any]:
    """``column`` of the card, from its edition in ``language`` where one has the card (the
    edition's card of the same id, as the drill shows it); None: the card's own."""
    if language is None:
        return column
    edition_pack = aliased(Pack)
    edition = aliased(Card)
    text = (
        select(getattr(edition, column.key))
        .join(edition_pack, edition_pack.id == edition.pack_id)
        .where(
            edition_pack.edition_of == Pack.key,
            or_(edition_pack.lang == language, edition_pack.lang.like(language + "-%")),
            edition.key == Card.key,
            ~edition.retired,
        )
        .order_by(edition_pack.id)
        .limit(1)
        .scalar_subquery()
    )
    return func.coalesce(text, column)


def _columns(language: str | None = None) -> tuple[Any, ...]:
    """The ``BrowsedCard`` fields in order, a new card's defaults filled in by the query; the
    title in ``language``'s edition where there is one. A follow-up's title column holds its
    question instead (its stored title is its parent's): ``_own_titles`` names it by it."""
    return (
        (Pack.key + "/" + Card.key).label("reference"),
        case(
            (Card.kind == "followup", _in_edition(Card.prompt, language)),
            else_=_in_edition(Card.title, language),
        ),
        Card.kind,
        func.coalesce(CardState.reviews, 0),
        func.coalesce(CardState.lapses, 0),
        func.coalesce(CardState.easiness_milli, NEW_CARD_EASINESS_MILLI),
        func.coalesce(CardState.repetitions, 0),
        CardState.due_day,
        CardState.last_review_at,
        func.coalesce(CardState.suspended, False),
        CardState.buried_until,
        func.coalesce(CardState.leech, False),
        CardFlag.colour,
    )


def _joined(statement: Select[Any], profile_id: int) -> Select[Any]:
    return (
        statement.join(Pack, Pack.id == Card.pack_id)
        .outerjoin(CardState, (CardState.card_id == Card.id) & (CardState.profile_id == profile_id))
        .outerjoin(CardFlag, (CardFlag.card_id == Card.id) & (CardFlag.profile_id == profile_id))
    )


def browsed_cards(
    session: Session,
    profile_id: int,
    *,
    pack: str | None = None,
    tag: str | None = None,
    lesson: str | None = None,
    kind: str | None = None,
    search: str | None = None,
    language: str | None = None,
) -> list[BrowsedCard]:
    """Every live card (of ``pack``, with ``tag``, drawing on ``lesson``, of ``kind``, whose
    title, prompt, answer or the profile's note holds ``search``, any case) in pack order;
    titles in ``language``'s editions where they have the card."""
    statement = _joined(select(*_columns(language)).select_from(Card), profile_id).where(
        ~Card.retired,
        Pack.edition_of.is_(None),  # an edition's cards are its original's
    )
    if pack is not None:
        statement = statement.where(Pack.key == pack)
    if tag is not None:
        tagged = select(CardTopic.card_id).where(CardTopic.kind == "tag", CardTopic.value == tag)
        statement = statement.where(Card.id.in_(tagged))
    if lesson is not None:
        statement = statement.where(Card.id.in_(cards_of_lesson(lesson)))
    if kind is not None:
        statement = statement.where(Card.kind == kind)
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
    # Plain rows on the session's connection, each the named tuple as it comes: no ORM loading
    # and no conversion for 100,000 rows.
    return _own_titles(starmap(BrowsedCard, session.connection().execute(statement)))


def _own_titles(cards: Any) -> list[BrowsedCard]:
    """``cards`` with each follow-up named by its own question (``own_title``), not by its
    parent's title; the others as they come."""
    return [
        BrowsedCard(card[0], own_title(card.kind, card.title, card.title), *card[2:])
        if card.kind == "followup"
        else card
        for card in cards
    ]


def card_page(
    session: Session, profile_id: int, card: Card, language: str | None = None
) -> CardPage:
    """The page of ``card`` (from ``find_card``): schedule, whole history, note; its title and
    prompt in ``language``'s edition where there is one."""
    columns = (*_columns(language), CardState.interval_days, _in_edition(Card.prompt, language))
    row = session.execute(
        _joined(select(*columns).select_from(Card), profile_id).where(Card.id == card.id)
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
        card=_own_titles([BrowsedCard(*row[:-2])])[0],
        interval_days=row[-2] or 0,
        prompt=row[-1],
        history=history,
        note=note,
    )


def filter_choices(session: Session) -> dict[str, list[str]]:
    """What the browser's filters can be set to: the pack ids, tags, lessons and card kinds
    of the live cards."""
    tags = session.scalars(
        select(CardTopic.value).where(CardTopic.kind == "tag").distinct().order_by(CardTopic.value)
    )
    kinds = session.scalars(select(Card.kind).where(~Card.retired).distinct().order_by(Card.kind))
    return {
        "pack": pack_keys(session),
        "tag": list(tags),
        "lesson": lesson_values(session),
        "kind": list(kinds),
    }


def card_source(session: Session, card: Card) -> tuple[str, int, bool]:
    """Where ``card`` (from ``find_card``) is written: its pack's file, the card's line in it
    (1-based; 0 when unknown) and whether the pack is one of the bundled decks."""
    pack = session.get(Pack, card.pack_id)
    assert pack is not None
    return pack.source_path, card.source_line, pack.bundled
