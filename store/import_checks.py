"""The checks of an import that need the database: pack ids that belong to a bundled pack or
to another of the learner's files (unless the file is the same Anki deck converted again), a
second edition of one pack in one language, and follow-ups whose parent comes later.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kvdrill.engine.errors import Located, PackErrors
from kvdrill.engine.interop.card_ids import (
    GUID_ID_PREFIX,
    anki_note_of,
    converted_again,
    converted_from_anki,
)
from kvdrill.engine.packs.editions import one_language
from kvdrill.i18n import _
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
        _("pack id '{pack}' belongs to a bundled pack; give your pack its own id").format(
            pack=pack.meta.pack
        ),
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
                        _("follow-up's parent card '{parent}' does not come before it").format(
                            parent=card.parent
                        ),
                    )
                )
            card_keys.add(card.key)
    return problems


@dataclass(frozen=True)
class Takeover:
    """A stored pack that a file being imported takes over: as the same Anki deck converted
    again, or (``edition_of`` set) as the edition of that pack in the same language, by
    ``--replace``. Its row (``pack_id``), its key and file before; ``key`` differs from the
    file's pack id when the file has another name."""

    pack_id: int
    key: str
    path: str
    edition_of: str | None = None  # the original of the edition taken over


def rival_edition_problems(
    target: Sql, packs: list[ParsedPack], *, bundled: bool, replace: bool
) -> tuple[list[Located], dict[str, Takeover]]:
    """An edition whose original already has a stored edition in its language (``vi`` and
    ``vi-VN`` are one: ``one_language``) under another pack id (imported in an earlier run) would make two: a card would have two texts in that
    language. Refused, naming both files, unless ``replace``: the file then takes that
    edition's pack row over (its cards missing from the file are retired; the schedules are
    the original's cards' and stay). A bundled edition is never taken over: kvdrill's next
    start would bring it back. An edition stored before is updated as ever, even where a rival
    came later (a bundled edition a release added). Returns the refusals, and pack id -> the
    ``Takeover``."""
    if bundled:
        return [], {}  # kvdrill's own decks hold one edition per language (kvdrill check)
    editions = [pack for pack in packs if pack.meta.edition_of is not None]
    if not editions:
        return [], {}
    stored = target.rows(
        "SELECT id, key, edition_of, lang, source_path, bundled FROM packs "
        "WHERE edition_of IS NOT NULL"
    )
    keys = {key for (key,) in target.rows("SELECT key FROM packs")}
    run = {pack.meta.pack for pack in packs}  # a stored rival given again: both would stay
    problems: list[Located] = []
    taken_over: dict[str, Takeover] = {}
    for pack in editions:
        meta = pack.meta
        if any(
            key == meta.pack and original == meta.edition_of and one_language(language, meta.lang)
            for _id, key, original, language, _path, _bundled in stored
        ):
            continue  # an update of an edition stored before: it makes no second one
        for pack_id, key, original, language, path, is_bundled in stored:
            if key == meta.pack or original != meta.edition_of:
                continue
            if not one_language(language, meta.lang):
                continue
            where = path or key
            if is_bundled:
                said = _(
                    '{original} already has the bundled "{language}" edition {other} ({file}), '
                    "which kvdrill keeps up to date: keep it, or remove edition_of: from this "
                    "file to import it as a pack of its own"
                )
            elif replace and meta.pack not in keys and key not in run:
                taken_over[meta.pack] = Takeover(pack_id, key, where, edition_of=original)
                continue
            else:
                said = _(
                    '{original} already has a "{language}" edition, {other} from {file}: one '
                    "edition per language; import this file with --replace to put it in that "
                    "edition's place (the schedules are {original}'s cards' and stay)"
                )
            problems.append(
                Located(
                    pack.path,
                    1,
                    said.format(original=original, language=language, other=key, file=where),
                )
            )
    return problems, taken_over


def owned_id_problems(
    target: Sql, packs: list[ParsedPack], *, bundled: bool, replace: bool
) -> tuple[list[Located], dict[str, Takeover]]:
    """A pack whose id another existing file of the learner's holds would silently take that
    pack over and retire its cards: refused, naming the owner, unless ``replace``, or unless
    it is the same Anki deck converted again (``converted_again``), under the same pack id or
    another one. Returns the refusals, and pack id -> the ``Takeover`` of each Anki deck
    converted again."""
    if bundled:
        return [], {}
    keys = {pack.meta.pack for pack in packs}
    stored = {
        key: (pack_id, source_path)
        for pack_id, key, source_path in target.rows(
            "SELECT id, key, source_path FROM packs WHERE NOT bundled"
        )
    }
    problems: list[Located] = []
    taken_over: dict[str, Takeover] = {}
    for pack in packs:
        key = pack.meta.pack
        if key not in stored:
            found = _converted_under_another_id(target, pack, stored)
            if found is None:
                continue
            problem = _older_or_twice(pack, found, keys)
            if problem is not None:
                problems.append(problem)
            else:
                taken_over[key] = found
            continue
        pack_id, owner = stored[key]
        if not _held_by_another_file(owner, pack.path):
            continue
        if converted_again(_live_card_keys(target, pack_id), (card.key for card in pack.cards)):
            found = Takeover(pack_id, key, owner)
            if (problem := _older_or_twice(pack, found, set())) is not None:
                problems.append(problem)
            else:
                taken_over[key] = found
            continue
        if replace:
            continue
        problems.append(
            Located(
                pack.path,
                1,
                _(
                    "pack id '{pack}' is already used by {owner}: give this pack its own id, "
                    "or import it with --replace to take the id over (that pack's cards "
                    "missing from this file are then retired)"
                ).format(pack=key, owner=owner),
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


def _converted_under_another_id(
    target: Sql, pack: ParsedPack, stored: dict[str, tuple[int, str]]
) -> Takeover | None:
    """The learner's stored pack that ``pack`` (a pack id not stored yet) is the same Anki deck
    of, converted again to a file of another name: the one sharing the most Anki notes, if it
    passes ``converted_again``. None for a pack with no card converted from an Anki note."""
    if not converted_from_anki(pack):
        return None
    new_keys = [card.key for card in pack.cards]
    by_pack: dict[int, list[str]] = {}
    for pack_id, card_key in target.rows(
        "SELECT c.pack_id, c.key FROM cards AS c JOIN packs AS p ON p.id = c.pack_id "
        "WHERE NOT p.bundled AND NOT c.retired AND c.key LIKE :prefix",
        {"prefix": GUID_ID_PREFIX + "%"},
    ):
        by_pack.setdefault(pack_id, []).append(card_key)
    notes = {anki_note_of(key) for key in new_keys} - {None}
    best: tuple[int, int] | None = None  # (notes shared, -pack row id)
    for pack_id, card_keys in by_pack.items():
        if not converted_again(card_keys, new_keys):
            continue
        shared = len(notes & {anki_note_of(key) for key in card_keys})
        if best is None or (shared, -pack_id) > best:
            best = (shared, -pack_id)
    if best is None:
        return None
    pack_id = -best[1]
    key, path = next((k, p) for k, (i, p) in stored.items() if i == pack_id)
    return Takeover(pack_id, key, path)


def _older_or_twice(pack: ParsedPack, found: Takeover, keys: set[str]) -> Located | None:
    """The newer conversion takes the pack over, once: refused when ``pack``'s file was
    written before the file the pack was stored from (an older conversion), or when that file's
    pack id is imported in this same run too (both files would claim the cards)."""
    if _written_before(pack.path, found.path):
        return Located(
            pack.path,
            1,
            _(
                "an older conversion of the same Anki deck as {file} (pack '{pack}'), "
                "converted later: import that file, or remove this one"
            ).format(file=found.path, pack=found.key),
        )
    if found.key in keys:
        return Located(
            pack.path,
            1,
            _(
                "the same Anki deck as {file} (pack '{pack}'), which this import holds too: "
                "import the newer conversion alone, or remove the older file"
            ).format(file=found.path, pack=found.key),
        )
    return None


def _written_before(given: str, stored: str) -> bool:
    try:
        return Path(given).stat().st_mtime_ns < Path(stored).stat().st_mtime_ns
    except OSError:  # the stored file is gone: the one given is all there is
        return False


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
) -> dict[str, Takeover]:
    """``PackErrors`` with every problem; else pack id -> the ``Takeover`` of the stored pack
    it takes over: as the same Anki deck converted again (``owned_id_problems``), or as the
    edition in its language (``rival_edition_problems``, with ``replace``)."""
    owned, taken_over = owned_id_problems(db, packs, bundled=bundled, replace=replace)
    rivals, editions_taken_over = rival_edition_problems(
        db, packs, bundled=bundled, replace=replace
    )
    problems = (
        parent_problems(packs)
        + bundled_id_problems(db, packs, bundled=bundled, bundled_keys=bundled_keys)
        + owned
        + rivals
    )
    if problems:
        raise PackErrors(problems)
    return taken_over | editions_taken_over
