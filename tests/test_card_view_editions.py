"""The card view's one statement picks a card's text in the learner's language: from the first
edition pack (by id) of that language that has the card, else the card's own; one row a card
(store/queries_sql.py ``CARD_VIEW_SQL``, and the problem templates' statement beside it)."""

from __future__ import annotations

import sqlite3

import pytest

from kvdrill.store.plain_reads import problem_templates
from kvdrill.store.queries_sql import CARD_VIEW_SQL, card_view_params
from kvdrill.store.sql import SqliteSql
from kvdrill.store.sqlite_file import create_schema

pytestmark = pytest.mark.store


def pack(sql: SqliteSql, key: str, lang: str, edition_of: str | None) -> int:
    return sql.insert_id(
        "INSERT INTO packs (key, title, version, lang, description, lessons, tags, source_path,"
        " content_hash, bundled, imported_at, edition_of) VALUES (:key, :title, '1', :lang, '',"
        " '[]', '[]', :path, '', 0, '2026-03-02 09:00:00.000000', :edition_of)",
        {"key": key, "title": f"{key} title", "lang": lang, "path": f"{key}.md",
         "edition_of": edition_of},
    )  # fmt: skip


def card(sql: SqliteSql, pack_id: int, key: str, prompt: str, *, retired: bool = False) -> int:
    return sql.insert_id(
        "INSERT INTO cards (pack_id, key, kind, title, prompt, answer, key_numbers, tip, choices,"
        " explanation, related, problem, source_line, position, tags, lessons, content_hash,"
        " retired) VALUES (:pack, :key, 'problem', :prompt, :prompt, '', '[]', '', '[]', '',"
        " '[]', '{}', 1, 1, '[]', '[]', '', :retired)",
        {"pack": pack_id, "key": key, "prompt": prompt, "retired": int(retired)},
    )  # fmt: skip


@pytest.fixture
def sql() -> SqliteSql:
    connection = sqlite3.connect(":memory:", isolation_level=None)
    create_schema(connection)
    sql = SqliteSql(connection)
    course = pack(sql, "course", "en", None)
    only_b = pack(sql, "course-vi", "vi", "course")  # lacks card b, has a retired c
    other = pack(sql, "course-vi-2", "vi-VN", "course")  # has a, b and c
    pack(sql, "course-fr", "fr", "course")
    for key in ("a", "b", "c", "d"):
        card(sql, course, key, f"English {key}")
    card(sql, only_b, "a", "Vietnamese a, first edition")
    card(sql, only_b, "c", "Vietnamese c, retired", retired=True)
    for key in ("a", "b", "c"):
        card(sql, other, key, f"Vietnamese {key}, second edition")
    return sql


def view_prompts(sql: SqliteSql, lang: str) -> dict[str, tuple[str, str, str]]:
    ids = {key: id_ for id_, key in sql.rows("SELECT id, key FROM cards WHERE pack_id = 1")}
    views = {}
    for key, card_id in ids.items():
        row = sql.first_named(CARD_VIEW_SQL, card_view_params(card_id, 1, lang))
        assert (
            row is not None
            and len(sql.rows(CARD_VIEW_SQL, card_view_params(card_id, 1, lang))) == 1
        )
        views[key] = (row["prompt"], row["pack_title"], row["pack_path"])
    return views


def test_each_card_reads_from_the_first_edition_of_the_language_that_has_it(sql) -> None:
    assert view_prompts(sql, "vi") == {
        "a": ("Vietnamese a, first edition", "course-vi title", "course-vi.md"),
        "b": ("Vietnamese b, second edition", "course-vi-2 title", "course-vi-2.md"),
        "c": ("Vietnamese c, second edition", "course-vi-2 title", "course-vi-2.md"),
        "d": ("English d", "course title", "course.md"),
    }
    # A region's learner reads only the editions of that region or of the bare language.
    assert view_prompts(sql, "vi-VN")["a"][0] == "Vietnamese a, second edition"
    assert set(view_prompts(sql, "en").values()) == {
        (f"English {key}", "course title", "course.md") for key in "abcd"
    }


def test_the_problem_templates_give_one_row_a_card_in_the_same_text(sql) -> None:
    templates = problem_templates(sql, "vi", offered_only=False)
    assert [(pack, key, title) for pack, key, title, _ in templates] == [
        ("course", "a", "Vietnamese a, first edition"),
        ("course", "b", "Vietnamese b, second edition"),
        ("course", "c", "Vietnamese c, second edition"),
        ("course", "d", "English d"),
    ]
