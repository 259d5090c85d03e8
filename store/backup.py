"""Backups of a SQLite database: written with SQLite's online backup API, checked before kept.

- ``write_backup``: a consistent copy of the open database, even while another kvdrill is
  answering (the backup API copies a snapshot, page by page). It is written under a temporary
  name, quick-checked, flushed to disk, then renamed into place: a backup that exists is whole.
- ``daily_backup``: on the first start of a study day, one copy in ``backups/`` beside the
  database, named for the day; only the newest ``backup_keep`` are kept (a setting, 0 turns
  automatic backups off).
- ``check_backup_file``: what restore needs to know before it replaces anything: the file is
  SQLite, passes ``integrity_check``, and holds a kvdrill schema this version can open.
- ``restore_backup``: copies a checked backup *into* the open database, again with the backup
  API, after saving the current contents as a backup of their own. Pages are written through
  SQLite's locks, so the file is never swapped under another process (which would leave its
  write-ahead log beside a file it does not belong to).
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlalchemy.orm import Session

from kvdrill.engine.errors import UserError
from kvdrill.store.db import Database
from kvdrill.store.location import HEAD_REVISION
from kvdrill.store.models import Setting
from kvdrill.store.sqlite_file import SQLITE_HEADER

BACKUP_KEEP_KEY = "backup_keep"
DEFAULT_BACKUP_KEEP = 7
MAX_BACKUP_KEEP = 365
BACKUP_FOLDER = "backups"
_KVDRILL_TABLES = {"alembic_version", "profiles", "packs", "cards", "card_states", "review_log"}


@dataclass(frozen=True)
class BackupInfo:
    """A checked backup file and what it holds."""

    path: Path
    revision: str
    profiles: int
    cards: int
    answers: int

    def summary(self) -> str:
        return (
            f"{self.path}: {self.answers:,} answers, {self.cards:,} cards, "
            f"{self.profiles} profile{'s' if self.profiles != 1 else ''}"
        )


# --- the setting -------------------------------------------------------------------------------


def backup_keep(session: Session) -> int:
    """How many daily backups are kept (0: no automatic backups)."""
    row = session.get(Setting, BACKUP_KEEP_KEY)
    if row is None or not row.value.isdigit():
        return DEFAULT_BACKUP_KEEP
    return min(int(row.value), MAX_BACKUP_KEEP)


def set_backup_keep(session: Session, keep: int) -> None:
    if isinstance(keep, bool) or not isinstance(keep, int) or not 0 <= keep <= MAX_BACKUP_KEEP:
        raise UserError(
            f"the number of daily backups to keep is a whole number from 0 to {MAX_BACKUP_KEEP}"
        )
    session.merge(Setting(key=BACKUP_KEEP_KEY, value=str(keep)))


# --- writing ---------------------------------------------------------------------------------


def backup_folder(database_path: Path) -> Path:
    return database_path.parent / BACKUP_FOLDER


def write_backup(database: Database, target: Path) -> BackupInfo:
    """A checked copy of ``database`` at ``target``, which must not exist yet."""
    info = _copy(database, target, verify=True)
    assert info is not None
    return BackupInfo(target, info.revision, info.profiles, info.cards, info.answers)


def _copy(database: Database, target: Path, verify: bool) -> BackupInfo | None:
    """Copy ``database`` to ``target`` page by page; ``verify`` quick-checks the copy before it
    is put in place (a damaged database kept before a restore is copied as it is)."""
    if target.exists() or target.is_symlink():
        raise UserError(f"{target} already exists: choose another name, or move it away")
    if not target.parent.is_dir():
        raise UserError(f"the folder {target.parent} does not exist: create it first")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        copy = sqlite3.connect(partial)
        try:
            with database.engine.connect() as connection:
                connection.connection.dbapi_connection.backup(copy)
        finally:
            copy.close()
        info = check_backup_file(partial, thorough=False) if verify else None
        _flush(partial)
        os.link(partial, target)  # never over a file that appeared meanwhile
        _flush(target.parent)
    except sqlite3.Error as exc:
        raise UserError(f"cannot write the backup {target}: {exc}") from None
    except FileExistsError:
        raise UserError(f"{target} already exists: choose another name") from None
    except OSError as exc:
        raise UserError(f"cannot write the backup {target}: {exc.strerror or exc}") from None
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
    target = folder / f"{database.path.stem}-{today.isoformat()}.db"
    if target.exists():
        return None
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the backup folder {folder}: {exc.strerror}") from None
    write_backup(database, target)
    for old in daily_backups(database.path)[:-keep]:
        old.unlink(missing_ok=True)
    return target


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
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    if header != SQLITE_HEADER:
        raise UserError(f"{path} is not a SQLite database, so not a kvdrill backup")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return _inspect(connection, path, thorough)
        finally:
            connection.close()
    except sqlite3.Error as exc:
        raise UserError(f"{path} cannot be read as a database: {exc}") from None


def _inspect(connection: sqlite3.Connection, path: Path, thorough: bool) -> BackupInfo:
    pragma = "integrity_check" if thorough else "quick_check"
    found = [row[0] for row in connection.execute(f"PRAGMA {pragma}(5)")]
    if found != ["ok"]:
        first = str(found[0]).splitlines()[-1]
        raise UserError(f"{path} is damaged ({pragma}: {first}); it cannot be used")
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    if not _KVDRILL_TABLES <= tables:
        raise UserError(f"{path} is a SQLite database, but not a kvdrill one")
    revision = str(connection.execute("SELECT version_num FROM alembic_version").fetchone()[0])
    if not revision.isdigit() or int(revision) > int(HEAD_REVISION):
        raise UserError(
            f"{path} was written by a newer kvdrill (schema revision {revision}); "
            "upgrade kvdrill to use it"
        )

    def count(table: str) -> int:
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    return BackupInfo(path, revision, count("profiles"), count("cards"), count("review_log"))


def restore_backup(database: Database, source: Path, safety_copy: Path) -> BackupInfo:
    """Replace the contents of ``database`` with the backup ``source``, after checking it and
    saving the current contents to ``safety_copy``. An older schema is upgraded when the
    database is next opened."""
    if database.path is not None and source.resolve() == database.path.resolve():
        raise UserError(f"{source} is the database itself, not a backup of it")
    info = check_backup_file(source, thorough=True)
    try:
        safety_copy.parent.mkdir(exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {safety_copy.parent}: {exc.strerror}") from None
    _copy(database, safety_copy, verify=False)  # kept even if damaged: it is what there was
    try:
        backup = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
        try:
            with database.engine.connect() as connection:
                backup.backup(connection.connection.dbapi_connection)
        finally:
            backup.close()
    except sqlite3.Error as exc:
        raise UserError(
            f"restoring {source} failed ({exc}); the database is as it was, and its "
            f"contents are also in {safety_copy}"
        ) from None
    return info
