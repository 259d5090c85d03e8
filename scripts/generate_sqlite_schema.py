"""Write store/migrations/schema_sqlite.sql from the migrations, its one source.

    .venv/bin/python scripts/generate_sqlite_schema.py [--check]

A new SQLite file is made from that script in one ``executescript`` instead of every migration
(store/sqlite_file.py). This builds a database with the migrations alone (Alembic's upgrade, as
``open_database`` runs it) and writes its schema out; ``--check`` only says whether the
checked-in script is the one it would write (tests/test_fresh_schema.py checks the same).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

from sqlalchemy import create_engine

from kvdrill.store.migrate import migrate
from kvdrill.store.sqlite_file import SCHEMA_FILE, schema_script, schema_statements


def migrated_database(folder: Path) -> Path:
    """A database at head made by the migrations alone."""
    path = folder / "migrated.db"
    engine = create_engine(f"sqlite:///{path}")
    try:
        migrate(engine, None)
    finally:
        engine.dispose()
    return path


def generated_script() -> str:
    """The text ``schema_sqlite.sql`` should hold: the migrations' schema."""
    with tempfile.TemporaryDirectory() as work:
        connection = sqlite3.connect(migrated_database(Path(work)))
        try:
            return schema_script(schema_statements(connection))
        finally:
            connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    options = parser.parse_args(argv)
    script = generated_script()
    if options.check:
        if SCHEMA_FILE.read_text(encoding="utf-8") != script:
            print(f"{SCHEMA_FILE} is behind the migrations: run {sys.argv[0]}")
            return 1
        print(f"{SCHEMA_FILE} is the migrations' schema")
        return 0
    SCHEMA_FILE.write_text(script, encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
