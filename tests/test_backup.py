"""Backups: copies that are whole and checked, a daily rotation, and a restore that checks
the file before it replaces anything and keeps the current contents first."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta
from pathlib import Path

import pytest

from kvdrill.engine.errors import UserError
from kvdrill.store.backup import (
    backup_keep,
    check_backup_file,
    daily_backup,
    daily_backups,
    restore_backup,
    set_backup_keep,
    write_backup,
)
from kvdrill.store.db import HEAD_REVISION, Database, open_database

DAY = date(2026, 3, 10)


@pytest.fixture
def database(tmp_path: Path, collection) -> Database:
    database = open_database(f"sqlite:///{tmp_path / 'kvdrill.db'}")
    with database.session() as session:
        collection.add_pack(session, "backed-up", collection.recall_cards(30))
    yield database
    database.close()


def card_count(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT count(*) FROM cards").fetchone()[0]
    finally:
        connection.close()


def test_a_backup_is_a_checked_copy_and_never_overwrites(
    database: Database, tmp_path: Path
) -> None:
    info = write_backup(database, tmp_path / "copy.db")
    assert (info.cards, info.answers, info.revision) == (30, 0, HEAD_REVISION)
    assert card_count(tmp_path / "copy.db") == 30
    with pytest.raises(UserError, match="already exists"):
        write_backup(database, tmp_path / "copy.db")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_daily_backups_once_a_day_and_only_the_newest_kept(database: Database) -> None:
    assert database.path is not None
    first = daily_backup(database, DAY)
    assert first is not None and first.name == f"kvdrill-{DAY.isoformat()}.db"
    assert daily_backup(database, DAY) is None  # once a day
    with database.session() as session:
        assert backup_keep(session) == 7
        set_backup_keep(session, 3)
    for offset in range(1, 10):
        daily_backup(database, DAY + timedelta(days=offset))
    kept = [p.name for p in daily_backups(database.path)]
    assert kept == [f"kvdrill-{(DAY + timedelta(days=n)).isoformat()}.db" for n in (7, 8, 9)]
    with database.session() as session:
        set_backup_keep(session, 0)
    assert daily_backup(database, DAY + timedelta(days=20)) is None
    with pytest.raises(UserError, match="from 0 to 365"), database.session() as session:
        set_backup_keep(session, -1)


def test_restore_checks_first_keeps_the_current_contents_then_replaces(
    collection, database: Database, tmp_path: Path
) -> None:
    assert database.path is not None
    write_backup(database, tmp_path / "thirty.db")
    with database.session() as session:
        collection.add_pack(session, "later", collection.recall_cards(5))
    restore_backup(database, tmp_path / "thirty.db", tmp_path / "before-restore.db")
    assert card_count(database.path) == 30
    assert card_count(tmp_path / "before-restore.db") == 35


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is not a SQLite database"),
        (b"my notes\n", "is not a SQLite database"),
    ],
)
def test_restore_refuses_a_bad_file_and_changes_nothing(
    database: Database, tmp_path: Path, content: bytes, message: str
) -> None:
    assert database.path is not None
    bad = tmp_path / "bad.db"
    bad.write_bytes(content)
    with pytest.raises(UserError, match=message):
        restore_backup(database, bad, tmp_path / "before.db")
    assert card_count(database.path) == 30
    assert not (tmp_path / "before.db").exists()


def test_restore_refuses_a_damaged_or_foreign_database(database: Database, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.db"
    write_backup(database, damaged)
    with damaged.open("r+b") as handle:
        handle.seek(4096 * 3 + 8)
        handle.write(bytes(range(256)) * 15)
    with pytest.raises(UserError, match="is damaged"):
        check_backup_file(damaged)
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(UserError, match="not a kvdrill one"):
        restore_backup(database, foreign, tmp_path / "before.db")
    newer = tmp_path / "newer.db"
    write_backup(database, newer)
    connection = sqlite3.connect(newer)
    connection.execute("UPDATE alembic_version SET version_num = '9999'")
    connection.commit()
    connection.close()
    with pytest.raises(UserError, match="written by a newer kvdrill"):
        check_backup_file(newer)


# --- the commands ---------------------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], db: Path, *argv: str) -> tuple[int, str, str]:
    from kvdrill.app.cli import main

    code = main(["--db", f"sqlite:///{db}", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_backup_and_restore_commands(
    collection, database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    db = database.path
    assert db is not None
    code, out, _ = cli(capsys, db, "backup", str(tmp_path / "mine.db"))
    assert (
        code == 0
        and out == f"Backed up to {tmp_path / 'mine.db'}: 0 answers, 30 cards, 0 profiles.\n"
    )
    code, out, _ = cli(capsys, db, "backup")
    assert code == 0 and "backups/kvdrill-20260310T090000.db" in out
    code, out, _ = cli(capsys, db, "backup", "--keep", "3")
    assert (code, out) == (0, "Keeping the newest 3 daily backups.\n")
    with database.session() as session:
        collection.add_pack(session, "later", collection.recall_cards(5))
    code, out, _ = cli(capsys, db, "restore", str(tmp_path / "mine.db"))
    assert code == 0
    assert out.splitlines() == [
        f"Restored {tmp_path / 'mine.db'}: 0 answers, 30 cards, 0 profiles.",
        f"What was there before is kept in {tmp_path / 'backups' / 'kvdrill-before-restore-20260310T090000.db'}.",
    ]
    assert card_count(db) == 30


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["backup", "--keep", "-1"], "a whole number from 0 to 365"),
        (["backup", "/no/such/folder/x.db"], "the folder /no/such/folder does not exist"),
        (["backup", ""], "an empty PATH was given"),
        (["restore", ""], "an empty PATH was given"),
        (["restore", "/no/such/file.db"], "cannot read /no/such/file.db: No such file"),
        (["restore", "/etc/hostname"], "is not a SQLite database, so not a kvdrill backup"),
    ],
)
def test_backup_and_restore_mistakes_are_one_line_and_change_nothing(
    database: Database, capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    db = database.path
    assert db is not None
    code, out, err = cli(capsys, db, *argv)
    assert code == 1 and out == ""
    assert err.startswith("kvdrill: ") and err.count("\n") == 1 and fragment in err, err
    assert card_count(db) == 30
    assert not (db.parent / "backups").exists()
