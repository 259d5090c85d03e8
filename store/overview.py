"""The counts of the home screen: cards due and new per pack, today's reviews, the suspended.

Statement text run through an ``Sql`` (store/sql.py) alone: the home screen reads a SQLite file
with ``sqlite3`` before SQLAlchemy is loaded (app/services/backend.py ``Services.read``), and
any other database through the same text. Standard library only.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from kvdrill.engine.study.queue import DayCounts, is_available, pack_new_room
from kvdrill.store.queries_sql import (
    language_params,
    queue_cards_from_rows,
    queue_cards_statement,
    with_parents_seen,
)

if TYPE_CHECKING:
    from kvdrill.store.sql import Sql

PACKS_SQL = "SELECT id, key, title FROM packs"
# The titles of the editions in language :lang (``vi`` takes ``vi-VN``), the oldest last.
EDITION_TITLES_SQL = """
SELECT edition_of, title FROM packs
WHERE edition_of IS NOT NULL AND (lang = :lang OR lang LIKE :lang_region)
ORDER BY id DESC
"""
SUSPENDED_SQL = """
SELECT COUNT(*) FROM card_states
JOIN cards ON cards.id = card_states.card_id
WHERE card_states.profile_id = :profile_id AND card_states.suspended AND NOT cards.retired
"""
REVIEWS_ON_SQL = """
SELECT COUNT(*) FROM review_log WHERE profile_id = :profile_id AND study_day = :study_day
"""


def pack_counts(
    sql: Sql,
    profile_id: int,
    today: date,
    lang: str | None,
    counts: DayCounts,
) -> list[tuple[str, str, int, int, int]]:
    """Per pack with live cards offered in language ``lang``, by title (in ``lang`` where an
    edition has it): key, title, due today, new (its unseen cards, at most the new cards its
    own limit still gives today under ``counts``), all live cards."""
    due: dict[int, int] = {}
    new: dict[int, int] = {}
    total: dict[int, int] = {}
    statement, params = queue_cards_statement(profile_id, lang=lang)
    queued = queue_cards_from_rows(sql.rows(statement, params), ())
    cards = with_parents_seen(sql, profile_id, queued)
    # A follow-up waits for its card: not counted while that is suspended or buried.
    set_aside = {card.card_id for card in cards if not is_available(card, today)}
    for card in queued:
        pack_id = card.pack
        assert pack_id is not None  # every queued card's pack is read with it
        total[pack_id] = total.get(pack_id, 0) + 1
        if not is_available(card, today) or card.parent_id in set_aside:
            continue
        if not card.seen:
            new[pack_id] = new.get(pack_id, 0) + 1
        elif card.due_day is not None and card.due_day <= today:
            due[pack_id] = due.get(pack_id, 0) + 1
    # A pack's title in ``lang``: its edition's, where it has one in that language.
    translated: dict[str, str] = {}
    if lang is not None:
        for original, title in sql.rows(EDITION_TITLES_SQL, language_params(lang)):
            translated[original] = title
    for pack_id, unseen in new.items():
        room = pack_new_room(counts, pack_id)
        new[pack_id] = unseen if room is None else min(unseen, room)
    packs = []
    for pack_id, key, title in sql.rows(PACKS_SQL):
        if total.get(pack_id):
            shown = translated[key] if key in translated else title
            packs.append((key, shown, due.get(pack_id, 0), new.get(pack_id, 0), total[pack_id]))
    return sorted(packs, key=lambda line: line[1])


def suspended_count(sql: Sql, profile_id: int) -> int:
    """Live cards the profile has suspended."""
    row = sql.first(SUSPENDED_SQL, {"profile_id": profile_id})
    return int(row[0]) if row is not None else 0


def reviews_on(sql: Sql, profile_id: int, day: date) -> int:
    """Answers the profile logged on study day ``day``."""
    row = sql.first(REVIEWS_ON_SQL, {"profile_id": profile_id, "study_day": sql.day(day)})
    return int(row[0]) if row is not None else 0
