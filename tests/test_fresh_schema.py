"""The SQLite schema has one source, the migrations: store/migrations/schema_sqlite.sql, which a
new SQLite file is made from, is generated from them (scripts/generate_sqlite_schema.py), and a
file made from it is the very database the migrations build."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
from pathlib import Path
from types import ModuleType

from kvdrill.store.db import open_database
from kvdrill.store.location import HEAD_REVISION
from kvdrill.store.sqlite_file import SCHEMA_FILE, schema_statements

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "generate_sqlite_schema.py"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_sqlite_schema", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def _schema(path: Path) -> tuple[list[str], list[tuple], str]:
    connection = sqlite3.connect(path)
    try:
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchall()
        journal = connection.execute("PRAGMA journal_mode").fetchone()[0]
        return schema_statements(connection), revision, journal
    finally:
        connection.close()


def test_the_checked_in_script_is_the_one_generated_from_the_migrations() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == generator().generated_script(), (
        "store/migrations/schema_sqlite.sql is behind the migrations: run "
        ".venv/bin/python scripts/generate_sqlite_schema.py"
    )


def test_a_new_file_has_the_schema_the_migrations_build(tmp_path: Path) -> None:
    migrated = generator().migrated_database(tmp_path)
    fresh = tmp_path / "fresh.db"
    open_database(f"sqlite:///{fresh}").close()

    statements, revision, journal = _schema(fresh)
    migrated_statements, migrated_revision, _ = _schema(migrated)
    assert statements == migrated_statements
    assert revision == migrated_revision == [(HEAD_REVISION,)]
    assert journal == "wal"
    assert any("CREATE TRIGGER" in sql for sql in statements)  # the stats rollups come too
