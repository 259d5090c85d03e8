"""``kvdrill convert`` on malformed Anki packages: one clear line or a pack, never a traceback,
never a read that does not end; and link targets that could run code never stay links.

The collections are written by hand with sqlite3 in Anki's schema 11 (note types as JSON in
``col``) and schema 18 (note types, fields and decks in tables), each with one fault.
"""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.app.services.pack_files import parse_pack

_SCHEMA_11 = """
CREATE TABLE col (id INTEGER PRIMARY KEY, crt INTEGER, mod INTEGER, models TEXT, decks TEXT);
CREATE TABLE notes (id INTEGER PRIMARY KEY, guid TEXT, mid INTEGER, tags TEXT, flds TEXT);
CREATE TABLE cards (id INTEGER PRIMARY KEY, nid INTEGER, did INTEGER, ord INTEGER,
    type INTEGER, queue INTEGER, due INTEGER, ivl INTEGER, factor INTEGER, lapses INTEGER,
    odue INTEGER, odid INTEGER, data TEXT);
CREATE TABLE revlog (id INTEGER PRIMARY KEY, cid INTEGER, ease INTEGER, ivl INTEGER,
    factor INTEGER, time INTEGER, type INTEGER);
"""
_SCHEMA_18_TABLES = """
CREATE TABLE notetypes (id INTEGER, name TEXT, config BLOB);
CREATE TABLE fields (ntid INTEGER, ord INTEGER, name TEXT);
CREATE TABLE templates (ntid INTEGER, ord INTEGER, name TEXT, config BLOB);
CREATE TABLE decks (id INTEGER, name TEXT);
"""
_MODEL = {"flds": [{"name": "Front", "ord": 0}, {"name": "Back", "ord": 1}], "tmpls": []}


def _package(
    tmp_path: Path,
    *,
    mid: object = 1,
    models: object = None,
    schema_18: str | None = None,
    extra: str = "",
) -> Path:
    database = tmp_path / "collection.sqlite"
    database.unlink(missing_ok=True)
    connection = sqlite3.connect(database)
    connection.executescript(_SCHEMA_11)
    models_text = json.dumps({"1": _MODEL} if models is None else models)
    if isinstance(models, str):
        models_text = models
    connection.execute(
        "INSERT INTO col VALUES (1, 1700000000, 1700000000000, ?, ?)",
        (models_text, json.dumps({"1": {"name": "Deck"}})),
    )
    connection.execute(
        "INSERT INTO notes VALUES (10, 'g1', ?, '', ?)", (mid, "What is a KV cache?\x1fKeys")
    )
    connection.execute("INSERT INTO cards VALUES (20, 10, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, '')")
    if schema_18 is not None:
        connection.executescript(_SCHEMA_18_TABLES + schema_18)
    if extra:
        connection.executescript(extra)
    connection.commit()
    connection.close()
    package = tmp_path / "deck.apkg"
    with zipfile.ZipFile(package, "w") as archive:
        archive.write(database, "collection.anki2")
    return package


def _convert(package: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["convert", str(package), "-o", str(package.with_suffix(".md")), "--force"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 1, err
    return code, err.strip()


MALFORMED = {
    "a NULL note type id": {"mid": None},
    "a text note type id": {"mid": "basic"},
    "a field list that is not a list": {"models": {"1": {"flds": 7}}},
    "mixed field orders": {
        "models": {"1": {"flds": [{"name": "Back", "ord": "1"}, {"name": "Front", "ord": 0}]}}
    },
    "NULL field orders": {
        "models": {"1": {"flds": [{"name": "Front", "ord": None}, {"name": "Back", "ord": 1}]}}
    },
    "an integer beyond Python's digit limit": {
        "models": '{"1": {"flds": [{"name": "Front", "ord": ' + "9" * 5000 + "}]}}",
        "mid": "9" * 5000,
    },
    "schema 18 with NULL ids": {
        "schema_18": "INSERT INTO fields VALUES (NULL, 0, 'Front'); "
        "INSERT INTO decks VALUES (NULL, 'Deck'); INSERT INTO notetypes VALUES (NULL, 'x', x'08');"
    },
    "schema 18 with text ids": {
        "schema_18": "INSERT INTO fields VALUES ('one', 'first', 'Front'); "
        "INSERT INTO decks VALUES ('one', 'Deck'); "
        "INSERT INTO templates VALUES ('one', 'x', 'Card 1', x'0a05');"
    },
}


@pytest.mark.parametrize("fault", list(MALFORMED))
def test_a_malformed_collection_converts_or_gives_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    code, err = _convert(_package(tmp_path, **MALFORMED[fault]), capsys)
    if code == 0:  # what can be read is read: the note's front and back
        (card,) = parse_pack(tmp_path / "deck.md").cards
        assert card.prompt == "What is a KV cache?" and card.answer == "Keys"
    else:
        assert err.startswith("kvdrill: ") and "deck.apkg:1:" in err


def test_a_collection_whose_cards_table_is_a_recursive_view_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    package = _package(
        tmp_path,
        extra="DROP TABLE cards; CREATE VIEW cards AS WITH RECURSIVE r(id) AS "
        "(SELECT 1 UNION ALL SELECT id + 1 FROM r) SELECT id, 10 AS nid, 1 AS did, 0 AS ord, "
        "0 AS type, 0 AS queue, 0 AS due, 0 AS ivl, 0 AS factor, 0 AS lapses, 0 AS odue, "
        "0 AS odid, '' AS data FROM r;",
    )
    code, err = _convert(package, capsys)
    assert code == 1 and "deck.apkg:1: damaged Anki collection: its cards table is a view" in err


def test_a_read_that_would_not_end_is_cut_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A view hidden behind a real table name cannot be, but any endless query is bounded: the
    # budget is lowered so a merely long one shows the cut-off quickly.
    monkeypatch.setattr("kvdrill.store.anki_package._STEP_BUDGET", 2)
    package = _package(
        tmp_path,
        extra="INSERT INTO revlog SELECT value, 20, 3, 1, 2500, 1000, 1 FROM "
        "(WITH RECURSIVE r(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM r "
        "WHERE value < 200000) SELECT value FROM r);",
    )
    code, err = _convert(package, capsys)
    assert code == 1 and "reading it does not end" in err


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
    ],
)
def test_a_link_that_could_run_code_keeps_only_its_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], href: str
) -> None:
    source = tmp_path / "links.txt"
    source.write_text(
        "#separator:tab\n#html:true\n"
        f'Where is the source?\t<a href="{href}">the paper</a>, '
        '<a href="https://arxiv.org/abs/2309.06180">vLLM</a> or '
        '<a href="mailto:ana@example.org">mail</a>\n',
        encoding="utf-8",
    )
    output = tmp_path / "links.md"
    assert main(["convert", str(source), "-o", str(output)]) == 0
    (card,) = parse_pack(output).cards
    assert card.answer == (
        "the paper, [vLLM](https://arxiv.org/abs/2309.06180) or [mail](mailto:ana@example.org)"
    )
    assert "javascript" not in output.read_text().lower()
    assert "data:" not in output.read_text()
