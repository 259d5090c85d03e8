"""What the importer stores of a card, and the hash it compares on re-import, must not change
when the storing gets faster: a file stored by an earlier kvdrill would otherwise show every
card as changed. The reference below is the importer's code before the speed-up, kept here
verbatim as the definition; every card of the bundled decks and of the test packs is checked
against it, column by column, as stored through ``kvdrill import``'s sqlite3 path."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kvdrill.app.services.importing import BUNDLED_DECKS, load_packs, open_import_database
from kvdrill.store import import_topics
from kvdrill.store.importer import apply_import

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
HASH_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
JSON_COLUMNS = ("key_numbers", "choices", "related", "problem", "tags", "lessons")
TEXT_COLUMNS = ("kind", "title", "status", "prompt", "answer", "tip", "explanation")


def reference_values(pack, card) -> dict[str, Any]:
    def unique(values):
        return list(dict.fromkeys(values))

    def lesson(value: str) -> str:
        return str(int(value)) if value.isdigit() else value

    return {
        "kind": card.kind,
        "title": card.title,
        "status": card.status,
        "prompt": card.prompt,
        "answer": card.answer,
        "key_numbers": [number.model_dump() for number in card.key_numbers],
        "tip": card.tip,
        "choices": [choice.model_dump() for choice in card.choices],
        "explanation": card.explanation,
        "related": [related.model_dump() for related in card.related],
        "problem": card.problem,
        "tags": unique([*pack.meta.tags, *card.tags]),
        "lessons": unique(lesson(value) for value in (card.lessons or pack.meta.lessons)),
    }


def reference_hash(values: dict[str, Any], parent_key: str | None) -> str:
    content = dict(values)
    content["key_numbers"] = [
        {k: v for k, v in number.items() if k != "line"} for number in values["key_numbers"]
    ]
    content["parent"] = parent_key
    return hashlib.sha256(HASH_ENCODER.encode(content).encode("utf-8")).hexdigest()


def reference_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


@pytest.mark.parametrize("json_each", [True, False], ids=["json_each", "python-rows"])
def test_every_card_is_stored_as_the_reference_stores_it(
    tmp_path: Path, json_each: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways of making a bulk import's topic rows (SQLite's json_each, or Python on a
    SQLite before 3.38) give the reference's topics."""
    if not json_each:
        monkeypatch.setattr(import_topics, "_reads_json", lambda db: False)
    packs = load_packs([BUNDLED_DECKS]) + load_packs(
        [FIXTURES / "good", FIXTURES / "vi", FIXTURES / "sm2"]
    )
    path = tmp_path / "kvdrill.db"
    database = open_import_database(f"sqlite:///{path}")
    try:
        # As the bundled import stores them: the bundled packs keep their own ids.
        database.write(
            lambda sql: apply_import(sql, packs, now=datetime(2026, 3, 10, 9), bundled=True),
            "busy",
        )
    finally:
        database.close()
    columns = ("content_hash", "source_line", "problem_line", "position", *TEXT_COLUMNS)
    connection = sqlite3.connect(path)
    try:
        stored = {
            (pack_key, card_key): row
            for pack_key, card_key, *row in connection.execute(
                f"SELECT p.key, c.key, {', '.join('c.' + c for c in columns + JSON_COLUMNS)} "
                "FROM cards AS c JOIN packs AS p ON p.id = c.pack_id"
            )
        }
        topics = {
            (pack_key, card_key, kind, value)
            for pack_key, card_key, kind, value in connection.execute(
                "SELECT p.key, c.key, ct.kind, ct.value FROM card_topics AS ct "
                "JOIN cards AS c ON c.id = ct.card_id JOIN packs AS p ON p.id = c.pack_id"
            )
        }
    finally:
        connection.close()

    expected_topics = set()
    cards = 0
    for pack in packs:
        for position, card in enumerate(pack.cards):
            values = reference_values(pack, card)
            expected = (
                reference_hash(values, card.parent),
                card.line,
                card.problem_line,
                position,
                *(values[column] for column in TEXT_COLUMNS),
                *(reference_json(values[column]) for column in JSON_COLUMNS),
            )
            assert tuple(stored[(pack.meta.pack, card.key)]) == expected, card.key
            cards += 1
            if pack.meta.edition_of is not None:
                continue  # an edition's cards have no topics: the stats count the original's
            expected_topics |= {
                (pack.meta.pack, card.key, "pack", pack.meta.pack),
                *((pack.meta.pack, card.key, "tag", tag) for tag in values["tags"]),
                *((pack.meta.pack, card.key, "lesson", lesson) for lesson in values["lessons"]),
            }
    assert len(stored) == cards > 200
    assert topics == expected_topics
    # The packs reach every kind of content the columns hold.
    assert any(row[-5] != "[]" for row in stored.values())  # choices
    assert any(row[-3] is not None for row in stored.values())  # problem
    assert any(row[-1] != "[]" for row in stored.values())  # lessons
