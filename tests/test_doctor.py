"""kvdrill doctor: a full check, repairs of what a crash or a hand edit can leave behind, and a
report; a damaged file is reported, never written."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.store.db import open_database

NOW = "2026-03-10T09:00"


@pytest.fixture
def studied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A database with the bundled decks and six answers given through plain mode."""
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    db = tmp_path / "kvdrill.db"
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n4\n" * 6))
    assert main(["--db", f"sqlite:///{db}", "drill", "--plain", "--new", "6"]) == 0
    return db


def doctor(db: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    code = main(["--db", f"sqlite:///{db}", "doctor", *options])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out + err


def edit(db: Path, *statements: str) -> None:
    """Change the file as another program would: no foreign keys, no triggers of ours."""
    connection = sqlite3.connect(db)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()


def rows(db: Path, sql: str) -> list[tuple]:
    connection = sqlite3.connect(db)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def test_a_sound_database_needs_nothing(studied: Path, capsys) -> None:
    capsys.readouterr()
    code, out = doctor(studied, capsys)
    assert code == 0
    assert "Integrity: ok" in out and "Nothing to repair." in out


def backups_before_doctor(db: Path) -> list[Path]:
    return sorted((db.parent / "backups").glob("kvdrill-before-doctor-*.db"))


def test_what_is_missing_is_recreated_and_no_learners_row_is_deleted(studied: Path, capsys) -> None:
    capsys.readouterr()
    states = rows(studied, "SELECT card_id, repetitions, interval_days, reviews FROM card_states")
    answers = rows(studied, "SELECT count(*) FROM review_log")
    lost_state = states[1][0]
    edit(
        studied,
        "DELETE FROM profiles",  # the row every review, state and note points at
        f"DELETE FROM card_states WHERE card_id = {lost_state}",  # a log that lost its state
        # a note on a card that is gone
        "INSERT INTO notes (profile_id, card_id, text, updated_at) "
        "VALUES (1, 99999, 'my own words', '2026-03-10 09:00:00')",
        "DELETE FROM topic_days WHERE rowid IN (SELECT rowid FROM topic_days LIMIT 1)",
    )
    code, out = doctor(studied, capsys, "--json")
    report = json.loads(out)
    assert code == 0 and report["sound"] and report["repaired"]
    assert report["recreated"] == {"profiles": 1, "cards": 1}
    assert report["orphans"] == {}
    assert report["states_rebuilt"] == 1 and report["rollups_rebuilt"] is True
    assert rows(studied, "SELECT count(*) FROM review_log") == answers  # every answer kept
    assert rows(studied, "SELECT id, name FROM profiles") == [(1, "recovered-1")]
    assert rows(studied, "SELECT text FROM notes WHERE card_id = 99999") == [("my own words",)]
    assert sorted(
        rows(studied, "SELECT card_id, repetitions, interval_days, reviews FROM card_states")
    ) == sorted(states)
    # The copy written before the repairs holds the database as it was, and passes the check.
    (copy,) = backups_before_doctor(studied)
    assert report["backup"] == str(copy)
    assert rows(copy, "SELECT count(*) FROM profiles") == [(0,)]
    assert rows(copy, "PRAGMA integrity_check") == [("ok",)]
    code, out = doctor(studied, capsys)
    assert code == 0 and "Nothing to repair." in out
    assert len(backups_before_doctor(studied)) == 1  # nothing repaired, no copy


def logical_dump(db: Path) -> list[str]:
    connection = sqlite3.connect(db)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("statement", "finding"),
    [
        (
            "UPDATE card_states SET easiness_milli = 9999000 WHERE rowid = 1",
            "1 card state with an easiness",
        ),
        (
            "UPDATE card_states SET interval_days = 3650 WHERE rowid = 1",
            "1 card state with an interval",
        ),
        (
            "UPDATE review_log SET quality = 9 WHERE id = 1",
            "1 review-log row with a quality outside 0-5",
        ),
        ("UPDATE review_log SET prev_state = '{not json' WHERE id = 2", "is not a JSON object"),
        ("UPDATE review_log SET reviewed_at = 'wiped' WHERE id = 1", "without a readable time"),
        (
            "DELETE FROM review_log WHERE id IN (1, 2)",
            "card states counting other answers than their review",
        ),
        ("UPDATE review_log SET reviewed_at = '2026-03-01 09:00:00'", "counting other answers"),
    ],
)
def test_what_kvdrill_cannot_have_written_is_reported_and_left_alone(
    studied: Path, capsys, statement: str, finding: str
) -> None:
    capsys.readouterr()
    edit(studied, statement)
    before = logical_dump(studied)
    code, out = doctor(studied, capsys)
    assert code == 1
    assert "Cannot explain, so left as they are" in out and finding in out
    assert "Repaired." not in out
    assert f"kvdrill restore {studied.parent / 'backups' / f'kvdrill-{NOW[:10]}.db'}" in out
    assert logical_dump(studied) == before


def test_a_normal_week_of_drills_needs_no_repair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Due days move every day: the rollups keep rows of zeros behind, which are no drift."""
    db = tmp_path / "kvdrill.db"
    for day in range(10, 17):
        monkeypatch.setenv("KVDRILL_NOW", f"2026-03-{day}T09:00")
        monkeypatch.setattr(sys, "stdin", io.StringIO("\n4\n" * 8))
        assert main(["--db", f"sqlite:///{db}", "drill", "--plain", "--new", "3"]) == 0
    assert rows(db, "SELECT count(*) FROM topic_states WHERE cards = 0")[0][0] > 0
    capsys.readouterr()
    code, out = doctor(db, capsys)
    assert code == 0 and "Stats rollups: ok" in out and "Nothing to repair." in out


def test_a_damaged_database_is_reported_and_left_alone(studied: Path, capsys) -> None:
    capsys.readouterr()
    database = open_database(f"sqlite:///{studied}")
    database.close()
    page = rows(studied, "SELECT rootpage FROM sqlite_master WHERE name = 'review_log'")[0][0]
    with studied.open("r+b") as handle:
        handle.seek((page - 1) * 4096 + 8)
        handle.write(bytes(range(256)) * 15)
    before = studied.read_bytes()
    code, out = doctor(studied, capsys)
    assert code == 1
    assert "Integrity: the file is damaged; nothing was repaired" in out
    assert studied.read_bytes() == before
    # The first drill of the day kept a copy: doctor names it, restore puts it back.
    backup = studied.parent / "backups" / f"kvdrill-{NOW[:10]}.db"
    assert f"The newest backup that passes the full check: kvdrill restore {backup}" in out
    assert main(["--db", f"sqlite:///{studied}", "restore", str(backup)]) == 0
    assert "Restored" in capsys.readouterr().out
    code, out = doctor(studied, capsys)
    assert code == 0 and "Integrity: ok" in out


def test_the_newest_backup_that_passes_is_named_not_a_damaged_newer_one(
    studied: Path, capsys
) -> None:
    capsys.readouterr()
    good = studied.parent / "backups" / f"kvdrill-{NOW[:10]}.db"
    newer = studied.parent / "backups" / "kvdrill-2026-03-11.db"
    newer.write_bytes(good.read_bytes())
    with newer.open("r+b") as handle:
        handle.seek(4096 * 3 + 8)
        handle.write(bytes(range(256)) * 15)
    os.utime(newer, (good.stat().st_mtime + 86400,) * 2)
    edit(studied, "UPDATE review_log SET quality = 9 WHERE id = 1")
    code, out = doctor(studied, capsys)
    assert code == 1
    assert f"kvdrill restore {good}" in out and str(newer) not in out


def test_what_kvdrill_cannot_have_written_is_reported_in_vietnamese(
    studied: Path, capsys, vietnamese
) -> None:
    """The profile says ``language vi``: the findings and the advice in Vietnamese."""
    assert main(["--db", f"sqlite:///{studied}", "settings", "language", "vi"]) == 0
    capsys.readouterr()
    edit(studied, "UPDATE review_log SET quality = 9 WHERE id = 1")
    edit(studied, "UPDATE card_states SET easiness_milli = 9999000 WHERE rowid = 1")
    code, out = doctor(studied, capsys)
    assert code == 1
    assert "Không giải thích được nên để nguyên" in out
    assert "1 hàng nhật ký ôn tập có quality ngoài khoảng 0-5 (id 1)" in out
    assert "1 trạng thái thẻ có độ dễ mà không chuỗi câu trả lời nào" in out
    assert "Bản sao lưu mới nhất qua được kiểm tra đầy đủ: kvdrill restore " in out
    for english in ("Cannot explain", "review-log row", "card state", "newest backup"):
        assert english not in out
