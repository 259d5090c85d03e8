"""The card browser's reads (``kvdrill cards``): every live card with the profile's schedule
and flag, narrowed by pack, tag and a text search in SQL; one card's page with its history.
States and sorting are the engine's (engine/study/browse.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from kvdrill.engine.packs.card_view import own_title
from kvdrill.engine.study.browse import BrowsedCard, CardPage, HistoryEntry
from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI
from kvdrill.store.day_queue import lesson_spellings, lesson_values, pack_keys
from kvdrill.store.db import session_sql
from kvdrill.store.models import Card, CardTopic, Note, Pack, ReviewLog
from kvdrill.store.queries_sql import (
    EDITION_JOIN,
    IN_TOPIC,
    placeholders,
    stored_day,
    stored_time,
)

# The ``BrowsedCard`` fields in order, a new card's defaults filled in, with the profile's
# schedule and flag, in pack order. ``{where}``: the cards (``_LISTED``, or one card);
# ``{title}`` and ``{prompt}`` the card's (or its edition's): a follow-up's title column holds
# its question (its stored title is its parent's: ``_own_titles`` names it by it); ``{extra}``
# the card page's columns; ``{editions}`` the join to the edition's card that text comes from.
_LISTING_SQL = f"""
SELECT packs.key || '/' || cards.key,
       CASE WHEN cards.kind = 'followup' THEN {{prompt}} ELSE {{title}} END,
       cards.kind, COALESCE(card_states.reviews, 0), COALESCE(card_states.lapses, 0),
       COALESCE(card_states.easiness_milli, {NEW_CARD_EASINESS_MILLI}),
       COALESCE(card_states.repetitions, 0), card_states.due_day, card_states.last_review_at,
       COALESCE(card_states.suspended, FALSE), card_states.buried_until,
       COALESCE(card_states.leech, FALSE), card_flags.colour{{extra}}
FROM cards
JOIN packs ON packs.id = cards.pack_id{{editions}}
LEFT OUTER JOIN card_states
  ON card_states.card_id = cards.id AND card_states.profile_id = :profile_id
LEFT OUTER JOIN card_flags
  ON card_flags.card_id = cards.id AND card_flags.profile_id = :profile_id
WHERE {{where}}
ORDER BY packs.id, cards.position, cards.id
"""
# How many cards a listing of the same ``{where}`` holds (a row per card: the outer joins
# add none).
_COUNT_SQL = """
SELECT count(*)
FROM cards
JOIN packs ON packs.id = cards.pack_id
WHERE {where}
"""
# Text a search looks in: the card's title, prompt and answer, and the profile's note.
_SEARCHED = """(lower(cards.title) LIKE :pattern ESCAPE '\\'
       OR lower(cards.prompt) LIKE :pattern ESCAPE '\\'
       OR lower(cards.answer) LIKE :pattern ESCAPE '\\'
       OR cards.id IN (SELECT card_id FROM notes WHERE profile_id = :profile_id
                       AND lower(notes.text) LIKE :pattern ESCAPE '\\'))"""
# The cards a listing holds: the live ones of the original packs (an edition's cards are its
# original's).
_LISTED = "NOT cards.retired AND packs.edition_of IS NULL"


def listing_statement(
    profile_id: int,
    *,
    language: str | None = None,
    pack: str | None = None,
    tag: str | None = None,
    lessons: Sequence[str] = (),
    kind: str | None = None,
    search: str | None = None,
    card_id: int | None = None,
    page: tuple[int, int] | None = None,
    count: bool = False,
) -> tuple[str, dict[str, Any]]:
    """The browser's one statement and its parameters: the cards of ``pack``, with ``tag``,
    drawing on the lesson spelled ``lessons``, of ``kind``, holding ``search`` (any case), or
    the one card ``card_id`` with its page's columns (interval, prompt); text in ``language``'s
    editions (None: the cards' own). ``page`` (offset, limit): those rows only; ``count``: how
    many cards it lists, instead of them."""
    params: dict[str, Any] = {"profile_id": profile_id}
    if language is None:
        title, prompt, editions = "cards.title", "cards.prompt", ""
    else:
        # The card's text from its edition in the language where one has it, as the drill
        # shows it (the card view's own join).
        title = "COALESCE(edition.title, cards.title)"
        prompt = "COALESCE(edition.prompt, cards.prompt)"
        editions = "\n" + EDITION_JOIN
        params["lang"] = language
    filters = [_LISTED] if card_id is None else ["cards.id = :card_id"]
    if pack is not None:
        filters.append("packs.key = :pack")
        params["pack"] = pack
    if tag is not None:
        filters.append(IN_TOPIC.format(kind="tag", values=":tag"))
        params["tag"] = tag
    if lessons:
        values = placeholders("lesson", list(lessons), params)
        filters.append(IN_TOPIC.format(kind="lesson", values=values))
    if kind is not None:
        filters.append("cards.kind = :kind")
        params["kind"] = kind
    if search:
        escaped = search.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params["pattern"] = f"%{escaped}%"
        filters.append(_SEARCHED)
    extra = ""
    if card_id is not None:
        params["card_id"] = card_id
        extra = f", card_states.interval_days, {prompt}"
    where = "\n  AND ".join(filters)
    if count:
        return _COUNT_SQL.format(where=where), params
    text = _LISTING_SQL.format(
        title=title, prompt=prompt, extra=extra, where=where, editions=editions
    )
    if page is not None:
        text += "LIMIT :limit OFFSET :offset\n"
        params.update(offset=page[0], limit=page[1])
    return text, params


def browsed_cards(
    session: Session,
    profile_id: int,
    *,
    language: str | None = None,
    page: tuple[int, int] | None = None,
    **filters: str | None,
) -> list[BrowsedCard]:
    """Every live card (``filters``: of ``pack``, with ``tag``, drawing on ``lesson``, of
    ``kind``, whose title, prompt, answer or the profile's note holds ``search``, any case) in
    pack order; titles in ``language``'s editions where they have the card. ``page`` (offset,
    limit): only those of them."""
    statement, params = _filtered(profile_id, filters, language=language, page=page)
    # Plain rows (sqlite3's own on SQLite), each made the named tuple in one call.
    return _own_titles(map(_browsed, session_sql(session).rows(statement, params)))


def count_cards(session: Session, profile_id: int, **filters: str | None) -> int:
    """How many cards ``browsed_cards`` lists with the same ``filters``."""
    statement, params = _filtered(profile_id, filters, count=True)
    return int(session_sql(session).rows(statement, params)[0][0])


def _filtered(
    profile_id: int, filters: dict[str, str | None], **options: Any
) -> tuple[str, dict[str, Any]]:
    """``listing_statement`` with the filters as the browser takes them (a lesson as typed)."""
    named: dict[str, Any] = dict(filters)
    lesson = named.pop("lesson", None)
    named["lessons"] = lesson_spellings(lesson) if lesson is not None else ()
    return listing_statement(profile_id, **named, **options)


def _browsed(row: Sequence[Any]) -> BrowsedCard:
    """A listing row as the engine reads it (SQLite stores dates and times as ISO text and
    booleans as 0 and 1)."""
    reference, title, kind, reviews, lapses, ease, repetitions, due, last = row[:9]
    suspended, buried, leech, flag = row[9:13]
    return BrowsedCard(
        reference,
        title,
        kind,
        reviews,
        lapses,
        ease,
        repetitions,
        stored_day(due),
        stored_time(last),
        bool(suspended),
        stored_day(buried),
        bool(leech),
        flag,
    )


def _own_titles(cards: Iterable[BrowsedCard]) -> list[BrowsedCard]:
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
    statement, params = listing_statement(profile_id, language=language, card_id=card.id)
    row = session_sql(session).rows(statement, params)[0]
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
        card=_own_titles([_browsed(row)])[0],
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
