"""Backups of a SQLite database: written with SQLite's online backup API, checked before kept.

- ``write_backup``: a consistent copy of the open database, even while another kvdrill is
  answering (the backup API copies a snapshot, page by page). It is written under a temporary
  name, checked in full (``integrity_check``: a quick check misses a damaged index), flushed to
  disk, then renamed into place: a backup that exists is whole. A copy that fails the check is
  the database's own damage (the copy is page for page), so it is reported as that.
- ``daily_backup``: on the first start of a study day, one copy in ``backups/`` beside the
  database, named for the day; only the newest ``backup_keep`` are kept (a setting, 0 turns
  automatic backups off).
- ``check_backup_file``: what restore needs to know before it replaces anything: the file is a
  regular file, SQLite, passes ``integrity_check``, and its schema is exactly the one kvdrill
  builds for its revision (every table, index, trigger and view: ``expected_schema``), so a
  copy with a trigger or a view of someone else's is refused.
- ``restore_backup``: copies a checked backup *into* the open database, again with the backup
  API, after saving the current contents as a backup of their own. Pages are written through
  SQLite's locks, so the file is never swapped under another process (which would leave its
  write-ahead log beside a file it does not belong to).
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from kvdrill.engine.errors import DatabaseUnusable, UserError
from kvdrill.i18n import _
from kvdrill.store.location import HEAD_REVISION
from kvdrill.store.raw_connection import sqlite_connection
from kvdrill.store.sqlite_file import SCHEMA_FILE, SQLITE_HEADER

if TYPE_CHECKING:  # a start that finds today's backup written loads neither (daily_backup_file)
    from sqlalchemy.orm import Session

    from kvdrill.store.db import Database

BACKUP_KEEP_KEY = "backup_keep"
DEFAULT_BACKUP_KEEP = 7
MAX_BACKUP_KEEP = 365
BACKUP_FOLDER = "backups"
SCHEMA_DIFFERENCES_SHOWN = 3
_KVDRILL_TABLES = {"alembic_version", "profiles", "packs", "cards", "card_states", "review_log"}


class BackupExists(UserError):
    """The backup's name is taken (by another kvdrill's copy of the same day, say)."""


@dataclass(frozen=True)
class BackupInfo:
    """A checked backup file and what it holds."""

    path: Path
    revision: str
    profiles: int
    cards: int
    answers: int


# --- the setting -------------------------------------------------------------------------------


def backup_keep(session: Session) -> int:
    """How many daily backups are kept (0: no automatic backups)."""
    from kvdrill.store.models import Setting

    row = session.get(Setting, BACKUP_KEEP_KEY)
    if row is None or not row.value.isdigit():
        return DEFAULT_BACKUP_KEEP
    return min(int(row.value), MAX_BACKUP_KEEP)


def set_backup_keep(session: Session, keep: int) -> None:
    if isinstance(keep, bool) or not isinstance(keep, int) or not 0 <= keep <= MAX_BACKUP_KEEP:
        raise UserError(
            _("the number of daily backups to keep is a whole number from 0 to {most}").format(
                most=MAX_BACKUP_KEEP
            )
        )
    from kvdrill.store.models import Setting

    session.merge(Setting(key=BACKUP_KEEP_KEY, value=str(keep)))


# --- writing ---------------------------------------------------------------------------------


def backup_folder(database_path: Path) -> Path:
    return database_path.parent / BACKUP_FOLDER


def write_backup(database: Database, target: Path) -> BackupInfo:
    """A copy of ``database`` at ``target``, which must not exist yet, checked in full."""
    info = _copy(database, target, verify=True)
    assert info is not None
    return BackupInfo(target, info.revision, info.profiles, info.cards, info.answers)


def _copy(database: Database, target: Path, verify: bool) -> BackupInfo | None:
    """Copy ``database`` to ``target`` page by page; ``verify`` checks the copy in full before
    it is put in place (a damaged database kept before a restore is copied as it is)."""
    if target.exists() or target.is_symlink():
        raise BackupExists(f"{target} already exists: choose another name, or move it away")
    if not target.parent.is_dir():
        raise UserError(
            _("the folder {parent} does not exist: create it first").format(parent=target.parent)
        )
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        copy = sqlite3.connect(partial)
        try:
            with database.engine.connect() as connection:
                sqlite_connection(connection).backup(copy)
        finally:
            copy.close()
        info = None
        if verify:
            damage = _damage(partial, "integrity_check")
            if damage:
                raise DatabaseUnusable(
                    _(
                        "the database {path} is damaged (integrity_check: {damage}); no backup was kept: run kvdrill doctor"
                    ).format(path=database.path or database.url, damage=damage)
                )
            info = check_backup_file(partial, thorough=False)
        _flush(partial)
        os.link(partial, target)  # never over a file that appeared meanwhile
        _flush(target.parent)
    except sqlite3.Error as exc:
        raise UserError(
            _("cannot write the backup {target}: {error}").format(target=target, error=exc)
        ) from None
    except FileExistsError:
        raise BackupExists(f"{target} already exists: choose another name") from None
    except OSError as exc:
        raise UserError(
            _("cannot write the backup {target}: {strerror}").format(
                target=target, strerror=exc.strerror or exc
            )
        ) from None
    finally:
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
    return info


def daily_backup(database: Database, today: date) -> Path | None:
    """Today's automatic backup, if there is none yet; older ones beyond the setting removed.

    None when there is nothing to do: an in-memory database, backups turned off, or today's
    copy already written."""
    if database.path is None:
        return None
    with database.session() as session:
        keep = backup_keep(session)
    if keep == 0:
        return None
    folder = backup_folder(database.path)
    target = daily_backup_file(database.path, today)
    if target.exists():
        return None
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise UserError(
            _("cannot create the backup folder {folder}: {strerror}").format(
                folder=folder, strerror=exc.strerror
            )
        ) from None
    # The oldest go first, so a copy that fills the disk was never the reason to keep them.
    prune_daily_backups(database.path, keep - 1)
    try:
        write_backup(database, target)
    except BackupExists:
        return None  # another kvdrill started today too, and wrote it first
    return target


def daily_backup_file(database_path: Path, today: date) -> Path:
    """Where the automatic backup of ``today`` goes (``daily_backups`` finds them by name)."""
    return backup_folder(database_path) / f"{database_path.stem}-{today.isoformat()}.db"


def prune_daily_backups(database_path: Path, keep: int) -> int:
    """Remove the automatic backups beyond the newest ``keep``; how many were removed."""
    old = (
        daily_backups(database_path)[: -keep or None] if keep > 0 else daily_backups(database_path)
    )
    for path in old:
        path.unlink(missing_ok=True)
    return len(old)


def newest_sound_backup(database_path: Path) -> Path | None:
    """The newest backup in backups/ beside the database (automatic or not) that passes the
    full check a restore makes: a damaged newer one is passed over for a good older one."""
    folder = backup_folder(database_path)
    if not folder.is_dir():
        return None
    candidates = [
        path
        for path in folder.iterdir()
        if path.name.startswith(f"{database_path.stem}-") and path.suffix == ".db"
    ]
    for path in sorted(candidates, key=_modified, reverse=True):
        try:
            check_backup_file(path, thorough=True)
        except UserError:
            continue
        return path
    return None


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def daily_backups(database_path: Path) -> list[Path]:
    """The automatic backups of a database, oldest first."""
    pattern = re.compile(rf"{re.escape(database_path.stem)}-\d{{4}}-\d\d-\d\d\.db")
    folder = backup_folder(database_path)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if pattern.fullmatch(p.name))


def _flush(path: Path) -> None:
    """fsync a file or a folder: a backup that was renamed into place survives a power cut."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


# --- checking and restoring ----------------------------------------------------------------------


def check_backup_file(path: Path, thorough: bool = True) -> BackupInfo:
    """Refuse (UserError) a file that is not an undamaged kvdrill database this kvdrill can
    open; ``thorough`` runs the full integrity_check rather than the quick one."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO or a device would never end
            raise UserError(
                _("{path} is not a regular file, so not a kvdrill backup").format(path=path)
            )
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise UserError(
            _("cannot read {path}: {strerror}").format(path=path, strerror=exc.strerror or exc)
        ) from None
    if header != SQLITE_HEADER:
        raise UserError(
            _("{path} is not a SQLite database, so not a kvdrill backup").format(path=path)
        )
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return _inspect(connection, path, thorough)
        finally:
            connection.close()
    except sqlite3.Error as exc:
        raise UserError(
            _("{path} cannot be read as a database: {error}").format(path=path, error=exc)
        ) from None


def _damage(path: Path, pragma: str) -> str | None:
    """The first problem SQLite's ``pragma`` (integrity_check, quick_check) finds, or None."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return _first_problem(connection, pragma)
    finally:
        connection.close()


def _first_problem(connection: sqlite3.Connection, pragma: str) -> str | None:
    found = [row[0] for row in connection.execute(f"PRAGMA {pragma}(5)")]
    return None if found == ["ok"] else str(found[0]).splitlines()[-1]


def _inspect(connection: sqlite3.Connection, path: Path, thorough: bool) -> BackupInfo:
    pragma = "integrity_check" if thorough else "quick_check"
    damage = _first_problem(connection, pragma)
    if damage:
        raise UserError(
            _("{path} is damaged ({pragma}: {damage}); it cannot be used").format(
                path=path, pragma=pragma, damage=damage
            )
        )
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    if not _KVDRILL_TABLES <= tables:
        raise UserError(_("{path} is a SQLite database, but not a kvdrill one").format(path=path))
    revisions = [
        str(row[0]) for row in connection.execute("SELECT version_num FROM alembic_version")
    ]
    if len(revisions) != 1:
        raise UserError(
            _("{path} is not a kvdrill backup: it holds no schema revision").format(path=path)
        )
    revision = revisions[0]
    if revision.isdigit() and int(revision) > int(HEAD_REVISION):
        raise UserError(
            _(
                "{path} was written by a newer kvdrill (schema revision {revision}); upgrade kvdrill to use it"
            ).format(path=path, revision=revision)
        )
    expected = expected_schema(revision)
    if expected is None:
        raise UserError(
            _("{path} is not a kvdrill backup: no kvdrill has a schema revision {revision}").format(
                path=path, revision=repr(revision[:40])
            )
        )
    difference = _schema_difference(schema_of(connection), expected)
    if difference:
        raise UserError(
            _(
                "the schema of {path} is not one kvdrill wrote for revision {revision} ({difference}); it was not restored"
            ).format(path=path, revision=revision, difference=difference)
        )

    def count(table: str) -> int:
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    return BackupInfo(path, revision, count("profiles"), count("cards"), count("review_log"))


# Every object of a schema: (type, name) -> (table, its SQL with the spacing evened out).
Schema = dict[tuple[str, str], tuple[str, str | None]]


def schema_of(connection: sqlite3.Connection) -> Schema:
    """Every table, index, trigger and view of a database (SQLite's own bookkeeping aside:
    sqlite_sequence appears with the first row of an AUTOINCREMENT table)."""
    rows = connection.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master "
        "WHERE name NOT IN ('sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4')"
    )
    return {
        (kind, name): (table, " ".join(sql.split()) if sql else None)
        for kind, name, table, sql in rows
    }


def _schema_difference(found: Schema, expected: Schema) -> str | None:
    """The objects that differ, in words (the first few); None when the schemas are the same."""
    differences = [
        f"{kind} {name} is not kvdrill's" for kind, name in sorted(found.keys() - expected.keys())
    ]
    differences += [
        f"{kind} {name} is missing" for kind, name in sorted(expected.keys() - found.keys())
    ]
    differences += [
        f"{key[0]} {key[1]} is defined otherwise"
        for key in sorted(found.keys() & expected.keys())
        if found[key] != expected[key]
    ]
    if not differences:
        return None
    more = len(differences) - SCHEMA_DIFFERENCES_SHOWN
    return "; ".join(differences[:SCHEMA_DIFFERENCES_SHOWN]) + (
        f"; and {more} more" if more > 0 else ""
    )


@lru_cache(maxsize=4)
def expected_schema(revision: str) -> Schema | None:
    """The schema kvdrill builds at ``revision``: the schema script at head, the migrations up
    to it otherwise (in memory); None for a revision no kvdrill has."""
    if revision != HEAD_REVISION:
        return _migrated_schema(revision)
    connection = sqlite3.connect(":memory:")
    try:
        connection.executescript(SCHEMA_FILE.read_text(encoding="utf-8"))
        return schema_of(connection)
    finally:
        connection.close()


def _migrated_schema(revision: str) -> Schema | None:
    """The schema the migrations build from empty up to ``revision``, in memory; None if no
    migration has that revision."""
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine
    from sqlalchemy.pool import StaticPool

    from kvdrill.store.migrate import MIGRATIONS_DIR

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    known = {rev.revision for rev in ScriptDirectory.from_config(config).walk_revisions()}
    if revision not in known:
        return None
    engine = create_engine("sqlite://", poolclass=StaticPool)
    try:
        with engine.connect() as bound:
            config.attributes["connection"] = bound
            command.upgrade(config, revision)
            bound.commit()
            return schema_of(sqlite_connection(bound))
    finally:
        engine.dispose()


def restore_backup(database: Database, source: Path, safety_copy: Path) -> BackupInfo:
    """Replace the contents of ``database`` with the backup ``source``, after checking it and
    saving the current contents to ``safety_copy``. An older schema is upgraded when the
    database is next opened."""
    if database.path is not None and source.resolve() == database.path.resolve():
        raise UserError(
            _("{source} is the database itself, not a backup of it").format(source=source)
        )
    info = check_backup_file(source, thorough=True)
    try:
        safety_copy.parent.mkdir(exist_ok=True)
    except OSError as exc:
        raise UserError(
            _("cannot create {parent}: {strerror}").format(
                parent=safety_copy.parent, strerror=exc.strerror
            )
        ) from None
    _copy(database, safety_copy, verify=False)  # kept even if damaged: it is what there was
    try:
        backup = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
        try:
            with database.engine.connect() as connection:
                backup.backup(sqlite_connection(connection))
        finally:
            backup.close()
    except sqlite3.Error as exc:
        raise UserError(
            _(
                "restoring {source} failed ({error}); the database is as it was, and its contents are also in {safety_copy}"
            ).format(source=source, error=exc, safety_copy=safety_copy)
        ) from None
    return info
