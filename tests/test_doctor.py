"""kvdrill doctor: a full check, repairs of what a crash or a hand edit can leave behind, and a
report; a damaged file is reported, never written."""

from __future__ import annotations

import io
import json
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


def test_orphans_and_states_that_disagree_with_the_log_are_repaired(studied: Path, capsys) -> None:
    capsys.readouterr()
    states = rows(studied, "SELECT card_id, repetitions, interval_days, reviews FROM card_states")
    first, second = states[0][0], states[1][0]
    edit(
        studied,
        # a state that lost its log's count, and a log that lost its state
        f"UPDATE card_states SET reviews = 7, repetitions = 9 WHERE card_id = {first}",
        f"DELETE FROM card_states WHERE card_id = {second}",
        # rows pointing at a card that does not exist
        "INSERT INTO notes (profile_id, card_id, text, updated_at) "
        "VALUES (1, 99999, 'lost', '2026-03-10 09:00:00')",
        "DELETE FROM topic_days WHERE rowid IN (SELECT rowid FROM topic_days LIMIT 1)",
    )
    code, out = doctor(studied, capsys, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["orphans"] == {"notes": 1}
    assert report["states_rebuilt"] == 2
    assert report["rollups_rebuilt"] is True
    assert report["repaired"] is True
    assert sorted(
        rows(studied, "SELECT card_id, repetitions, interval_days, reviews FROM card_states")
    ) == sorted(states)
    code, out = doctor(studied, capsys)
    assert "Nothing to repair." in out


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
    assert f"Restore the newest backup: kvdrill restore {backup}" in out
    assert main(["--db", f"sqlite:///{studied}", "restore", str(backup)]) == 0
    assert "Restored" in capsys.readouterr().out
    code, out = doctor(studied, capsys)
    assert code == 0 and "Integrity: ok" in out
