"""``kvdrill import`` into a SQLite file goes through sqlite3 alone (store/sqlite_import.py): it
must store exactly what the SQLAlchemy session stores, and keep the heavy libraries unloaded."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from kvdrill.app.services.importing import (
    BUNDLED_DECKS,
    load_packs,
    open_import_database,
    store_packs,
)
from kvdrill.store.db import open_database
from kvdrill.store.importer import apply_import
from kvdrill.store.sqlite_import import SqliteImportFile

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
NOW = datetime(2026, 3, 10, 9, 30, 15, 123456)
TABLES = ("packs", "cards", "card_topics", "topic_cards", "settings")


def _dump(path: Path) -> dict[str, list[tuple]]:
    connection = sqlite3.connect(path)
    try:
        return {
            table: sorted(connection.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in TABLES
        }
    finally:
        connection.close()


def _edited(packs):
    """The first pack again with every answer changed and its last card dropped."""
    first = packs[0]
    cards = [card.model_copy(update={"answer": card.answer + " More."}) for card in first.cards]
    parents = {card.parent for card in cards}
    dropped = next(card for card in reversed(cards) if card.key not in parents)
    return [first.model_copy(update={"cards": [card for card in cards if card is not dropped]})]


def test_sqlite3_and_the_session_store_the_same_rows(tmp_path: Path) -> None:
    bundled = load_packs([BUNDLED_DECKS])
    packs = load_packs([FIXTURES / "good", FIXTURES / "vi", FIXTURES / "sm2"])
    stored = {}
    for name in ("session", "sqlite3"):
        path = tmp_path / f"{name}.db"
        url = f"sqlite:///{path}"
        database = open_database(url) if name == "session" else open_import_database(url)
        assert isinstance(database, SqliteImportFile) == (name == "sqlite3")
        try:
            database.write(lambda sql: apply_import(sql, bundled, now=NOW, bundled=True), "busy")
            store_packs(database, packs, NOW)
            plan = store_packs(database, _edited(packs), NOW.replace(minute=45))
            assert plan.count("changed") and plan.count("retired") == 1
        finally:
            database.close()
        stored[name] = _dump(path)
    assert stored["sqlite3"] == stored["session"]
    assert stored["sqlite3"]["cards"] and stored["sqlite3"]["topic_cards"]


def _modules_after_import(tmp_path: Path, *paths: Path) -> set[str]:
    probe = (
        "import sys\n"
        "from kvdrill.app.cli import main\n"
        f"code = main(['import', *{[str(path) for path in paths]!r}])\n"
        "print('MODULES', __import__('json').dumps(sorted(sys.modules)))\n"
        "sys.exit(code)\n"
    )
    env = dict(os.environ, KVDRILL_DATA_DIR=str(tmp_path / "data"))
    env.pop("KVDRILL_DB", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("MODULES"))
    return {name.split(".")[0] for name in json.loads(line.removeprefix("MODULES "))}


def test_import_into_a_new_file_and_again_loads_no_sqlalchemy(tmp_path: Path) -> None:
    pack = FIXTURES / "sm2"
    first = _modules_after_import(tmp_path, pack)
    assert not first & {"sqlalchemy", "alembic"}
    again = _modules_after_import(tmp_path, pack)
    # Files stored before, byte for byte, are not parsed: no parser, no pydantic either.
    assert not again & {"sqlalchemy", "alembic", "pydantic", "markdown_it", "sympy"}
