"""The checks of an import that need the database: pack ids that belong to a bundled pack or
to another of the learner's files, and follow-ups whose parent comes later.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from kvdrill.engine.errors import Located, PackErrors
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
) -> list[Located]:
    """A pack whose id another existing file of the learner's holds would silently take that
    pack over and retire its cards: refused, naming the owner, unless ``replace``."""
    if bundled or replace:
        return []
    keys = {pack.meta.pack for pack in packs}
    owners = {
        key: source_path
        for key, source_path in target.rows("SELECT key, source_path FROM packs WHERE NOT bundled")
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


def check_packs(
    db: Sql,
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
