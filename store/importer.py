"""Storing parsed packs: plan what an import changes, apply it in one transaction, keep history.

The statements are plain SQL text, run through a small ``Statements`` adapter: on a SQLAlchemy
session (any database, PostgreSQL included) or on a bare ``sqlite3`` connection
(store/sqlite_import.py: ``kvdrill import`` into a SQLite file without loading SQLAlchemy).
Bulk ``executemany`` writes, no ORM objects: 10,000 cards store in a blink.

Identity is (pack key, card key). Re-importing an edited pack updates each card's row in place,
so its schedule (``card_states``) and answers (``review_log``) stay attached. A card missing from
the file is retired (out of drills, history kept) and comes back if it returns.

A card counts as *changed* when its stored content changes; moving it within the file (its line
or position) is not a change, though the stored line numbers follow the file.
"""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from json.encoder import c_make_encoder, encode_basestring, encode_basestring_ascii
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvdrill.engine.errors import Located, PackErrors
from kvdrill.store import rollups

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from kvdrill.engine.packs.model import ParsedCard, ParsedPack

BUNDLED_HASH_KEY = "bundled_decks_hash"
# How this importer stores cards: bump it when that changes, so files stored before are stored
# again (it is part of the bundled decks' hash and of each pack's stored file hash).
IMPORT_FORMAT = "kvdrill-import-1"

Progress = Callable[[int, int], None]  # (packs done, packs in all)


def _json_encoder(**options: Any) -> Callable[[Any], str]:
    """``json.JSONEncoder(**options).encode``, the same text, without building the standard
    library's C encoder again on every call (``encode`` does: most of the cost of encoding a
    card's small values, 20,000 times per 10,000 cards)."""
    encoder = json.JSONEncoder(**options)
    if c_make_encoder is None:  # a Python without the C accelerator
        return encoder.encode
    encode = c_make_encoder(
        {},  # circular-reference check, as check_circular=True (emptied after each call)
        encoder.default,
        encode_basestring_ascii if encoder.ensure_ascii else encode_basestring,
        None,
        encoder.key_separator,
        encoder.item_separator,
        encoder.sort_keys,
        encoder.skipkeys,
        encoder.allow_nan,
    )
    return lambda value: "".join(encode(value, 0))


# What ``card_hash`` encodes with, and the JSON columns are stored as (``json.dumps`` text).
_HASH_JSON = _json_encoder(sort_keys=True, ensure_ascii=False, default=str)
_COLUMN_JSON = _json_encoder()


@dataclass
class PackPlan:
    """What importing one pack changes, by card key."""

    pack_key: str
    path: str
    new_pack: bool = False
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    revived: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)  # card key -> title, for --json

    def summary(self) -> str:
        """``pack-key: N added, N changed, N retired, N unchanged`` (and revived, if any)."""
        line = (
            f"{self.pack_key}: {len(self.added)} added, {len(self.changed)} changed, "
            f"{len(self.retired)} retired, {len(self.unchanged)} unchanged"
        )
        if self.revived:
            line += f", {len(self.revived)} revived"
        return line

    @property
    def writes(self) -> bool:
        return bool(self.new_pack or self.added or self.changed or self.retired or self.revived)

    def to_dict(self) -> dict[str, Any]:
        """The pack's changes with each card's id and title (``import --json``)."""

        def cards(keys: list[str]) -> list[dict[str, str]]:
            return [{"id": key, "title": self.titles.get(key, "")} for key in keys]

        return {
            "pack": self.pack_key,
            "path": self.path,
            "new_pack": self.new_pack,
            "added": cards(self.added),
            "changed": cards(self.changed),
            "retired": cards(self.retired),
            "revived": cards(self.revived),
            "unchanged": len(self.unchanged),
        }


@dataclass
class ImportPlan:
    packs: list[PackPlan] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        return [pack.summary() for pack in self.packs]

    def count(self, what: str) -> int:
        """Total over packs of ``added``, ``changed``, ``retired``, ``unchanged`` or ``revived``."""
        return sum(len(getattr(pack, what)) for pack in self.packs)


# --- content of a card as stored ---------------------------------------------------------------


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _lesson(value: str) -> str:
    # "05" and "5" are the same lesson.
    return str(int(value)) if value.isdigit() else value


@dataclass(frozen=True)
class PackDefaults:
    """What every card of a pack starts from: the pack's tags and its lessons (normalised),
    each once. Worked out once per pack, not per card."""

    tags: list[str]
    lessons: list[str]

    @classmethod
    def of(cls, pack: ParsedPack) -> PackDefaults:
        return cls(
            _unique(pack.meta.tags), _unique(_lesson(lesson) for lesson in pack.meta.lessons)
        )


def card_values(
    pack: ParsedPack, card: ParsedCard, defaults: PackDefaults | None = None
) -> dict[str, Any]:
    """The columns a parsed card is stored in, except its position, lines and parent row id.

    Tags are the pack's plus the card's; lessons are the card's own, else the pack's.
    ``defaults``: the pack's ``PackDefaults``, if the caller has them already.
    """
    if defaults is None:
        defaults = PackDefaults.of(pack)
    return {
        "kind": card.kind,
        "title": card.title,
        "status": card.status,
        "prompt": card.prompt,
        "answer": card.answer,
        "key_numbers": [number.model_dump() for number in card.key_numbers],
        "tip": card.tip,
        "choices": [choice.model_dump() for choice in card.choices] if card.choices else [],
        "explanation": card.explanation,
        "related": [related.model_dump() for related in card.related] if card.related else [],
        "problem": card.problem,
        "tags": _unique([*defaults.tags, *card.tags]) if card.tags else list(defaults.tags),
        "lessons": (
            _unique(_lesson(lesson) for lesson in card.lessons)
            if card.lessons
            else list(defaults.lessons)
        ),
    }


def card_hash(values: dict[str, Any], parent_key: str | None) -> str:
    """sha256 of what the learner sees of a card; line numbers left out so moving is no change."""
    content = dict(values)
    content["key_numbers"] = [
        {k: v for k, v in number.items() if k != "line"} for number in values["key_numbers"]
    ]
    content["parent"] = parent_key
    encoded = _HASH_JSON(content)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def card_topics(pack_key: str, values: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        ("pack", pack_key),
        *(("tag", tag) for tag in values["tags"]),
        *(("lesson", lesson) for lesson in values["lessons"]),
    }


# --- the way to the database --------------------------------------------------------------------


class Statements:
    """The importer's few statements: SQL text with ``:name`` parameters, JSON and times encoded
    as the SQLAlchemy models store them (JSON as ``json.dumps`` text; on SQLite, a time as
    ``YYYY-MM-DD HH:MM:SS.ffffff`` text, SQLAlchemy's ``DateTime`` format)."""

    sqlite: bool

    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[Any]:
        raise NotImplementedError

    def run(self, sql: str, params: dict[str, Any] | None = None) -> None:
        raise NotImplementedError

    def many(self, sql: str, rows: list[dict[str, Any]]) -> None:
        raise NotImplementedError

    def many_positional(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """``executemany`` of ``?`` parameters on SQLite (no dict, no name lookup per value)."""
        raise NotImplementedError

    def insert(self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        """Insert ``rows``, each a tuple in ``columns`` order."""
        if not rows:
            return
        names = ", ".join(columns)
        if self.sqlite:
            marks = ", ".join("?" * len(columns))
            self.many_positional(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)
        else:
            values = ", ".join(f":{column}" for column in columns)
            self.many(
                f"INSERT INTO {table} ({names}) VALUES ({values})",
                [dict(zip(columns, row, strict=True)) for row in rows],
            )

    def in_sqlite_transaction(self) -> bool:
        """On SQLite, inside an open transaction: DDL here is part of it, rolled back with it."""
        raise NotImplementedError

    @staticmethod
    def json(value: Any) -> str | None:
        if value is None:
            return None
        # Most cards have no choices, no related prompts: skip the encoder for those.
        return "[]" if value == [] else _COLUMN_JSON(value)

    def time(self, value: datetime) -> datetime | str:
        return value.strftime("%Y-%m-%d %H:%M:%S.%f") if self.sqlite else value


class SessionStatements(Statements):
    """Statements in a SQLAlchemy session's transaction (any database kvdrill supports)."""

    def __init__(self, session: Session):
        from sqlalchemy import text

        self._text = text
        self.session = session
        self.sqlite = session.get_bind().dialect.name == "sqlite"
        session.flush()  # objects the caller added come before the text statements

    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[Any]:
        return list(self.session.execute(self._text(sql), params or {}).all())

    def run(self, sql: str, params: dict[str, Any] | None = None) -> None:
        self.session.execute(self._text(sql), params or {})

    def many(self, sql: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        if self.sqlite:
            # sqlite3 reads ``:name`` itself: the rows go to its executemany as they are, still
            # through the engine's error handling (store/guard.py), without a compile per row.
            self.session.connection().exec_driver_sql(sql, rows)
        else:
            self.session.execute(self._text(sql), rows)

    def many_positional(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        self.session.connection().exec_driver_sql(sql, rows)

    def in_sqlite_transaction(self) -> bool:
        if not self.sqlite:
            return False
        return self.session.connection().connection.dbapi_connection.in_transaction


def _statements(target: Session | Statements) -> Statements:
    return target if isinstance(target, Statements) else SessionStatements(target)


# --- checks that need the database ------------------------------------------------------------


def bundled_id_problems(
    target: Session | Statements,
    packs: list[ParsedPack],
    *,
    bundled: bool,
    bundled_keys: Collection[str] = (),
) -> list[Located]:
    """A learner's pack that reuses a bundled pack's id would take it over: one line per file.

    ``bundled_keys``: the bundled decks' ids not stored yet (a database that has not met the
    current bundled decks), so the files themselves say.
    """
    if bundled:
        return []  # the bundled decks update their own packs
    keys = {pack.meta.pack for pack in packs}
    stored = {key for (key,) in _statements(target).rows("SELECT key FROM packs WHERE bundled")}
    taken = keys & (stored | set(bundled_keys))
    return [bundled_id_problem(pack) for pack in packs if pack.meta.pack in taken]


def bundled_id_problem(pack: ParsedPack) -> Located:
    return Located(
        pack.path,
        1,
        f"pack id '{pack.meta.pack}' belongs to a bundled pack; give your pack its own id",
    )


def parent_problems(packs: list[ParsedPack]) -> list[Located]:
    """A follow-up whose parent does not come before it in its pack has no row to point to.

    The parser never makes one; this guards what the store needs. Duplicate ids are the
    parser's to report (engine/packs/parser.py), once."""
    problems: list[Located] = []
    for pack in packs:
        card_keys: set[str] = set()
        for card in pack.cards:
            if card.parent is not None and card.parent not in card_keys:
                problems.append(
                    Located(
                        pack.path,
                        card.line,
                        f"follow-up's parent card '{card.parent}' does not come before it",
                    )
                )
            card_keys.add(card.key)
    return problems


def owned_id_problems(
    target: Session | Statements, packs: list[ParsedPack], *, bundled: bool, replace: bool
) -> list[Located]:
    """A pack whose id another existing file of the learner's holds would silently take that
    pack over and retire its cards: refused, naming the owner, unless ``replace``."""
    if bundled or replace:
        return []
    keys = {pack.meta.pack for pack in packs}
    owners = {
        key: source_path
        for key, source_path in _statements(target).rows(
            "SELECT key, source_path FROM packs WHERE NOT bundled"
        )
        if key in keys
    }
    return [
        Located(
            pack.path,
            1,
            f"pack id '{pack.meta.pack}' is already used by {owners[pack.meta.pack]}: give "
            "this pack its own id, or import it with --replace to take the id over (that "
            "pack's cards missing from this file are then retired)",
        )
        for pack in packs
        if pack.meta.pack in owners and _held_by_another_file(owners[pack.meta.pack], pack.path)
    ]


def _held_by_another_file(stored: str, given: str) -> bool:
    """Whether the file recorded for a pack id still exists and is not ``given``. A recorded
    file that is gone was most likely renamed to ``given``: that one takes the id over."""
    if not stored:
        return False
    try:
        return Path(stored).exists() and Path(stored).resolve() != Path(given).resolve()
    except (OSError, RuntimeError):
        return stored != given


def _check_packs(
    db: Statements,
    packs: list[ParsedPack],
    *,
    bundled: bool,
    bundled_keys: Collection[str],
    replace: bool = False,
) -> None:
    problems = (
        parent_problems(packs)
        + bundled_id_problems(db, packs, bundled=bundled, bundled_keys=bundled_keys)
        + owned_id_problems(db, packs, bundled=bundled, replace=replace)
    )
    if problems:
        raise PackErrors(problems)


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


def _existing_cards(db: Statements, pack_id: int | None) -> dict[str, _Stored]:
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


def _pack_id(db: Statements, key: str) -> int | None:
    found = db.rows("SELECT id FROM packs WHERE key = :key", {"key": key})
    return found[0][0] if found else None


def plan_import(
    session: Session | Statements,
    packs: list[ParsedPack],
    *,
    bundled_keys: Collection[str] = (),
    replace: bool = False,
) -> ImportPlan:
    """What importing ``packs`` as the learner's own would change, per pack; writes nothing."""
    db = _statements(session)
    _check_packs(db, packs, bundled=False, bundled_keys=bundled_keys, replace=replace)
    plan = ImportPlan()
    for pack in packs:
        pack_id = _pack_id(db, pack.meta.pack)
        pack_plan, _, _ = _plan_pack(pack, pack_id, _existing_cards(db, pack_id))
        plan.packs.append(pack_plan)
    return plan


# --- applying ---------------------------------------------------------------------------------


def apply_import(
    session: Session | Statements,
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
    pack under a bundled pack's id; only ``replace`` lets a file take over an id that another
    of the learner's files holds.
    """
    db = _statements(session)
    _check_packs(db, packs, bundled=bundled, bundled_keys=bundled_keys, replace=replace)
    now = now.replace(microsecond=0)
    plan = ImportPlan()
    # Tens of thousands of short-lived rows and no cycles worth collecting: the cyclic GC,
    # paused meanwhile, would otherwise walk every parsed card again and again.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for done, pack in enumerate(packs, start=1):
            plan.packs.append(_apply_pack(db, pack, bundled=bundled, now=now))
            if progress is not None:
                progress(done, len(packs))
    finally:
        if was_enabled:
            gc.enable()
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
_TOPIC_COLUMNS = ("card_id", "kind", "value")
_REWRITE_CARD_SQL = (
    f"UPDATE cards SET {', '.join(f'{c} = :{c}' for c in _CONTENT_COLUMNS)}, "
    "retired = :retired, retired_at = NULL WHERE id = :id"
)
_MOVE_CARD_SQL = (
    f"UPDATE cards SET {', '.join(f'{c} = :{c}' for c in _PLACEMENT_COLUMNS)} WHERE id = :id"
)
_RETIRE_CARD_SQL = "UPDATE cards SET retired = :retired, retired_at = :retired_at WHERE id = :id"
_PARENT_SQL = "UPDATE cards SET parent_id = :parent_id WHERE id = :id"
_IDS_SQL = "SELECT key, id, parent_id FROM cards WHERE pack_id = :pack_id"
# New cards' topic rows at least this many: inserted with the per-row rollup trigger suspended
# and its sums added in three grouped statements (store/rollups.py), on SQLite. Before schema
# 0009 indexed card_states by card, each row through the trigger read every card state (20 new
# cards into 20,000 states: 114 ms that way, 24 ms in bulk). Since then, into 100,000 cards
# with states (CPU, median of 3): both ways cost the same, 6-11 ms, up to about 100 new cards;
# 400 cards 20 ms in bulk against 25 ms, 2,000 cards 74 ms against 105 ms. A card or two (under
# 16 rows) go through the trigger, which needs no schema change.
BULK_TOPIC_ROWS = 16


class _Encoded:
    """JSON text of a pack's cards, each list of tags or lessons encoded once."""

    def __init__(self, db: Statements):
        self.json = db.json
        self._lists: dict[tuple[str, ...], str | None] = {}

    def listed(self, values: list[str]) -> str | None:
        key = tuple(values)
        found = self._lists.get(key)
        if found is None:
            found = self._lists[key] = self.json(values)
        return found

    def json_each_reads_back(self) -> bool:
        """Whether SQLite's json_each gives back every tag and lesson encoded so far."""
        return not any(text and "\\u0000" in text for text in self._lists.values())

    def content(self, values: dict[str, Any], digest: str, placement: tuple) -> tuple:
        """A card's ``_CONTENT_COLUMNS``, in that order."""
        json = self.json
        return (
            values["kind"],
            values["title"],
            values["status"],
            values["prompt"],
            values["answer"],
            json(values["key_numbers"]),
            values["tip"],
            json(values["choices"]),
            values["explanation"],
            json(values["related"]),
            json(values["problem"]),
            self.listed(values["tags"]),
            self.listed(values["lessons"]),
            digest,
            *placement,
        )


def _apply_pack(db: Statements, pack: ParsedPack, *, bundled: bool, now: datetime) -> PackPlan:
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
        },
    )
    if pack_id is None:
        pack_id = _pack_id(db, meta.pack)

    # Rows are updated in place, so card ids (and the history on them) never change.
    placement = {
        card.key: (card.line, card.problem_line, index) for index, card in enumerate(pack.cards)
    }
    encoded = _Encoded(db)

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
        _RETIRE_CARD_SQL,
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

    kept = [key for key in values_by_key if key in existing]
    _sync_topics(
        db, pack_id, {ids[key][0]: card_topics(meta.pack, values_by_key[key]) for key in kept}
    )
    _add_new_topics(
        db, meta.pack, [(ids[key][0], values_by_key[key]) for key in plan.added], encoded
    )
    return plan


def _placement_of(row: _Stored) -> tuple[int, int | None, int]:
    return (row.source_line, row.problem_line, row.position)


def _new_topic_rows(
    pack_key: str, cards: list[tuple[int, dict[str, Any]]]
) -> list[tuple[int, str, str]]:
    """New cards' card_topics rows (``_TOPIC_COLUMNS``), each card's in (kind, value) order;
    the topics of each set of tags and lessons sorted once."""
    sorted_topics: dict[tuple[tuple[str, ...], tuple[str, ...]], list[tuple[str, str]]] = {}
    rows = []
    for card_id, values in cards:
        key = (tuple(values["tags"]), tuple(values["lessons"]))
        topics = sorted_topics.get(key)
        if topics is None:
            topics = sorted_topics[key] = sorted(card_topics(pack_key, values))
        rows.extend((card_id, kind, value) for kind, value in topics)
    return rows


def _sync_topics(db: Statements, pack_id: int, wanted: dict[int, set[tuple[str, str]]]) -> None:
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
        db.insert("card_topics", _TOPIC_COLUMNS, added)

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
# control characters) and which ``_Encoded.json_each_reads_back`` checks all the same.
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


def _reads_json(db: Statements) -> bool:
    """Whether the database is a SQLite with json_each built in."""
    (version,) = db.rows("SELECT sqlite_version()")[0]
    return tuple(int(part) for part in version.split(".")[:3]) >= JSON_EACH_SINCE


def _add_new_topics(
    db: Statements, pack_key: str, cards: list[tuple[int, dict[str, Any]]], encoded: _Encoded
) -> None:
    """The card_topics rows of the pack's new cards (``cards``: their ids and values). Many
    are inserted with the per-row rollup trigger suspended (store/rollups.py), on SQLite;
    a few go through it."""
    if not cards:
        return
    count = sum(1 + len(values["tags"]) + len(values["lessons"]) for _, values in cards)
    if count < BULK_TOPIC_ROWS or not db.in_sqlite_transaction():
        db.insert("card_topics", _TOPIC_COLUMNS, _new_topic_rows(pack_key, cards))
        return
    first_card = min(card_id for card_id, _ in cards)
    if encoded.json_each_reads_back() and _reads_json(db):

        def insert() -> None:
            db.run(_NEW_TOPICS_SQL, {"pack_key": pack_key, "first_card": first_card})

    else:
        rows = _new_topic_rows(pack_key, cards)

        def insert() -> None:
            db.insert("card_topics", _TOPIC_COLUMNS, rows)

    rollups.insert_new_topics(db, first_card, insert)


# --- files stored before, byte for byte ----------------------------------------------------------


def stored_file_hash(content_hash: str) -> str:
    """What ``packs.content_hash`` holds: the file's sha256 under this ``IMPORT_FORMAT``."""
    return hashlib.sha256(f"{IMPORT_FORMAT}:{content_hash}".encode()).hexdigest()


def stored_unchanged(session: Session | Statements, digests: dict[str, str]) -> dict[str, PackPlan]:
    """The learner's packs stored from these very files: path -> a plan with every live card
    unchanged. ``digests`` maps a file's path, as the importer stores it, to the sha256 of its
    bytes; a pack stored from another path, other bytes or another ``IMPORT_FORMAT`` is not
    one of them."""
    if not digests:
        return {}
    db = _statements(session)
    plans = {}
    for pack_id, key, source_path, content_hash in db.rows(
        "SELECT id, key, source_path, content_hash FROM packs WHERE NOT bundled"
    ):
        if source_path in digests and stored_file_hash(digests[source_path]) == content_hash:
            plan = PackPlan(key, source_path)
            plan.unchanged = [
                card_key
                for (card_key,) in db.rows(
                    "SELECT key FROM cards WHERE pack_id = :pack_id AND NOT retired "
                    "ORDER BY position",
                    {"pack_id": pack_id},
                )
            ]
            plans[source_path] = plan
    return plans


def mark_reimported(
    session: Session | Statements, plans: Iterable[PackPlan], now: datetime
) -> None:
    """Give packs skipped as unchanged the import time a full re-import would have given."""
    db = _statements(session)
    at = db.time(now.replace(microsecond=0))
    db.many(
        "UPDATE packs SET imported_at = :at WHERE key = :key",
        [{"key": plan.pack_key, "at": at} for plan in plans],
    )


# --- bundled decks ----------------------------------------------------------------------------


def recorded_bundled_hash(session: Session | Statements) -> str | None:
    """The hash of the bundled decks last stored in this database (None: never)."""
    found = _statements(session).rows(
        "SELECT value FROM settings WHERE key = :key", {"key": BUNDLED_HASH_KEY}
    )
    return found[0][0] if found else None


def record_bundled_hash(session: Session | Statements, digest: str) -> None:
    _statements(session).run(
        "INSERT INTO settings (key, value) VALUES (:key, :value) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        {"key": BUNDLED_HASH_KEY, "value": digest},
    )


def retire_dropped_bundled(
    session: Session | Statements, keep: set[str], now: datetime
) -> list[PackPlan]:
    """Retire the cards of bundled packs a release dropped (not in ``keep``), history kept."""
    db = _statements(session)
    at = db.time(now.replace(microsecond=0))
    plans = []
    for pack_id, key, source_path in db.rows(
        "SELECT id, key, source_path FROM packs WHERE bundled ORDER BY id"
    ):
        if key in keep:
            continue
        plan = PackPlan(pack_key=key, path=source_path)
        for card_id, card_key, title in db.rows(
            "SELECT id, key, title FROM cards WHERE pack_id = :pack_id AND NOT retired ORDER BY id",
            {"pack_id": pack_id},
        ):
            plan.retired.append(card_key)
            plan.titles[card_key] = title
            db.run(_RETIRE_CARD_SQL, {"id": card_id, "retired": True, "retired_at": at})
        plans.append(plan)
    return plans
