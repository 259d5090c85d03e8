"""The checks of an import that need the database: pack ids that belong to a bundled pack or
to another of the learner's files (unless the file is the same Anki deck converted again), and
follow-ups whose parent comes later.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from kvdrill.engine.errors import Located, PackErrors
from kvdrill.engine.interop.card_ids import converted_again
from kvdrill.store.sql import Sql

if TYPE_CHECKING:
    from kvdrill.engine.packs.model import ParsedPack


def bundled_id_problems(
    target: Sql,
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
    stored = {key for (key,) in target.rows("SELECT key FROM packs WHERE bundled")}
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
    target: Sql, packs: list[ParsedPack], *, bundled: bool, replace: bool
) -> tuple[list[Located], dict[str, str]]:
    """A pack whose id another existing file of the learner's holds would silently take that
    pack over and retire its cards: refused, naming the owner, unless ``replace``, or unless
    it is the same Anki deck converted again (``converted_again``). Returns the refusals, and
    pack id -> the file it takes over from for each Anki deck converted again."""
    if bundled:
        return [], {}
    keys = {pack.meta.pack for pack in packs}
    owners = {
        key: (pack_id, source_path)
        for pack_id, key, source_path in target.rows(
            "SELECT id, key, source_path FROM packs WHERE NOT bundled"
        )
        if key in keys
    }
    problems: list[Located] = []
    taken_over: dict[str, str] = {}
    for pack in packs:
        owner = owners.get(pack.meta.pack)
        if owner is None or not _held_by_another_file(owner[1], pack.path):
            continue
        if converted_again(_live_card_keys(target, owner[0]), (card.key for card in pack.cards)):
            taken_over[pack.meta.pack] = owner[1]
            continue
        if replace:
            continue
        problems.append(
            Located(
                pack.path,
                1,
                f"pack id '{pack.meta.pack}' is already used by {owner[1]}: give "
                "this pack its own id, or import it with --replace to take the id over (that "
                "pack's cards missing from this file are then retired)",
            )
        )
    return problems, taken_over


def _live_card_keys(target: Sql, pack_id: int) -> list[str]:
    return [
        key
        for (key,) in target.rows(
            "SELECT key FROM cards WHERE pack_id = :pack_id AND NOT retired", {"pack_id": pack_id}
        )
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


def check_packs(
    db: Sql,
    packs: list[ParsedPack],
    *,
    bundled: bool,
    bundled_keys: Collection[str],
    replace: bool = False,
) -> dict[str, str]:
    """``PackErrors`` with every problem; else pack id -> the other file whose pack it takes
    over as the same Anki deck converted again (``owned_id_problems``)."""
    owned, taken_over = owned_id_problems(db, packs, bundled=bundled, replace=replace)
    problems = (
        parent_problems(packs)
        + bundled_id_problems(db, packs, bundled=bundled, bundled_keys=bundled_keys)
        + owned
    )
    if problems:
        raise PackErrors(problems)
    return taken_over
