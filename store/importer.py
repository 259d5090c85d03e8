"""Storing parsed packs: plan what an import changes, apply it in one transaction.

The statements are plain SQL text run through store/sql.py's ``Sql``, the same on every
database: on SQLite through ``sqlite3`` (``kvdrill import`` without SQLAlchemy:
store/sqlite_import.py), on PostgreSQL through SQLAlchemy. Bulk ``executemany`` writes, no ORM
objects. The parts: store/card_content.py (a card's stored values, hash and JSON),
store/import_checks.py (checks that need the database), store/import_topics.py (topic rows and
rollups), store/import_history.py (files stored before, bundled decks), store/import_plan.py
(what changed).

Identity is (pack key, card key). Re-importing an edited pack updates each card's row in place,
so its schedule (``card_states``) and answers (``review_log``) stay attached. A card missing from
the file is retired (out of drills, history kept) and comes back if it returns.

A card counts as *changed* when its stored content changes; moving it within the file (its line
or position) is not a change, though the stored line numbers follow the file.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kvdrill.gc_pause import collector_paused
from kvdrill.store.card_content import Encoded, PackDefaults, card_hash, card_topics, card_values
from kvdrill.store.import_checks import Takeover, check_packs
from kvdrill.store.import_history import RETIRE_CARD_SQL, stored_file_hash
from kvdrill.store.import_plan import ImportPlan, PackPlan
from kvdrill.store.import_topics import add_new_topics, sync_topics
from kvdrill.store.sql import Sql

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from kvdrill.engine.packs.model import ParsedPack

Progress = Callable[[int, int], None]  # (packs done, packs in all)


def as_sql(target: Session | Sql) -> Sql:
    """``Sql`` as it is, or inside an ORM session's transaction (store/db.py ``session_sql``)."""
    if isinstance(target, Sql):
        return target
    from kvdrill.store.db import session_sql

    return session_sql(target)


# --- planning ---------------------------------------------------------------------------------


@dataclass
class _Stored:
    """What the importer needs to know of a stored card (no text: cheap to load)."""

    id: int
    key: str
    retired: bool
    title: str
    content_hash: str
    parent_id: int | None
    source_line: int
    problem_line: int | None
    position: int


_EXISTING_SQL = (
    "SELECT id, key, retired, title, content_hash, parent_id, source_line, problem_line, "
    "position FROM cards WHERE pack_id = :pack_id"
)


def _existing_cards(db: Sql, pack_id: int | None) -> dict[str, _Stored]:
    if pack_id is None:
        return {}
    return {row[1]: _Stored(*row) for row in db.rows(_EXISTING_SQL, {"pack_id": pack_id})}


def _plan_pack(
    pack: ParsedPack, pack_id: int | None, existing: dict[str, _Stored]
) -> tuple[PackPlan, dict[str, dict[str, Any]], dict[str, str]]:
    plan = PackPlan(
        pack_key=pack.meta.pack,
        path=pack.path,
        new_pack=pack_id is None,
        titles={card.key: card.title for card in pack.cards},
    )
    values_by_key: dict[str, dict[str, Any]] = {}
    hash_by_key: dict[str, str] = {}
    defaults = PackDefaults.of(pack)
    for card in pack.cards:
        values = card_values(pack, card, defaults)
        digest = card_hash(values, card.parent)
        values_by_key[card.key] = values
        hash_by_key[card.key] = digest
        row = existing.get(card.key)
        if row is None:
            plan.added.append(card.key)
        elif row.retired:
            plan.revived.append(card.key)
        elif row.content_hash != digest:
            plan.changed.append(card.key)
        else:
            plan.unchanged.append(card.key)
    plan.retired = [
        key for key, row in existing.items() if not row.retired and key not in values_by_key
    ]
    plan.titles.update({key: existing[key].title for key in plan.retired})
    return plan, values_by_key, hash_by_key


def _pack_id(db: Sql, key: str) -> int | None:
    found = db.rows("SELECT id FROM packs WHERE key = :key", {"key": key})
    return found[0][0] if found else None


def plan_import(
    session: Session | Sql,
    packs: list[ParsedPack],
    *,
    bundled_keys: Collection[str] = (),
    replace: bool = False,
) -> ImportPlan:
    """What importing ``packs`` as the learner's own would change, per pack; writes nothing."""
    db = as_sql(session)
    taken_over = check_packs(db, packs, bundled=False, bundled_keys=bundled_keys, replace=replace)
    plan = ImportPlan()
    for pack in packs:
        takeover = taken_over.get(pack.meta.pack)
        pack_id = takeover.pack_id if takeover else _pack_id(db, pack.meta.pack)
        pack_plan, _, _ = _plan_pack(pack, pack_id, _existing_cards(db, pack_id))
        _note_takeover(pack_plan, takeover)
        plan.packs.append(pack_plan)
    return plan


def _note_takeover(plan: PackPlan, takeover: Takeover | None) -> None:
    if takeover is not None:
        plan.took_over_from = takeover.path
        plan.took_over_key = takeover.key
        plan.took_over_edition_of = takeover.edition_of


def _rekey(db: Sql, takeover: Takeover, key: str) -> None:
    """The stored pack taken over under another pack id gets the new id (its cards, their
    history and topics follow the row; an edition of it names the new id)."""
    db.run("UPDATE packs SET key = :key WHERE id = :id", {"key": key, "id": takeover.pack_id})
    db.run(
        "UPDATE packs SET edition_of = :key WHERE edition_of = :old",
        {"key": key, "old": takeover.key},
    )


# --- applying ---------------------------------------------------------------------------------


def apply_import(
    session: Session | Sql,
    packs: list[ParsedPack],
    *,
    now: datetime,
    bundled: bool = False,
    bundled_keys: Collection[str] = (),
    progress: Progress | None = None,
    replace: bool = False,
) -> ImportPlan:
    """Store ``packs`` (parsed and checked: app/services/importing.py) in the session's
    transaction at ``now`` and return what changed.

    Nothing is committed here: the caller's session commits all packs at once, or, on any
    error, rolls back and nothing is written. Only the bundled import (``bundled``) may store a
    pack under a bundled pack's id; only ``replace``, or the same Anki deck converted again,
    lets a file take over an id that another of the learner's files holds.
    """
    db = as_sql(session)
    taken_over = check_packs(db, packs, bundled=bundled, bundled_keys=bundled_keys, replace=replace)
    now = now.replace(microsecond=0)
    plan = ImportPlan()
    # Tens of thousands of short-lived rows: the collector would walk every parsed card again
    # and again.
    with collector_paused():
        for done, pack in enumerate(packs, start=1):
            takeover = taken_over.get(pack.meta.pack)
            if takeover is not None and takeover.key != pack.meta.pack:
                _rekey(db, takeover, pack.meta.pack)
            pack_plan = _apply_pack(db, pack, bundled=bundled, now=now)
            _note_takeover(pack_plan, takeover)
            plan.packs.append(pack_plan)
            if progress is not None:
                progress(done, len(packs))
    return plan


_PACK_COLUMNS = (
    "title",
    "version",
    "lang",
    "description",
    "lessons",
    "tags",
    "source_path",
    "content_hash",
    "bundled",
    "imported_at",
    "edition_of",
)
_INSERT_PACK_SQL = (
    f"INSERT INTO packs (key, {', '.join(_PACK_COLUMNS)}) "
    f"VALUES (:key, {', '.join(':' + column for column in _PACK_COLUMNS)})"
)
_UPDATE_PACK_SQL = (
    f"UPDATE packs SET {', '.join(f'{column} = :{column}' for column in _PACK_COLUMNS)} "
    "WHERE key = :key"
)
# A card's stored content (``card_values``), its hash and placement; JSON columns encoded.
_CONTENT_COLUMNS = (
    "kind",
    "title",
    "status",
    "prompt",
    "answer",
    "key_numbers",
    "tip",
    "choices",
    "explanation",
    "related",
    "problem",
    "tags",
    "lessons",
    "content_hash",
    "source_line",
    "problem_line",
    "position",
)
_PLACEMENT_COLUMNS = ("source_line", "problem_line", "position")
_CARD_COLUMNS = ("pack_id", "key", *_CONTENT_COLUMNS, "parent_id", "retired", "retired_at")
_REWRITE_CARD_SQL = (
    f"UPDATE cards SET {', '.join(f'{c} = :{c}' for c in _CONTENT_COLUMNS)}, "
    "retired = :retired, retired_at = NULL WHERE id = :id"
)
_MOVE_CARD_SQL = (
    f"UPDATE cards SET {', '.join(f'{c} = :{c}' for c in _PLACEMENT_COLUMNS)} WHERE id = :id"
)
_PARENT_SQL = "UPDATE cards SET parent_id = :parent_id WHERE id = :id"
_IDS_SQL = "SELECT key, id, parent_id FROM cards WHERE pack_id = :pack_id"


def _apply_pack(db: Sql, pack: ParsedPack, *, bundled: bool, now: datetime) -> PackPlan:
    meta = pack.meta
    pack_id = _pack_id(db, meta.pack)
    existing = _existing_cards(db, pack_id)
    plan, values_by_key, hash_by_key = _plan_pack(pack, pack_id, existing)

    db.run(
        _INSERT_PACK_SQL if pack_id is None else _UPDATE_PACK_SQL,
        {
            "key": meta.pack,
            "title": meta.title,
            "version": meta.version,
            "lang": meta.lang,
            "description": meta.description,
            "lessons": db.json(list(meta.lessons)),
            "tags": db.json(list(meta.tags)),
            "source_path": pack.path,
            "content_hash": stored_file_hash(pack.content_hash),
            "bundled": bundled,
            "imported_at": db.time(now),
            "edition_of": meta.edition_of,
        },
    )
    if pack_id is None:
        pack_id = _pack_id(db, meta.pack)
        assert pack_id is not None  # just inserted

    # Rows are updated in place, so card ids (and the history on them) never change.
    placement = {
        card.key: (card.line, card.problem_line, index) for index, card in enumerate(pack.cards)
    }
    encoded = Encoded(db)

    def rewritten(key: str) -> dict[str, Any]:
        row = dict(
            zip(
                _CONTENT_COLUMNS,
                encoded.content(values_by_key[key], hash_by_key[key], placement[key]),
                strict=True,
            )
        )
        return row | {"id": existing[key].id, "retired": False}

    db.many(_REWRITE_CARD_SQL, [rewritten(key) for key in (*plan.changed, *plan.revived)])
    db.many(
        _MOVE_CARD_SQL,
        [
            {"id": existing[key].id, **dict(zip(_PLACEMENT_COLUMNS, placement[key], strict=True))}
            for key in plan.unchanged
            if _placement_of(existing[key]) != placement[key]
        ],
    )
    db.insert(
        "cards",
        _CARD_COLUMNS,
        [
            (
                pack_id,
                key,
                *encoded.content(values_by_key[key], hash_by_key[key], placement[key]),
                None,
                False,
                None,
            )
            for key in plan.added
        ],
    )
    db.many(
        RETIRE_CARD_SQL,
        [
            {"id": existing[key].id, "retired": True, "retired_at": db.time(now)}
            for key in plan.retired
        ],
    )

    if plan.added:
        ids = {
            key: (card_id, parent)
            for key, card_id, parent in db.rows(_IDS_SQL, {"pack_id": pack_id})
        }
    else:
        ids = {key: (row.id, row.parent_id) for key, row in existing.items()}
    parents = []
    for card in pack.cards:
        wanted = ids[card.parent][0] if card.parent is not None else None
        card_id, parent_id = ids[card.key]
        if parent_id != wanted:
            parents.append({"id": card_id, "parent_id": wanted})
    db.many(_PARENT_SQL, parents)

    # An edition's cards have no topics: the stats count its original's cards.
    edition = meta.edition_of is not None
    kept = [key for key in values_by_key if key in existing]
    sync_topics(
        db,
        pack_id,
        {
            ids[key][0]: set() if edition else card_topics(meta.pack, values_by_key[key])
            for key in kept
        },
    )
    if not edition:
        add_new_topics(
            db, meta.pack, [(ids[key][0], values_by_key[key]) for key in plan.added], encoded
        )
    return plan


def _placement_of(row: _Stored) -> tuple[int, int | None, int]:
    return (row.source_line, row.problem_line, row.position)
