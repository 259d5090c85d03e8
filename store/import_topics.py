"""The ``card_topics`` rows of an import (pack, tags and lessons of each card), written in bulk
with the stats rollups kept right (store/rollups.py).
"""

from __future__ import annotations

from typing import Any

from kvdrill.store import rollups
from kvdrill.store.card_content import Encoded, card_topics
from kvdrill.store.sql import Sql

TOPIC_COLUMNS = ("card_id", "kind", "value")
# New cards' topic rows at least this many: inserted with the per-row rollup trigger suspended
# and its sums added in three grouped statements (store/rollups.py), on SQLite; fewer go
# through the trigger. Both ways cost about the same up to about a hundred new cards; bulk is
# ahead beyond (the README's benchmark section has the figures).
BULK_TOPIC_ROWS = 16


def _new_topic_rows(
    pack_key: str, cards: list[tuple[int, dict[str, Any]]]
) -> list[tuple[int, str, str]]:
    """New cards' card_topics rows (``TOPIC_COLUMNS``), each card's in (kind, value) order;
    the topics of each set of tags and lessons sorted once."""
    sorted_topics: dict[tuple[tuple[str, ...], tuple[str, ...]], list[tuple[str, str]]] = {}
    rows: list[tuple[int, str, str]] = []
    for card_id, values in cards:
        key = (tuple(values["tags"]), tuple(values["lessons"]))
        topics = sorted_topics.get(key)
        if topics is None:
            topics = sorted_topics[key] = sorted(card_topics(pack_key, values))
        rows.extend((card_id, kind, value) for kind, value in topics)
    return rows


def sync_topics(db: Sql, pack_id: int, wanted: dict[int, set[tuple[str, str]]]) -> None:
    """Make ``card_topics`` hold exactly ``wanted`` for the pack's cards stored before (retired
    ones keep theirs)."""
    current: dict[int, set[tuple[str, str]]] = {card_id: set() for card_id in wanted}
    if wanted:
        for card_id, kind, value in db.rows(
            "SELECT ct.card_id, ct.kind, ct.value FROM card_topics AS ct "
            "JOIN cards AS c ON c.id = ct.card_id WHERE c.pack_id = :pack_id",
            {"pack_id": pack_id},
        ):
            if card_id in current:
                current[card_id].add((kind, value))
    removed = [
        (card_id, kind, value)
        for card_id, topics in current.items()
        for kind, value in sorted(topics - wanted[card_id])
    ]
    added = [
        (card_id, kind, value)
        for card_id, topics in wanted.items()
        for kind, value in sorted(topics - current[card_id])
    ]

    def change() -> None:
        db.many(
            "DELETE FROM card_topics WHERE card_id = :card_id AND kind = :kind AND value = :value",
            [
                {"card_id": card_id, "kind": kind, "value": value}
                for card_id, kind, value in removed
            ],
        )
        db.insert("card_topics", TOPIC_COLUMNS, added)

    if (
        len(removed) + len(added) >= BULK_TOPIC_ROWS
        and db.in_sqlite_transaction()
        and not any("\x00" in value for rows in (removed, added) for _, _, value in rows)
        and _reads_json(db)
    ):
        rollups.change_topics(db, removed, added, change)
    else:
        change()


# The topics of a pack's new cards (ids from ``:first_card`` up) read back from their stored tags
# and lessons in one statement, each card's in (kind, value) order as ``_new_topic_rows`` has
# them: no Python row per topic. SQLite's json_each (built in since 3.38) gives back each string
# the importer encoded, except one holding U+0000, which no pack file can (the parser refuses
# control characters) and which ``Encoded.json_each_reads_back`` checks all the same.
_NEW_TOPICS_SQL = (
    "INSERT INTO card_topics (card_id, kind, value) SELECT card_id, kind, value FROM ("
    "SELECT c.id AS card_id, 'pack' AS kind, :pack_key AS value FROM cards AS c "
    "WHERE c.id >= :first_card "
    "UNION ALL SELECT c.id, 'tag', t.value FROM cards AS c, json_each(c.tags) AS t "
    "WHERE c.id >= :first_card "
    "UNION ALL SELECT c.id, 'lesson', l.value FROM cards AS c, json_each(c.lessons) AS l "
    "WHERE c.id >= :first_card) ORDER BY card_id, kind, value"
)
JSON_EACH_SINCE = (3, 38, 0)


def _reads_json(db: Sql) -> bool:
    """Whether the database is a SQLite with json_each built in."""
    (version,) = db.rows("SELECT sqlite_version()")[0]
    return tuple(int(part) for part in version.split(".")[:3]) >= JSON_EACH_SINCE


def add_new_topics(
    db: Sql, pack_key: str, cards: list[tuple[int, dict[str, Any]]], encoded: Encoded
) -> None:
    """The card_topics rows of the pack's new cards (``cards``: their ids and values). Many
    are inserted with the per-row rollup trigger suspended (store/rollups.py), on SQLite;
    a few go through it."""
    if not cards:
        return
    count = sum(1 + len(values["tags"]) + len(values["lessons"]) for _, values in cards)
    if count < BULK_TOPIC_ROWS or not db.in_sqlite_transaction():
        db.insert("card_topics", TOPIC_COLUMNS, _new_topic_rows(pack_key, cards))
        return
    first_card = min(card_id for card_id, _ in cards)
    if encoded.json_each_reads_back() and _reads_json(db):

        def insert() -> None:
            db.run(_NEW_TOPICS_SQL, {"pack_key": pack_key, "first_card": first_card})

    else:
        rows = _new_topic_rows(pack_key, cards)

        def insert() -> None:
            db.insert("card_topics", TOPIC_COLUMNS, rows)

    rollups.insert_new_topics(db, first_card, insert)
