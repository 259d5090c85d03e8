"""Bringing a database's schema to ``HEAD_REVISION`` with Alembic's migrations, once, under a
write lock, after a backup copy of an older SQLite file. store/db.py's ``open_database`` calls
``migrate`` when the revision it reads is not the head; scripts/generate_sqlite_schema.py builds
a database with it to write store/migrations/schema_sqlite.sql.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import Connection

from kvdrill.engine.errors import UserError
from kvdrill.i18n import _
from kvdrill.store.location import HEAD_REVISION, mask_password
from kvdrill.store.sql import REVISION_SQL

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# A PostgreSQL advisory lock key (any 64-bit number no other kvdrill lock uses).
MIGRATION_LOCK = 0x6B76_6472_696C_6C01  # "kvdrill" 01


def current_revision(connection: Connection) -> str | None:
    """The schema revision recorded in the database, or None if it has none."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    found = connection.execute(text(REVISION_SQL)).scalar()
    return None if found is None else str(found)


def migrate(engine: Engine, path: Path | None) -> None:
    """Upgrade to head under a write lock, so two processes starting at once migrate once."""
    # Imported before the write lock is taken: under load an import inside it can outlast the
    # other processes' busy timeout.
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    script = ScriptDirectory.from_config(config)
    known = {rev.revision for rev in script.walk_revisions()}

    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            # Foreign keys off while tables are rebuilt (SQLite's documented procedure for schema
            # changes); checked again before commit. The pragma is a no-op inside a transaction.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        elif engine.dialect.name == "postgresql":
            # PostgreSQL's DDL is transactional: the whole upgrade is one transaction, and this
            # lock (held until it ends) makes a second process wait, then find the schema current.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        revision = current_revision(connection)
        if revision is not None and revision not in known:
            connection.rollback()
            raise UserError(
                mask_password(
                    f"the database {path or engine.url} was written by a newer kvdrill "
                    f"(schema revision {revision}); upgrade kvdrill to use it"
                )
            )
        if revision is None and inspect(connection).get_table_names():
            connection.rollback()
            raise UserError(
                mask_password(f"the database {path or engine.url} is not a kvdrill database")
            )
        if revision != HEAD_REVISION:
            if revision is not None and path is not None:
                backup_sqlite(path, revision)
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            if sqlite:
                problems = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if problems:
                    connection.rollback()
                    raise UserError(
                        _(
                            "upgrading the database {path} broke {count} references; nothing was changed"
                        ).format(path=path, count=len(problems))
                    )
        connection.commit()
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")


def backup_sqlite(path: Path, revision: str) -> Path:
    """Copy the database beside itself as ``<name>.bak-<revision>-<timestamp>``; return the copy.

    The timestamp is the file's own modification time: the store does not read the clock, and
    the copy is named for the database state it keeps."""
    stamp = datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.bak-{revision}-{stamp}")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.bak-{revision}-{stamp}-{counter}")
    source = sqlite3.connect(path)
    try:
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    return target
