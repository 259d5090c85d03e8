"""A kvdrill SQLite file at the level of ``sqlite3``: its pragmas, the checks before one is
opened, the one routine that opens one and reads its schema revision (``open_at_head``), the
one that runs a read-only action on one (``read_current``), and a new one made in one step with
the current schema. Standard library only.

store/db.py opens every SQLite file through these, and so do the readers and the importer that
run without SQLAlchemy (store/fast_start.py, store/fast_stats.py, store/sqlite_import.py). A new
file gets its schema from ``schema_sqlite.sql`` (store/migrations/), the schema the migrations
build, generated from them by scripts/generate_sqlite_schema.py: creating it costs one
``executescript`` instead of loading Alembic and running every migration. tests/test_db.py
checks that the checked-in script is the generated one and builds the migrations' schema.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from kvdrill.engine.errors import UserError
from kvdrill.i18n import _
from kvdrill.store.guard import check_on_open
from kvdrill.store.location import HEAD_REVISION, sqlite_file
from kvdrill.store.sql import SqliteSql, schema_revision

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
SQLITE_HEADER = b"SQLite format 3\x00"
SCHEMA_FILE = Path(__file__).resolve().parent / "migrations" / "schema_sqlite.sql"

SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA foreign_keys=ON",
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
    "PRAGMA synchronous=FULL",
)


def set_pragmas(connection: sqlite3.Connection) -> None:
    cursor = connection.cursor()
    try:
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


def prepare_sqlite_file(path: Path, create_folder: bool) -> None:
    """Refuse a file that exists but is not a kvdrill database, before touching it; create a
    missing one (and, if ``create_folder``, its folder)."""
    try:
        if path.is_dir():
            raise UserError(_("{path} is a directory, not a database file").format(path=path))
        if path.exists():
            with path.open("rb") as handle:
                header = handle.read(len(SQLITE_HEADER))
            if not header:
                # kvdrill never leaves an empty file behind (see create_sqlite_file): this one
                # was truncated or made by something else, and taking it as new hides the loss.
                raise UserError(
                    _(
                        "the database {path} is an empty file (0 bytes), not a kvdrill database: restore a backup, or delete the file to start afresh"
                    ).format(path=path)
                )
            if header != SQLITE_HEADER:
                raise UserError(_("{path} is not a SQLite database").format(path=path))
            return
        if path.parent.exists() and not path.parent.is_dir():
            raise UserError(
                _("{parent} is not a folder, so it cannot hold the database").format(
                    parent=path.parent
                )
            )
        logs = (Path(f"{path}-wal"), Path(f"{path}-journal"))
        orphans = [log for log in logs if log.exists() and log.stat().st_size > 0]
        if orphans:
            # SQLite would replay this log into a new file of the same name, mixing two
            # databases: the file it belongs to was deleted or moved.
            raise UserError(
                _(
                    "{orphans} is left from a database {path} that was deleted or moved: put the database back, or delete {name} (and {database}-shm) to start afresh"
                ).format(orphans=orphans[0], path=path, name=orphans[0].name, database=path.name)
            )
        if not path.parent.exists():
            if not create_folder:
                raise UserError(
                    _(
                        "the folder {parent} does not exist: create it first, or check the database path for a typo"
                    ).format(parent=path.parent)
                )
            path.parent.mkdir(parents=True, exist_ok=True)
        create_sqlite_file(path)
    except OSError as exc:
        raise UserError(
            _("cannot use the database file {path}: {strerror}").format(
                path=path, strerror=exc.strerror or exc
            )
        ) from None


def create_schema(connection: sqlite3.Connection) -> None:
    """The current schema in an empty database, stamped with ``HEAD_REVISION`` as Alembic
    stamps it; committed."""
    connection.executescript(
        "BEGIN;\n"
        + SCHEMA_FILE.read_text(encoding="utf-8")
        + f"\nINSERT INTO alembic_version (version_num) VALUES ('{HEAD_REVISION}');\nCOMMIT;"
    )


def create_sqlite_file(path: Path) -> None:
    """A new database at ``path`` with the current schema, made in one step: built under a
    temporary name beside it, then linked into place. The path never holds a half-made (empty)
    file, so two kvdrills starting at once cannot mistake each other's new file for a damaged
    one."""
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    os.close(handle)
    temp = Path(temp_name)
    try:
        connection = sqlite3.connect(temp, isolation_level=None)
        try:
            set_pragmas(connection)  # WAL mode is kept in the file
            create_schema(connection)
        finally:
            connection.close()
        try:
            os.link(temp, path)
        except FileExistsError:
            pass  # another kvdrill made it first: use theirs
        except OSError:
            # No hard links on this file system: rename, unless one appeared meanwhile.
            if not path.exists():
                os.rename(temp, path)
    finally:
        for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm")):
            leftover.unlink(missing_ok=True)


def schema_statements(connection: sqlite3.Connection) -> list[str]:
    """The statements that make this database's schema (tables, indexes, triggers), in the
    order SQLite keeps them: what ``schema_sqlite.sql`` holds for a database at head."""
    rows = connection.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY rowid"
    )
    return [sql for (sql,) in rows]


def schema_script(statements: list[str]) -> str:
    """``schema_sqlite.sql``'s text for a database whose schema is ``statements``."""
    header = (
        f"-- The SQLite schema at revision {HEAD_REVISION}, as the migrations build it: "
        "written by\n-- scripts/generate_sqlite_schema.py (see store/migrations/README.md); "
        "do not edit.\n"
    )
    return header + "".join(f"{sql};\n" for sql in statements)


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """A ``sqlite3`` connection to the file at ``path`` in autocommit mode (transactions are
    begun explicitly: store/sql.py ``SqliteTransaction``), usable from any thread. A writable
    one gets ``SQLITE_PRAGMAS``; a read-only one waits as long for a lock."""
    if read_only:
        return sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro",
            uri=True,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        set_pragmas(connection)
    except BaseException:
        connection.close()
        raise
    return connection


def open_at_head(
    path: Path, *, read_only: bool = False, check: bool = True
) -> tuple[sqlite3.Connection, str | None]:
    """The one way a SQLite file is opened: connected (``connect``), quick-checked unless
    ``check`` is False (store/guard.py ``check_on_open``), and its schema revision read. The
    caller uses the connection only when the revision is ``HEAD_REVISION``, and closes it
    otherwise. SQLite's errors are the caller's to word."""
    connection = connect(path, read_only=read_only)
    try:
        if check:
            check_on_open(connection, path)
        sql = SqliteSql(connection)
        try:
            revision = schema_revision(sql)
        finally:
            sql.close()
    except BaseException:
        connection.close()
        raise
    return connection, revision


def open_current(
    path: Path,
    *,
    read_only: bool = False,
    check: bool | None = None,
    any_revision: bool = False,
) -> sqlite3.Connection | None:
    """``open_at_head`` for the readers and the importer that run without SQLAlchemy: the
    connection when the file exists and is at ``HEAD_REVISION``; None when the store's own
    ``open_database`` must handle it (no file yet, an older schema, any SQLite error, which it
    words). ``check``: the quick check (default: for a file opened to write). ``any_revision``:
    a file at another revision too, for a read whose statement older schemas answer alike."""
    if read_only and not path.is_file():
        return None
    try:
        connection, revision = open_at_head(
            path, read_only=read_only, check=not read_only if check is None else check
        )
    except sqlite3.Error:
        return None
    if revision != HEAD_REVISION and not any_revision:
        connection.close()
        return None
    return connection


def read_current(
    database_url: str,
    action: Callable[[SqliteSql], T],
    *,
    check: bool = True,
    failures: tuple[type[Exception], ...] = (sqlite3.Error,),
    any_revision: bool = False,
) -> T | None:
    """``action`` on the SQLite file of ``database_url`` at the current revision, opened
    read-only as the store opens it and closed after: the one routine of the readers that run
    without SQLAlchemy (a profile's language, ``kvdrill stats``, the plain reads). None when
    the store must open the database instead and say what is wrong: another database, no file
    yet, an older schema, a path it refuses, or one of ``failures`` raised while reading (a
    locked or damaged file). ``check``: quick-check the file first, so nothing is read from
    whatever pages of a damaged file are still readable. ``any_revision``: as ``open_current``."""
    try:
        path = sqlite_file(database_url)
        connection = (
            open_current(path, read_only=True, check=check, any_revision=any_revision)
            if path is not None
            else None
        )
    except (OSError, UserError):
        return None
    if connection is None:
        return None
    sql = SqliteSql(connection)
    try:
        return action(sql)
    except failures:
        return None
    finally:
        sql.close()
        connection.close()
