"""Importing packs: one orchestration of find, parse and check for ``kvdrill check``,
``kvdrill import``, the TUI's import screen and the bundled decks.

``read_packs`` finds the files once, parses each once and runs every check that needs no
database (the parser's, then ``extra_checks``: templates and claims). Storing goes through
store/importer.py, which adds the one check that needs the database (a learner's pack may not
take a bundled pack's id).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvdrill.engine.errors import Located, PackErrors, UserError
from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.store.db import Database
    from kvdrill.store.sql import Sql
    from kvdrill.store.sqlite_import import SqliteImportFile

# The decks ship inside the package (kvdrill.decks); an installed wheel keeps them as plain files.
BUNDLED_DECKS = Path(str(resources.files("kvdrill.decks")))

Progress = Callable[[int, int], None]  # (done, in all)


@dataclass(frozen=True)
class ReadPacks:
    """Packs read from files: those that parsed, every problem, and counts for a summary."""

    files: list[Path]
    packs: list[Any]  # ParsedPack
    problems: list[Located]
    cards: int  # cards that parsed, in clean files and in files with errors


@dataclass(frozen=True)
class PackDiff:
    """What importing one pack would change."""

    key: str
    title: str
    path: str
    added: int
    changed: int
    retired: int
    unchanged: int
    added_titles: list[str] = field(default_factory=list)
    changed_titles: list[str] = field(default_factory=list)
    retired_titles: list[str] = field(default_factory=list)  # the card ids: the file lost them


@dataclass(frozen=True)
class ImportScan:
    """The dry run of an import: parsed packs, their diffs, and every error found."""

    paths: list[str]
    packs: list[Any]
    diffs: list[PackDiff]
    errors: list[str]  # each ``path:line: message``


def find_pack_files(paths: list[Path]) -> tuple[list[Path], list[Located]]:
    """The pack files named by ``paths`` (directories searched), and any path that is missing."""
    from kvdrill.app.services.pack_files import expand_pack_paths

    return expand_pack_paths(paths)


def read_files(
    files: list[Path], missing: Sequence[Located] = (), progress: Progress | None = None
) -> ReadPacks:
    """Parse and check ``files`` (found once by ``find_pack_files``)."""
    from kvdrill.app.services.pack_files import check_files
    from kvdrill.engine.packs.checks import DrawingChecks, extra_checks
    from kvdrill.engine.packs.claims import verify_key_numbers

    checked = check_files(files, progress=progress)
    problems = [*missing, *checked.problems]
    drawings = DrawingChecks()  # this read's: the packs' templates drawn once among them
    for pack in checked.packs:
        problems.extend(extra_checks(pack, drawings))
    problems.extend(edition_checks(checked.packs))
    # A file with errors still has its claims checked: an author sees every error at once.
    reported = {(problem.path, problem.line) for problem in problems}
    for path, key_numbers in checked.partial:
        problems.extend(
            problem
            for problem in verify_key_numbers(key_numbers, path)
            if (problem.path, problem.line) not in reported
        )
    return ReadPacks(files, checked.packs, problems, checked.cards)


def edition_checks(packs: list[Any], decks: Path = BUNDLED_DECKS) -> list[Located]:
    """Every problem of the editions among ``packs`` (engine/packs/editions.py), each compared
    with its original: one of ``packs``, else the bundled pack of that id."""
    from kvdrill.app.services.pack_files import front_matter_line, pack_lines
    from kvdrill.engine.packs.editions import edition_problems, rival_editions

    by_key = {pack.meta.pack: pack for pack in packs}
    lines = {pack.path: pack_lines(pack) for pack in packs if pack.meta.edition_of is not None}
    editions = [
        (pack, front_matter_line(pack, "edition_of", lines[pack.path]))
        for pack in packs
        if pack.meta.edition_of is not None
    ]
    problems = rival_editions(editions)
    for pack, line in editions:
        original = by_key.get(pack.meta.edition_of) or _bundled_pack(pack.meta.edition_of, decks)
        if original is None:
            problems.append(
                Located(
                    pack.path,
                    line,
                    _(
                        "edition_of: there is no pack {pack} among the packs given or the "
                        "bundled decks; give its file too"
                    ).format(pack=pack.meta.edition_of),
                )
            )
            continue
        problems.extend(edition_problems(pack, original, line, lines=lines[pack.path]))
    return problems


def editions_of(packs: list[Any]) -> list[tuple[Any, dict[str, Any]]]:
    """Each of ``packs`` that is no edition, with its editions among ``packs`` by language
    (empty when none of ``packs`` is an edition or has one: nothing to show)."""
    if not any(pack.meta.edition_of is not None for pack in packs):
        return []
    editions: dict[str, dict[str, Any]] = {}
    for pack in packs:
        if pack.meta.edition_of is not None:
            editions.setdefault(pack.meta.edition_of, {}).setdefault(pack.meta.lang, pack)
    return [
        (pack, editions.get(pack.meta.pack, {})) for pack in packs if pack.meta.edition_of is None
    ]


def _bundled_pack(key: str, decks: Path) -> Any:
    """The bundled pack with id ``key``, parsed, or None (also when it does not parse: the
    bundled import reports that)."""
    from kvdrill.app.services.pack_files import file_pack_id, parse_pack

    for path in bundled_pack_files(decks):
        if file_pack_id(path) == key:
            try:
                return parse_pack(path)
            except PackErrors:
                return None
    return None


def check_report(read: ReadPacks) -> dict[str, Any]:
    """``kvdrill check --json``: every error, and counts of packs, cards by kind, problem
    templates and claims (of the packs that parsed)."""
    kinds: dict[str, int] = {}
    claims = 0
    for pack in read.packs:
        for card in pack.cards:
            kinds[card.kind] = kinds.get(card.kind, 0) + 1
            claims += sum(1 for item in card.key_numbers if item.claim is not None)
    return {
        "ok": not read.problems,
        "files": len(read.files),
        "packs": len(read.packs),
        "cards": read.cards,
        "cards_by_kind": dict(sorted(kinds.items())),
        "problem_templates": kinds.get("problem", 0),
        "claims": claims,
        "editions": {
            pack.meta.pack: {lang: edition.meta.pack for lang, edition in editions.items()}
            for pack, editions in editions_of(read.packs)
        },
        "errors": [
            {"path": problem.path, "line": problem.line, "message": problem.message}
            for problem in sorted(read.problems)
        ],
    }


def read_packs(paths: list[Path], progress: Progress | None = None) -> ReadPacks:
    files, missing = find_pack_files(paths)
    return read_files(files, missing, progress)


def load_packs(paths: list[Path], progress: Progress | None = None) -> list[Any]:
    """Every pack under ``paths``, parsed and checked; ``PackErrors`` lists every problem."""
    read = read_packs(paths, progress)
    if read.problems:
        raise PackErrors(read.problems)
    return read.packs


# --- the bundled decks --------------------------------------------------------------------------


def bundled_pack_files(decks: Path = BUNDLED_DECKS) -> list[Path]:
    """The bundled pack files: every ``.md`` under decks/ except the format's README."""
    if not decks.is_dir():
        return []
    files, _ = find_pack_files([decks])
    return files


def bundled_hash(files: list[Path], decks: Path = BUNDLED_DECKS) -> str:
    """One sha256 over the bundled files' names and bytes (and the import format)."""
    from kvdrill.store.import_history import IMPORT_FORMAT

    digest = hashlib.sha256(IMPORT_FORMAT.encode())
    for path in files:
        digest.update(b"\0" + path.relative_to(decks).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@cache
def _bundled_keys(decks: Path, digest: str) -> frozenset[str]:
    """The pack ids of the bundled decks with hash ``digest``, read once per process from their
    front matter (a broken bundled file is reported by the bundled import itself)."""
    from kvdrill.app.services.pack_files import file_pack_id

    ids = (file_pack_id(path) for path in bundled_pack_files(decks))
    return frozenset(pack_id for pack_id in ids if pack_id is not None)


def with_bundled_id_clashes(read: ReadPacks, decks: Path = BUNDLED_DECKS) -> ReadPacks:
    """``read`` with a problem for each pack, not itself a bundled file, that takes a bundled
    pack's id: ``kvdrill check`` says what import would refuse."""
    from kvdrill.store.import_checks import bundled_id_problem

    files = bundled_pack_files(decks)
    if not files:
        return read
    bundled = {path.resolve() for path in files}
    taken = _bundled_keys(decks, bundled_hash(files, decks))
    clashes = [
        bundled_id_problem(pack)
        for pack in read.packs
        if pack.meta.pack in taken and Path(pack.path).resolve() not in bundled
    ]
    if not clashes:
        return read
    return ReadPacks(read.files, read.packs, [*read.problems, *clashes], read.cards)


def unstored_bundled_keys(sql: Sql, decks: Path = BUNDLED_DECKS) -> frozenset[str]:
    """The bundled decks' pack ids when this database has not stored the current bundled decks
    (then the files say which ids are taken); empty when it has (the packs table says)."""
    from kvdrill.store.import_history import recorded_bundled_hash

    files = bundled_pack_files(decks)
    if not files:
        return frozenset()
    digest = bundled_hash(files, decks)
    if recorded_bundled_hash(sql) == digest:
        return frozenset()
    return _bundled_keys(decks, digest)


def bundled_up_to_date(sql: Sql, decks: Path = BUNDLED_DECKS) -> bool:
    """Whether the database holds the bundled decks as they are (their hash, recorded)."""
    from kvdrill.store.import_history import recorded_bundled_hash

    files = bundled_pack_files(decks)
    return not files or recorded_bundled_hash(sql) == bundled_hash(files, decks)


def import_bundled(database: Database, now: datetime, decks: Path = BUNDLED_DECKS) -> Any:
    """Import the bundled decks if they differ from the ones last stored; None if they don't.

    Fast when nothing changed: the files are hashed, not parsed. A bundled pack that a release
    dropped has its cards retired, history kept.
    """
    from kvdrill.store.import_history import (
        record_bundled_hash,
        recorded_bundled_hash,
        retire_dropped_bundled,
    )
    from kvdrill.store.importer import apply_import

    # Listed and hashed once: the digest is also what the import records.
    files = bundled_pack_files(decks)
    if not files:
        return None
    digest = bundled_hash(files, decks)
    if database.read(recorded_bundled_hash) == digest:
        return None

    read = read_files(files)
    if read.problems:
        raise PackErrors(read.problems)

    def store(sql: Sql) -> Any:
        # Under the write lock, so two kvdrill processes starting at once import once.
        if recorded_bundled_hash(sql) == digest:
            return None
        plan = apply_import(sql, read.packs, now=now, bundled=True)
        keep = {pack.meta.pack for pack in read.packs}
        plan.packs.extend(retire_dropped_bundled(sql, keep, now))
        record_bundled_hash(sql, digest)
        return plan

    return database.write(store, _busy_message(database), whole_database=True)


# --- the learner's packs ------------------------------------------------------------------------


def database_file_missing(url: str) -> bool:
    """Whether ``url`` names a SQLite file that does not exist yet (an import creates it)."""
    from kvdrill.store.location import sqlite_file

    path = sqlite_file(url)
    return path is not None and not path.exists()


def open_import_database(
    url: str, url_source: str = "", create_folder: bool = False, sqlite_fast_path: bool = True
) -> Database | SqliteImportFile:
    """The database to import into: a SQLite file at the current schema (or a new one)
    through ``sqlite3`` alone (store/sqlite_import.py), which keeps SQLAlchemy unloaded; any
    other database, or a file that needs migrating, through ``open_database``."""
    from kvdrill.store.location import sqlite_file

    path = sqlite_file(url)
    # URL options are SQLAlchemy's to read; ``sqlite_fast_path`` False: an import that stores
    # more than packs (an Anki history, store/anki_history.py) needs the ORM session.
    if path is not None and "?" not in url and sqlite_fast_path:
        from kvdrill.store.sqlite_import import open_import_file

        opened = open_import_file(path, create_folder)
        if opened is not None:
            return opened
    from kvdrill.store.db import open_database

    return open_database(url, url_source, create_folder=create_folder)


def _busy_message(database: Database | SqliteImportFile) -> str:
    return (
        f"the database {database.path or 'in use'} is busy: another kvdrill kept it locked; "
        "nothing was written, try again"
    )


def plan_packs(
    database: Database | SqliteImportFile,
    packs: list[Any],
    replace: bool = False,
    then: Callable[[Any, Any], None] | None = None,
) -> Any:
    """What importing ``packs`` would change (an ``ImportPlan``); writes nothing. ``replace``
    lets a file take over a pack id another of the learner's files holds; ``then`` is called
    with the session and the plan (to plan what goes with the packs)."""
    from kvdrill.store.importer import plan_import

    def plan(sql: Sql) -> Any:
        return plan_import(sql, packs, bundled_keys=unstored_bundled_keys(sql), replace=replace)

    if then is None:
        return database.read(plan)
    from kvdrill.store.db import Database, session_sql

    assert isinstance(database, Database)  # what goes with the packs needs the ORM session
    with database.session() as session:
        planned = plan(session_sql(session))
        then(session, planned)
        session.rollback()
    return planned


def unchanged_files(database: Database | SqliteImportFile, files: list[Path]) -> dict[str, Any]:
    """The files this database stored before, byte for byte and from the same path: path ->
    the ``PackPlan`` of a re-import that changes nothing. They need no parsing; a file that
    cannot be read is left to the parser to report."""
    from kvdrill.app.services.pack_files import read_pack_bytes
    from kvdrill.store.import_history import stored_unchanged

    digests = {}
    for path in files:
        try:
            digests[str(path)] = hashlib.sha256(read_pack_bytes(path)).hexdigest()
        except PackErrors:
            continue

    def read(sql: Sql) -> tuple[dict[str, Any], frozenset[str]]:
        # A pack of the bundled decks' ids goes through the full checks.
        return stored_unchanged(sql, digests), unstored_bundled_keys(sql)

    found, taken = database.read(read)
    return {path: plan for path, plan in found.items() if plan.pack_key not in taken}


def store_packs(
    database: Database | SqliteImportFile,
    packs: list[Any],
    now: datetime,
    progress: Progress | None = None,
    unchanged: Sequence[Any] = (),
    replace: bool = False,
    then: Callable[[Any, Any], None] | None = None,
) -> Any:
    """Store ``packs`` in one transaction (all or nothing); the ``ImportPlan`` of what changed.

    ``unchanged``: plans from ``unchanged_files`` for files skipped unparsed; they are part of
    the returned plan and get this import's time. ``replace`` lets a file take over a pack id
    another of the learner's files holds. ``then`` is called with the session once the packs
    are stored and the plan, in the same transaction (what goes with the packs: an Anki
    history)."""
    from kvdrill.store.import_history import mark_reimported
    from kvdrill.store.importer import apply_import

    def store(sql: Sql) -> Any:
        stored = apply_import(
            sql,
            packs,
            now=now,
            bundled_keys=unstored_bundled_keys(sql),
            progress=progress,
            replace=replace,
        )
        mark_reimported(sql, unchanged, now)
        return stored

    if then is None:
        plan = database.write(store, _busy_message(database), whole_database=True)
    else:
        from kvdrill.store.db import Database, session_sql, write_transaction

        assert isinstance(database, Database)  # what goes with the packs needs the ORM session

        def store_with(session: Any) -> Any:
            stored = store(session_sql(session))
            then(session, stored)
            return stored

        plan = write_transaction(database, store_with, _busy_message(database), whole_database=True)
    plan.packs.extend(unchanged)
    return plan


def scan(database: Database, path_text: str) -> ImportScan:
    """Parse the packs under ``path_text`` and plan their import; writes nothing."""
    path = Path(path_text).expanduser()
    if not path.exists():
        raise UserError(
            _("{path} does not exist: type the path of a pack file or a directory").format(
                path=path
            )
        )
    try:
        packs = load_packs([path])
        plan = plan_packs(database, packs)
    except PackErrors as exc:
        return ImportScan([str(path)], [], [], [str(problem) for problem in exc.problems])
    titles = {pack.meta.pack: pack.meta.title for pack in packs}
    card_titles = {
        (pack.meta.pack, card.key): card.title + (" (follow-up)" if card.parent else "")
        for pack in packs
        for card in pack.cards
    }
    diffs = [_pack_diff(item, titles, card_titles) for item in plan.packs]
    return ImportScan([str(path)], packs, diffs, [])


def _pack_diff(
    item: Any, titles: dict[str, str], card_titles: dict[tuple[str, str], str]
) -> PackDiff:
    def named(keys: list[str]) -> list[str]:
        return [card_titles.get((item.pack_key, key), key) for key in keys]

    return PackDiff(
        key=item.pack_key,
        title=titles.get(item.pack_key, item.pack_key),
        path=item.path,
        added=len(item.added) + len(item.revived),
        changed=len(item.changed),
        retired=len(item.retired),
        unchanged=len(item.unchanged),
        added_titles=named(item.added + item.revived),
        changed_titles=named(item.changed),
        retired_titles=list(item.retired),
    )
