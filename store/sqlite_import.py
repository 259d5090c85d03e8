"""``kvdrill import`` into a SQLite file with ``sqlite3`` alone: SQLAlchemy and Alembic stay
unloaded, which is most of the time a short import or an unchanged re-import would take.
Standard library only (store/importer.py's statements, store/sqlite_file.py's checks and
pragmas, store/guard.py's guards).

Only a file at the current schema revision, or a new one (made at it); anything else, such as a
file an older kvdrill left, ``open_import_file`` leaves to store/db.py's ``open_database``,
which migrates it or says what is wrong. The guards are the same as on the engine: the quick
check on open, the file's identity before the commit, SQLite's errors as one line.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kvdrill.engine.errors import UserError
from kvdrill.store.guard import Guard, check_on_open
from kvdrill.store.importer import Statements
from kvdrill.store.location import HEAD_REVISION
from kvdrill.store.sqlite_file import prepare_sqlite_file, set_pragmas


class SqliteStatements(Statements):
    """The importer's statements on a bare ``sqlite3`` connection (it reads ``:name`` itself)."""

    sqlite = True

    def __init__(self, connection: sqlite3.Connection):
        self.connection = connection

    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[Any]:
        return self.connection.execute(sql, params or {}).fetchall()

    def run(self, sql: str, params: dict[str, Any] | None = None) -> None:
        self.connection.execute(sql, params or {})

    def many(self, sql: str, rows: list[dict[str, Any]]) -> None:
        if rows:
            self.connection.executemany(sql, rows)

    def many_positional(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            self.connection.executemany(sql, rows)

    def in_sqlite_transaction(self) -> bool:
        return self.connection.in_transaction


class SqliteImportFile:
    """A SQLite database at the current revision, open for importing."""

    def __init__(self, path: Path, connection: sqlite3.Connection, guard: Guard):
        self.path = path
        self.connection = connection
        self.guard = guard

    @contextmanager
    def transaction(self, write: bool) -> Iterator[Statements]:
        """One transaction: committed when the block ends normally (after the file's identity
        is checked), rolled back on any error, so a failed import writes nothing. ``write``
        takes the write lock first: another kvdrill importing at once waits, then sees ours."""
        connection = self.connection
        try:
            connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            yield SqliteStatements(connection)
            if write:
                self.guard.check_identity_raw(connection)
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            if connection.in_transaction:
                connection.rollback()
            if "locked" in str(exc) or "busy" in str(exc):
                raise UserError(
                    f"the database {self.path} is busy: another kvdrill kept it locked; "
                    "nothing was written, try again"
                ) from None
            self.guard.translate_raw_error(exc)
            raise
        except BaseException:
            if connection.in_transaction:
                connection.rollback()
            raise

    def close(self) -> None:
        self.connection.close()


def open_import_file(path: Path, create_folder: bool) -> SqliteImportFile | None:
    """The SQLite file at ``path`` (created if missing), open for importing; None when
    store/db.py's ``open_database`` must handle it: an older or foreign schema, or any SQLite
    error while opening (it words each one). A file that is not a database, or damaged, is
    refused here as there (``UserError``)."""
    prepare_sqlite_file(path, create_folder)
    try:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error:
        return None
    try:
        set_pragmas(connection)
        check_on_open(connection, path)
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error:
        connection.close()
        return None
    except BaseException:
        connection.close()
        raise
    if revision is None or revision[0] != HEAD_REVISION:
        connection.close()
        return None
    guard = Guard(None, path)
    guard.opened()
    return SqliteImportFile(path, connection, guard)
