"""Backups: copies that are whole and checked, a daily rotation, and a restore that checks
the file before it replaces anything and keeps the current contents first."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta
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


# --- a backup kvdrill did not write, or one damaged where only a full check looks -------------


def changed_copy(database: Database, path: Path, *statements: str) -> Path:
    """A backup of ``database`` at ``path``, then changed by another program."""
    write_backup(database, path)
    connection = sqlite3.connect(path)
    try:
        connection.executescript("".join(f"{statement};\n" for statement in statements))
    finally:
        connection.close()
    return path


@pytest.mark.parametrize(
    ("statements", "message"),
    [
        (
            ["CREATE TRIGGER wipe AFTER INSERT ON review_log BEGIN DELETE FROM review_log; END"],
            "trigger wipe",
        ),
        (
            [
                "ALTER TABLE review_log RENAME TO old_log",
                "CREATE VIEW review_log AS SELECT * FROM old_log",
            ],
            "review_log",
        ),
        (["CREATE INDEX sneaky ON cards (title)"], "index sneaky"),
        (["DROP INDEX ix_review_log_card"], "index ix_review_log_card"),
        (["CREATE TABLE extra (x)"], "table extra"),
        (["DELETE FROM alembic_version"], "no schema revision"),
        (["UPDATE alembic_version SET version_num = 'abc'"], "schema revision 'abc'"),
    ],
)
def test_restore_accepts_only_a_schema_kvdrill_wrote(
    database: Database, tmp_path: Path, statements: list[str], message: str
) -> None:
    assert database.path is not None
    trapped = changed_copy(database, tmp_path / "trapped.db", *statements)
    with pytest.raises(UserError, match="not one kvdrill wrote|not a kvdrill") as refusal:
        restore_backup(database, trapped, tmp_path / "before.db")
    assert message in str(refusal.value)
    assert "newer kvdrill" not in str(refusal.value)
    assert card_count(database.path) == 30
    assert not (tmp_path / "before.db").exists()


def test_an_older_revisions_backup_is_compared_with_that_revisions_schema(
    database: Database, tmp_path: Path
) -> None:
    from kvdrill.store.backup import expected_schema

    older = expected_schema("0008")
    assert older and older != expected_schema(HEAD_REVISION)


def test_restore_refuses_a_fifo_at_once(database: Database, tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="not a regular file"):
        restore_backup(database, fifo, tmp_path / "before.db")


def damage_an_index(path: Path) -> None:
    """Put back an old page of the index on cards' retired flag after the flags changed: every
    page is well formed, so SQLite's quick check passes; only the full integrity_check
    compares the index with its table."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=DELETE")
        page = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'ix_cards_retired'"
        ).fetchone()[0]
        size = connection.execute("PRAGMA page_size").fetchone()[0]
        with path.open("rb") as handle:
            handle.seek((page - 1) * size)
            old = handle.read(size)
        connection.execute("UPDATE cards SET retired = 1 WHERE id % 2 = 0")
    finally:
        connection.close()
    with path.open("r+b") as handle:
        handle.seek((page - 1) * size)
        handle.write(old)


def test_a_backup_of_a_damaged_index_does_not_count(database: Database, tmp_path: Path) -> None:
    source = tmp_path / "source.db"
    write_backup(database, source)
    damage_an_index(source)
    connection = sqlite3.connect(source)
    quick = connection.execute("PRAGMA quick_check").fetchall()
    connection.close()
    assert quick == [("ok",)]  # the damage this test is about: a quick check misses it
    damaged = open_database(f"sqlite:///{source}", check=False)
    try:
        with pytest.raises(UserError, match="is damaged"):
            write_backup(damaged, tmp_path / "copy.db")
        assert not (tmp_path / "copy.db").exists()
    finally:
        damaged.close()


def test_restoring_twice_in_a_second_keeps_both_earlier_contents(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    db = database.path
    assert db is not None
    assert cli(capsys, db, "backup", str(tmp_path / "mine.db"))[0] == 0
    code, first, _ = cli(capsys, db, "restore", str(tmp_path / "mine.db"))
    assert code == 0
    kept = Path(first.splitlines()[1].removeprefix("What was there before is kept in ")[:-1])
    code, second, err = cli(capsys, db, "restore", str(kept))  # the copy made a moment ago
    assert code == 0, err
    assert second.splitlines()[1].endswith("kvdrill-before-restore-20260310T090000-2.db.")
    chosen = tmp_path / "as-i-had-it.db"
    code, third, _ = cli(capsys, db, "restore", str(kept), "--keep-as", str(chosen))
    assert code == 0 and third.splitlines()[1] == f"What was there before is kept in {chosen}."
    assert card_count(chosen) == 30


def test_keep_prunes_at_once_and_the_daily_copy_prunes_before_writing(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = database.path
    assert db is not None
    for offset in range(4):
        daily_backup(database, DAY + timedelta(days=offset))
    code, out, _ = cli(capsys, db, "backup", "--keep", "2")
    assert (code, out) == (0, "Keeping the newest 2 daily backups (removed 2 older ones).\n")
    assert [p.name for p in daily_backups(db)] == ["kvdrill-2026-03-12.db", "kvdrill-2026-03-13.db"]
    # The disk is too full for one more copy: the oldest is removed first, so it can be made.
    written: list[list[str]] = []
    import kvdrill.store.backup as backup_module

    real = backup_module.write_backup

    def seeing_what_is_left(source, target):
        written.append([p.name for p in daily_backups(db)])
        return real(source, target)

    backup_module.write_backup = seeing_what_is_left
    try:
        daily_backup(database, DAY + timedelta(days=4))
    finally:
        backup_module.write_backup = real
    assert written == [["kvdrill-2026-03-13.db"]]
    assert len(daily_backups(db)) == 2


def test_another_kvdrill_writing_todays_copy_first_is_no_warning(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kvdrill.app.services.maintenance import daily_backup as service_backup

    assert database.path is not None
    today = database.path.parent / "backups" / f"kvdrill-{DAY.isoformat()}.db"
    real_exists = Path.exists

    def not_yet(path: Path) -> bool:  # the other process links it in after this one looked
        return False if path == today else real_exists(path)

    daily_backup(database, DAY)
    monkeypatch.setattr(Path, "exists", not_yet)
    assert service_backup(database, datetime(2026, 3, 10, 9)) is None


def test_a_drill_stops_before_writing_when_todays_copy_finds_the_database_damaged(
    database: Database, tmp_path: Path
) -> None:
    import subprocess
    import sys

    source = tmp_path / "source.db"
    write_backup(database, source)
    damage_an_index(source)
    result = subprocess.run(
        [sys.executable, "-m", "kvdrill.app", "--db", f"sqlite:///{source}", "drill", "--plain"],
        input="\n4\n" * 3,
        capture_output=True,
        text=True,
        timeout=60,
        env={**__import__("os").environ, "KVDRILL_NOW": "2026-03-10T09:00"},
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "is damaged (integrity_check" in result.stderr
    assert "run kvdrill doctor" in result.stderr
    connection = sqlite3.connect(source)
    try:
        written = connection.execute(
            "SELECT (SELECT count(*) FROM profiles) + (SELECT count(*) FROM review_log)"
        ).fetchone()[0]
    finally:
        connection.close()
    assert written == 0  # no learner, no answer


def test_once_todays_copy_finds_damage_no_commit_goes_through(
    database: Database, tmp_path: Path
) -> None:
    """The full-screen app writes today's copy while the first card is up: damage found there
    stops every later commit, whichever screen makes it."""
    from kvdrill.app.services.maintenance import daily_backup as service_backup
    from kvdrill.engine.errors import DatabaseUnusable
    from kvdrill.store.models import Setting

    source = tmp_path / "source.db"
    write_backup(database, source)
    damage_an_index(source)
    damaged = open_database(f"sqlite:///{source}")  # the quick check on open passes
    try:
        with pytest.raises(DatabaseUnusable, match="is damaged"):
            service_backup(damaged, datetime(2026, 3, 10, 9))
        with pytest.raises(DatabaseUnusable, match="is damaged"):
            with damaged.session() as session:
                session.add(Setting(key="later", value="1"))
    finally:
        damaged.close()
    connection = sqlite3.connect(source)
    try:
        assert connection.execute(
            "SELECT count(*) FROM settings WHERE key = 'later'"
        ).fetchone() == (0,)
    finally:
        connection.close()


def test_backup_restore_and_doctor_speak_the_profiles_language(
    collection, database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """``language vi``: the report lines in Vietnamese, paths and the restore command as typed."""
    from kvdrill.app.services.language import use_language

    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    db = database.path
    assert db is not None
    try:
        assert cli(capsys, db, "settings", "language", "vi")[0] == 0
        code, out, _ = cli(capsys, db, "backup", str(tmp_path / "mine.db"))
        assert code == 0 and out == (
            f"Đã sao lưu vào {tmp_path / 'mine.db'}: 0 câu trả lời, 30 thẻ, 1 hồ sơ.\n"
        )
        code, out, _ = cli(capsys, db, "backup", "--keep", "3")
        assert (code, out) == (0, "Giữ 3 bản sao lưu hằng ngày mới nhất.\n")
        code, out, _ = cli(capsys, db, "restore", str(tmp_path / "mine.db"))
        assert code == 0 and out.startswith(f"Đã khôi phục {tmp_path / 'mine.db'}: ")
        assert "Dữ liệu trước đó được giữ lại ở " in out
        code, out, _ = cli(capsys, db, "doctor")
        assert code == 0 and out.splitlines()[1:] == [
            "Toàn vẹn: ổn (đã kiểm tra mọi trang)",
            "Hàng được tham chiếu nhưng đã mất: 0",
            "Hàng dẫn xuất không trỏ tới đâu: 0",
            "Trạng thái thẻ thiếu dù có nhật ký ôn tập: 0",
            "Bảng tổng hợp thống kê: ổn",
            "Không có gì cần sửa.",
        ]
        assert out.startswith("Cơ sở dữ liệu: ")
        assert cli(capsys, db, "settings", "language", "en")[0] == 0
        code, out, _ = cli(capsys, db, "doctor")
        assert "Integrity: ok (every page checked)" in out and "Nothing to repair." in out
    finally:
        use_language("en")
