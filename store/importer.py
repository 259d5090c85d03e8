"""Storing parsed packs: plan what an import changes, apply it in one transaction, keep history.

Identity is (pack key, card key). Re-importing an edited pack updates each card's row in place,
so its schedule (``card_states``) and answers (``review_log``) stay attached. A card missing from
the file is retired (out of drills, history kept) and comes back if it returns.

A card counts as *changed* when its stored content changes; moving it within the file (its line
or position) is not a change, though the stored line numbers follow the file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import delete, insert, select, tuple_, update
from sqlalchemy.orm import Session

from kvdrill.engine.errors import Located, PackErrors
from kvdrill.engine.packs.model import ParsedCard, ParsedPack
from kvdrill.store.models import Card, CardTopic, Pack, Setting

BUNDLED_HASH_KEY = "bundled_decks_hash"
# How this importer stores cards: bump it when that changes, so files stored before are stored
# again (it is part of the bundled decks' hash and of each pack's stored file hash).
IMPORT_FORMAT = "kvdrill-import-1"

Progress = Callable[[int, int], None]  # (packs done, packs in all)


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


def card_values(pack: ParsedPack, card: ParsedCard) -> dict[str, Any]:
    """The columns a parsed card is stored in, except its position, lines and parent row id.

    Tags are the pack's plus the card's; lessons are the card's own, else the pack's.
    """
    return {
        "kind": card.kind,
        "title": card.title,
        "status": card.status,
        "prompt": card.prompt,
        "answer": card.answer,
        "key_numbers": [number.model_dump() for number in card.key_numbers],
        "tip": card.tip,
        "choices": [choice.model_dump() for choice in card.choices],
        "explanation": card.explanation,
        "related": [related.model_dump() for related in card.related],
        "problem": card.problem,
        "tags": _unique([*pack.meta.tags, *card.tags]),
        "lessons": _unique(_lesson(lesson) for lesson in (card.lessons or pack.meta.lessons)),
    }


def card_hash(values: dict[str, Any], parent_key: str | None) -> str:
    """sha256 of what the learner sees of a card; line numbers left out so moving is no change."""
    content = dict(values)
    content["key_numbers"] = [
        {k: v for k, v in number.items() if k != "line"} for number in values["key_numbers"]
    ]
    content["parent"] = parent_key
    encoded = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def card_topics(pack_key: str, values: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        ("pack", pack_key),
        *(("tag", tag) for tag in values["tags"]),
        *(("lesson", lesson) for lesson in values["lessons"]),
    }


# --- checks that need the database ------------------------------------------------------------


def bundled_id_problems(
    session: Session,
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
    taken = set(session.scalars(select(Pack.key).where(Pack.bundled, Pack.key.in_(keys))))
    taken |= keys & set(bundled_keys)
    return [
        Located(
            pack.path,
            1,
            f"pack id '{pack.meta.pack}' belongs to a bundled pack; give your pack its own id",
        )
        for pack in packs
        if pack.meta.pack in taken
    ]


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
    session: Session, packs: list[ParsedPack], *, bundled: bool, replace: bool
) -> list[Located]:
    """A pack whose id another existing file of the learner's holds would silently take that
    pack over and retire its cards: refused, naming the owner, unless ``replace``."""
    if bundled or replace:
        return []
    owners = dict(
        session.execute(
            select(Pack.key, Pack.source_path).where(
                Pack.key.in_({pack.meta.pack for pack in packs}), Pack.bundled.is_(False)
            )
        ).all()
    )
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
    session: Session,
    packs: list[ParsedPack],
    *,
    bundled: bool,
    bundled_keys: Collection[str],
    replace: bool = False,
) -> None:
    problems = (
        parent_problems(packs)
        + bundled_id_problems(session, packs, bundled=bundled, bundled_keys=bundled_keys)
        + owned_id_problems(session, packs, bundled=bundled, replace=replace)
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


def _existing_cards(session: Session, pack_row: Pack | None) -> dict[str, _Stored]:
    if pack_row is None or pack_row.id is None:
        return {}
    rows = session.execute(
        select(
            Card.id,
            Card.key,
            Card.retired,
            Card.title,
            Card.content_hash,
            Card.parent_id,
            Card.source_line,
            Card.problem_line,
            Card.position,
        ).where(Card.pack_id == pack_row.id)
    )
    return {row.key: _Stored(*row) for row in rows}


def _plan_pack(
    pack: ParsedPack, pack_row: Pack | None, existing: dict[str, _Stored]
) -> tuple[PackPlan, dict[str, dict[str, Any]], dict[str, str]]:
    plan = PackPlan(
        pack_key=pack.meta.pack,
        path=pack.path,
        new_pack=pack_row is None,
        titles={card.key: card.title for card in pack.cards},
    )
    values_by_key: dict[str, dict[str, Any]] = {}
    hash_by_key: dict[str, str] = {}
    for card in pack.cards:
        values = card_values(pack, card)
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


def _pack_row(session: Session, key: str) -> Pack | None:
    return session.scalars(select(Pack).where(Pack.key == key)).one_or_none()


def plan_import(
    session: Session,
    packs: list[ParsedPack],
    *,
    bundled_keys: Collection[str] = (),
    replace: bool = False,
) -> ImportPlan:
    """What importing ``packs`` as the learner's own would change, per pack; writes nothing."""
    _check_packs(session, packs, bundled=False, bundled_keys=bundled_keys, replace=replace)
    plan = ImportPlan()
    for pack in packs:
        pack_row = _pack_row(session, pack.meta.pack)
        pack_plan, _, _ = _plan_pack(pack, pack_row, _existing_cards(session, pack_row))
        plan.packs.append(pack_plan)
    return plan


# --- applying ---------------------------------------------------------------------------------


def apply_import(
    session: Session,
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
    _check_packs(session, packs, bundled=bundled, bundled_keys=bundled_keys, replace=replace)
    now = now.replace(microsecond=0)
    plan = ImportPlan()
    for done, pack in enumerate(packs, start=1):
        plan.packs.append(_apply_pack(session, pack, bundled=bundled, now=now))
        if progress is not None:
            progress(done, len(packs))
    session.flush()
    return plan


def _apply_pack(session: Session, pack: ParsedPack, *, bundled: bool, now: datetime) -> PackPlan:
    meta = pack.meta
    pack_row = _pack_row(session, meta.pack)
    existing = _existing_cards(session, pack_row)
    plan, values_by_key, hash_by_key = _plan_pack(pack, pack_row, existing)

    if pack_row is None:
        pack_row = Pack(key=meta.pack)
        session.add(pack_row)
    pack_row.title = meta.title
    pack_row.version = meta.version
    pack_row.lang = meta.lang
    pack_row.description = meta.description
    pack_row.lessons = list(meta.lessons)
    pack_row.tags = list(meta.tags)
    pack_row.source_path = pack.path
    pack_row.content_hash = stored_file_hash(pack.content_hash)
    pack_row.bundled = bundled
    pack_row.imported_at = now
    session.flush()  # the pack's id, for new cards

    # Bulk statements rather than one ORM object per card: a 2,000-card pack re-imports in a
    # blink. Rows are updated in place, so card ids (and the history on them) never change.
    placement = {
        card.key: {"source_line": card.line, "problem_line": card.problem_line, "position": index}
        for index, card in enumerate(pack.cards)
    }
    rewritten = {*plan.changed, *plan.revived}
    full_rows = [
        {"id": existing[key].id, **_stored_values(key, values_by_key, hash_by_key, placement)}
        | {"retired": False, "retired_at": None}
        for key in rewritten
    ]
    moved = [
        {"id": existing[key].id, **placement[key]}
        for key in plan.unchanged
        if _placement_of(existing[key]) != placement[key]
    ]
    for rows in (full_rows, moved):
        if rows:
            session.execute(update(Card), rows)
    if plan.added:
        session.execute(
            insert(Card),
            [
                {"pack_id": pack_row.id, "key": key, "retired": False}
                | _stored_values(key, values_by_key, hash_by_key, placement)
                for key in plan.added
            ],
        )
    if plan.retired:
        session.execute(
            update(Card)
            .where(Card.id.in_([existing[key].id for key in plan.retired]))
            .values(retired=True, retired_at=now)
        )

    ids = _existing_cards(session, pack_row) if plan.added else existing
    parents = []
    for card in pack.cards:
        wanted = ids[card.parent].id if card.parent is not None else None
        if ids[card.key].parent_id != wanted:
            parents.append({"id": ids[card.key].id, "parent_id": wanted})
    if parents:
        session.execute(update(Card), parents)

    _sync_topics(
        session,
        pack_row.id,
        {ids[key].id: card_topics(meta.pack, values) for key, values in values_by_key.items()},
    )
    return plan


def _stored_values(
    key: str,
    values_by_key: dict[str, dict[str, Any]],
    hash_by_key: dict[str, str],
    placement: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    return values_by_key[key] | placement[key] | {"content_hash": hash_by_key[key]}


def _placement_of(row: _Stored) -> dict[str, Any]:
    return {
        "source_line": row.source_line,
        "problem_line": row.problem_line,
        "position": row.position,
    }


def _sync_topics(session: Session, pack_id: int, wanted: dict[int, set[tuple[str, str]]]) -> None:
    """Make ``card_topics`` hold exactly ``wanted`` for these cards (retired cards keep theirs)."""
    if not wanted:
        return
    current: dict[int, set[tuple[str, str]]] = {card_id: set() for card_id in wanted}
    for card_id, kind, value in session.execute(
        select(CardTopic.card_id, CardTopic.kind, CardTopic.value)
        .join(Card, Card.id == CardTopic.card_id)
        .where(Card.pack_id == pack_id)
    ):
        if card_id in current:
            current[card_id].add((kind, value))
    stale = [
        (card_id, kind, value)
        for card_id, topics in current.items()
        for kind, value in topics - wanted[card_id]
    ]
    fresh = [
        {"card_id": card_id, "kind": kind, "value": value}
        for card_id, topics in wanted.items()
        for kind, value in sorted(topics - current[card_id])
    ]
    if stale:
        session.execute(
            delete(CardTopic).where(
                tuple_(CardTopic.card_id, CardTopic.kind, CardTopic.value).in_(stale)
            )
        )
    if fresh:
        session.execute(CardTopic.__table__.insert(), fresh)


# --- files stored before, byte for byte ----------------------------------------------------------


def stored_file_hash(content_hash: str) -> str:
    """What ``packs.content_hash`` holds: the file's sha256 under this ``IMPORT_FORMAT``."""
    return hashlib.sha256(f"{IMPORT_FORMAT}:{content_hash}".encode()).hexdigest()


def stored_unchanged(session: Session, digests: dict[str, str]) -> dict[str, PackPlan]:
    """The learner's packs stored from these very files: path -> a plan with every live card
    unchanged. ``digests`` maps a file's path, as the importer stores it, to the sha256 of its
    bytes; a pack stored from another path, other bytes or another ``IMPORT_FORMAT`` is not
    one of them."""
    if not digests:
        return {}
    rows = session.execute(
        select(Pack.id, Pack.key, Pack.source_path, Pack.content_hash).where(
            ~Pack.bundled, Pack.source_path.in_(list(digests))
        )
    ).all()
    same = {
        row.id: row
        for row in rows
        if stored_file_hash(digests[row.source_path]) == row.content_hash
    }
    plans = {row.source_path: PackPlan(row.key, row.source_path) for row in same.values()}
    if same:
        for pack_id, key in session.execute(
            select(Card.pack_id, Card.key)
            .where(Card.pack_id.in_(list(same)), ~Card.retired)
            .order_by(Card.pack_id, Card.position)
        ):
            plans[same[pack_id].source_path].unchanged.append(key)
    return plans


def mark_reimported(session: Session, plans: Iterable[PackPlan], now: datetime) -> None:
    """Give packs skipped as unchanged the import time a full re-import would have given."""
    keys = [plan.pack_key for plan in plans]
    if keys:
        session.execute(
            update(Pack).where(Pack.key.in_(keys)).values(imported_at=now.replace(microsecond=0))
        )


# --- bundled decks ----------------------------------------------------------------------------


def recorded_bundled_hash(session: Session) -> str | None:
    """The hash of the bundled decks last stored in this database (None: never)."""
    recorded = session.get(Setting, BUNDLED_HASH_KEY)
    return recorded.value if recorded is not None else None


def record_bundled_hash(session: Session, digest: str) -> None:
    session.merge(Setting(key=BUNDLED_HASH_KEY, value=digest))


def retire_dropped_bundled(session: Session, keep: set[str], now: datetime) -> list[PackPlan]:
    """Retire the cards of bundled packs a release dropped (not in ``keep``), history kept."""
    now = now.replace(microsecond=0)
    plans = []
    dropped = session.scalars(select(Pack).where(Pack.bundled, Pack.key.not_in(keep)))
    for pack_row in dropped:
        plan = PackPlan(pack_key=pack_row.key, path=pack_row.source_path)
        for card in session.scalars(select(Card).where(Card.pack == pack_row, ~Card.retired)):
            card.retired = True
            card.retired_at = now
            plan.retired.append(card.key)
            plan.titles[card.key] = card.title
        plans.append(plan)
    return plans
