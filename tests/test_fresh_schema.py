"""A new SQLite file is made from store/migrations/schema_sqlite.sql, not by the migrations: the
two must build the very same database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kvdrill.store.db import open_database
from kvdrill.store.location import HEAD_REVISION
from kvdrill.store.sqlite_file import _migrated_database, schema_statements


def _schema(path: Path) -> tuple[list[str], list[tuple], str]:
    connection = sqlite3.connect(path)
    try:
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchall()
        journal = connection.execute("PRAGMA journal_mode").fetchone()[0]
        return schema_statements(connection), revision, journal
    finally:
        connection.close()


def test_a_new_file_has_the_schema_the_migrations_build(tmp_path: Path) -> None:
    migrated = _migrated_database(tmp_path)
    fresh = tmp_path / "fresh.db"
    open_database(f"sqlite:///{fresh}").close()

    statements, revision, journal = _schema(fresh)
    migrated_statements, migrated_revision, _ = _schema(migrated)
    assert statements == migrated_statements, (
        "store/migrations/schema_sqlite.sql is behind the migrations: run "
        ".venv/bin/python -m kvdrill.store.sqlite_file"
    )
    assert revision == migrated_revision == [(HEAD_REVISION,)]
    assert journal == "wal"
    assert any("CREATE TRIGGER" in sql for sql in statements)  # the stats rollups come too
