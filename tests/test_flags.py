"""Flags: ``kvdrill flag PACK/CARD COLOUR|none``, and ``drill --flag COLOUR`` drilling only the
cards of that colour (plain mode and the session service); answers leave flags alone."""

from __future__ import annotations

import io
import sys
from datetime import datetime

import pytest
from drill_helpers import keys_until_done

from kvdrill.app.cli import main
from kvdrill.app.services.drill import DrillSession
from kvdrill.store.db import open_database

NOW = "2026-03-10T09:00"


@pytest.fixture
def db_url_with_pack(db_url: str, collection) -> str:
    database = open_database(db_url)
    with database.session() as session:
        collection.add_pack(session, "flags", collection.recall_cards(6))
    database.close()
    return db_url


def run(capsys, monkeypatch, db_url: str, *argv: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["--db", db_url, *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_flagged_colour_is_a_session_of_its_own_and_none_takes_it_off(
    db_url_with_pack: str, capsys, monkeypatch
) -> None:
    url = db_url_with_pack
    assert run(capsys, monkeypatch, url, "flag", "flags/c2", "Red")[1] == (
        "Flagged red: flags/c2 (Card 2)\n"
    )
    assert run(capsys, monkeypatch, url, "flag", "flags/c5", "red")[0] == 0
    assert run(capsys, monkeypatch, url, "flag", "flags/c3", "blue")[0] == 0
    database = open_database(url)
    try:
        now = datetime.fromisoformat(NOW)
        assert keys_until_done(DrillSession.open(database, now=now, flag="red"), {}) == ["c2", "c5"]
        assert keys_until_done(DrillSession.open(database, now=now, flag="blue"), {}) == ["c3"]
    finally:
        database.close()
    # Answering kept the flags: tomorrow's red session holds the same two cards.
    code, out, _ = run(capsys, monkeypatch, url, "flag", "flags/c5", "none")
    assert (code, out) == (0, "Flag removed: flags/c5 (Card 5)\n")
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-11T09:00")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ngood\n" * 3))
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    assert main(["--db", url, "drill", "--plain", "--flag", "red"]) == 0
    out = capsys.readouterr().out
    assert "Card 2" in out and "Card 5" not in out and "Card 3" not in out


def test_a_wrong_colour_or_card_is_one_sentence_and_changes_nothing(
    db_url_with_pack: str, capsys, monkeypatch
) -> None:
    url = db_url_with_pack
    code, out, err = run(capsys, monkeypatch, url, "flag", "flags/c1", "gren")
    assert code == 1 and out == ""
    assert err == (
        "kvdrill: 'gren' is not a flag colour (did you mean 'green'?): use one of red, orange, "
        "green, blue, pink, turquoise, purple, none\n"
    )
    code, _, err = run(capsys, monkeypatch, url, "flag", "flags/nope", "red")
    assert code == 1 and err.startswith("kvdrill: there is no card 'flags/nope'")
    with pytest.raises(SystemExit) as exit_info:
        run(capsys, monkeypatch, url, "drill", "--plain", "--flag", "none")
    assert exit_info.value.code == 2
    assert "'none' is not a flag colour" in capsys.readouterr().err
    database = open_database(url)
    try:
        now = datetime.fromisoformat(NOW)
        assert DrillSession.open(database, now=now, flag="green").current is None
    finally:
        database.close()
