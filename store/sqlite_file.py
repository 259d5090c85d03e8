"""A kvdrill SQLite file at the level of ``sqlite3``: its pragmas, the checks before one is
opened, and a new one made in one step with the current schema. Standard library only.

store/db.py opens every database through these, and store/sqlite_import.py (``kvdrill import``
without SQLAlchemy) does too. A new file gets its schema from ``schema_sqlite.sql`` (store/
migrations/), the schema the migrations build, written out once per revision: creating it costs
one ``executescript`` instead of loading Alembic and running every migration.
tests/test_db.py checks that both give the same schema.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from kvdrill.engine.errors import UserError
from kvdrill.store.location import HEAD_REVISION

BUSY_TIMEOUT_MS = 5000
SQLITE_HEADER = b"SQLite format 3\x00"
SCHEMA_FILE = Path(__file__).resolve().parent / "migrations" / "schema_sqlite.sql"

SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA foreign_keys=ON",
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
    "PRAGMA synchronous=FULL",
)


def set_pragmas(connection: sqlite3.Connection, pragmas: tuple[str, ...] = SQLITE_PRAGMAS) -> None:
    cursor = connection.cursor()
    try:
        for pragma in pragmas:
            cursor.execute(pragma)
    finally:
        cursor.close()


def prepare_sqlite_file(path: Path, create_folder: bool) -> None:
    """Refuse a file that exists but is not a kvdrill database, before touching it; create a
    missing one (and, if ``create_folder``, its folder)."""
    try:
        if path.is_dir():
            raise UserError(f"{path} is a directory, not a database file")
        if path.exists():
            with path.open("rb") as handle:
                header = handle.read(len(SQLITE_HEADER))
            if not header:
                # kvdrill never leaves an empty file behind (see create_sqlite_file): this one
                # was truncated or made by something else, and taking it as new hides the loss.
                raise UserError(
                    f"the database {path} is an empty file (0 bytes), not a kvdrill database: "
                    "restore a backup, or delete the file to start afresh"
                )
            if header != SQLITE_HEADER:
                raise UserError(f"{path} is not a SQLite database")
            return
        if path.parent.exists() and not path.parent.is_dir():
            raise UserError(f"{path.parent} is not a folder, so it cannot hold the database")
        logs = (Path(f"{path}-wal"), Path(f"{path}-journal"))
        orphans = [log for log in logs if log.exists() and log.stat().st_size > 0]
        if orphans:
            # SQLite would replay this log into a new file of the same name, mixing two
            # databases: the file it belongs to was deleted or moved.
            raise UserError(
                f"{orphans[0]} is left from a database {path} that was deleted or moved: put "
                f"the database back, or delete {orphans[0].name} (and {path.name}-shm) to "
                "start afresh"
            )
        if not path.parent.exists():
            if not create_folder:
                raise UserError(
                    f"the folder {path.parent} does not exist: create it first, or check "
                    "the database path for a typo"
                )
            path.parent.mkdir(parents=True, exist_ok=True)
        create_sqlite_file(path)
    except OSError as exc:
        raise UserError(f"cannot use the database file {path}: {exc.strerror or exc}") from None


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


def write_schema_file(database: Path, target: Path = SCHEMA_FILE) -> None:
    """Write ``schema_sqlite.sql`` from a database the migrations brought to head."""
    connection = sqlite3.connect(database)
    try:
        statements = schema_statements(connection)
    finally:
        connection.close()
    header = (
        f"-- The SQLite schema at revision {HEAD_REVISION}, as the migrations build it: "
        "written by\n-- python -m kvdrill.store.sqlite_file (see store/migrations/README.md); "
        "do not edit.\n"
    )
    target.write_text(header + "".join(f"{sql};\n" for sql in statements), encoding="utf-8")


def _migrated_database(folder: Path) -> Path:
    """A database at head made by the migrations alone (Alembic's upgrade, as db.py runs it)."""
    from sqlalchemy import create_engine

    from kvdrill.store.db import _run_migrations as run_migrations

    path = folder / "migrated.db"
    engine = create_engine(f"sqlite:///{path}")
    try:
        run_migrations(engine, None)
    finally:
        engine.dispose()
    return path


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as work:
        write_schema_file(_migrated_database(Path(work)))
    print(f"wrote {SCHEMA_FILE}")
