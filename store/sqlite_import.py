"""``kvdrill import`` into a SQLite file with ``sqlite3`` alone: SQLAlchemy and Alembic stay
unloaded, which is most of the time a short import or an unchanged re-import would take.
Standard library only.

Only a file at the current schema revision, or a new one (made at it); anything else, such as a
file an older kvdrill left, ``open_import_file`` leaves to store/db.py's ``open_database``,
which migrates it or says what is wrong. The file is opened, written and guarded as the store
opens, writes and guards it (store/sqlite_file.py ``open_at_head``, store/sql.py
``SqliteFile``): the quick check on open, the file's identity before the commit, SQLite's
errors as one line, a busy lock retried.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from kvdrill.store.guard import Guard
from kvdrill.store.sql import SqliteFile, SqliteSql
from kvdrill.store.sqlite_file import open_current, prepare_sqlite_file

T = TypeVar("T")


class SqliteImportFile:
    """A SQLite database at the current revision, open for importing: ``write`` and ``read``
    as ``Database`` has them."""

    def __init__(self, path: Path, file: SqliteFile):
        self.path = path
        self.file = file

    def write(
        self,
        action: Callable[[SqliteSql], T],
        locked_message: str,
        *,
        whole_database: bool = False,
    ) -> T:
        return self.file.write(action, locked_message)

    def read(self, action: Callable[[SqliteSql], T]) -> T:
        return self.file.read(action)

    def close(self) -> None:
        connection = self.file.detach()
        if connection is not None:
            connection.close()


def open_import_file(path: Path, create_folder: bool) -> SqliteImportFile | None:
    """The SQLite file at ``path`` (created if missing), open for importing; None when
    store/db.py's ``open_database`` must handle it: an older or foreign schema, or any SQLite
    error while opening (it words each one). A file that is not a database, or damaged, is
    refused here as there (``UserError``)."""
    prepare_sqlite_file(path, create_folder)
    connection = open_current(path)
    if connection is None:
        return None
    guard = Guard(str(path), path)
    guard.opened()
    return SqliteImportFile(path, SqliteFile(connection, guard))
