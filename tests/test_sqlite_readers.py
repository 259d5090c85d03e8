"""The readers that run on a SQLite file without SQLAlchemy (a profile's language before the
command line, ``kvdrill stats``, the plain reads) go through one routine, store/sqlite_file.py
``read_current``: each reads a usable file, each hands every unusable one back to the store
(None) and none leaves the file open."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import Collection

from kvdrill.app.cli import main
from kvdrill.store.db import open_database
from kvdrill.store.fast_stats import read_report
from kvdrill.store.plain_reads import read_sqlite_file, settings_of
from kvdrill.store.profile_language import read_chosen_language

pytestmark = pytest.mark.store

READERS: dict[str, Callable[[str], Any]] = {
    "the profile's language": lambda url: read_chosen_language(url, "lan"),
    "a plain read": lambda url: read_sqlite_file(url, lambda sql: settings_of(sql, "lan")),
    "the stats report": lambda url: read_report(url, "lan", lambda _hour: date(2026, 3, 2), 30),
}


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture(scope="module")
def usable(tmp_path_factory) -> Path:
    """A database with the fixture pack and the profile ``lan`` studying in Vietnamese."""
    path = tmp_path_factory.mktemp("readers") / "kvdrill.db"
    database = open_database(f"sqlite:///{path}")
    try:
        Collection.import_fixture_pack(database)
    finally:
        database.close()
    assert (
        main(["--db", f"sqlite:///{path}", "--profile", "lan", "settings", "language", "vi"]) == 0
    )
    return path


@pytest.mark.parametrize("reader", READERS)
def test_each_reader_reads_a_usable_file_and_closes_it(usable: Path, reader: str) -> None:
    before = open_files()
    found = READERS[reader](f"sqlite:///{usable}")
    assert open_files() == before
    language = {
        "the profile's language": lambda: found,
        "a plain read": lambda: found.language,
        "the stats report": lambda: found.settings.language,
    }[reader]()
    assert language == "vi"


def unusable(kind: str, usable: Path, folder: Path) -> str:
    """The URL of a database the store must open itself (it then says what is wrong)."""
    path = folder / "kvdrill.db"
    if kind == "no file yet":
        pass
    elif kind == "not a database":
        path.write_bytes(b"a text file, not SQLite\n" * 200)
    elif kind == "an older schema":
        shutil.copy(usable, path)
        connection = sqlite3.connect(path)
        connection.execute("UPDATE alembic_version SET version_num = '0001'")
        connection.commit()
        connection.close()
    elif kind == "a folder":
        path.mkdir()
    elif kind == "in memory":
        return "sqlite://"
    return f"sqlite:///{path}"


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(
    "kind", ["no file yet", "not a database", "an older schema", "a folder", "in memory"]
)
def test_each_reader_leaves_an_unusable_file_to_the_store(
    usable: Path, tmp_path: Path, reader: str, kind: str
) -> None:
    url = unusable(kind, usable, tmp_path)
    before = open_files()
    # The language alone is read from an older file too: the command about to upgrade it
    # speaks the learner's language (tests/test_cli_vietnamese.py).
    expected = "vi" if (reader, kind) == ("the profile's language", "an older schema") else None
    assert READERS[reader](url) == expected
    assert open_files() == before
