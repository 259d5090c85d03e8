"""The stats rollups after ``kvdrill import``: many new cards' topics are inserted with the
per-row trigger suspended and its sums added in grouped statements (store/rollups.py); a few go
through the trigger. Either way the rollups must equal ``rollups.rebuild()``'s, on a collection
that already has answers and schedules, and a failed or killed import must leave the file as it
was, triggers included."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select

from kvdrill.app.services.importing import load_packs, open_import_database, store_packs
from kvdrill.store import import_topics, importer, rollups
from kvdrill.store.db import connection_sql, open_database
from kvdrill.store.models import Card, CardState, ReviewLog
from kvdrill.store.profiles import get_or_create_profile
from kvdrill.store.sqlite_import import SqliteImportFile

NOW = datetime(2026, 3, 10, 9, 30)
ROLLUP_KEYS = {"topic_days": 4, "topic_states": 5, "topic_cards": 2}  # key columns first
# Enough new cards that their topic rows (pack, tag, lesson: three each) take the bulk path.
BULK_CARDS = import_topics.BULK_TOPIC_ROWS // 3 + 1


def write_pack(folder: Path, key: str, cards: dict[str, tuple[list[str], list[str]]]) -> Path:
    """A pack file: card key -> (its tags, its lessons); the pack itself is tagged ``shared``."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = [f"---\npack: {key}\ntitle: Pack {key}\nversion: 1\ntags: [shared]\n---\n"]
    for card_key, (tags, lessons) in cards.items():
        fields = ""
        if tags:
            fields += f"Tags: {', '.join(tags)}\n"
        if lessons:
            fields += f"Lessons: {', '.join(lessons)}\n"
        parts.append(
            f"## Card {card_key} {{#{card_key}}}\n\n{fields}\n### Prompt\n\nWhat is {card_key}?\n\n"
            f"### Answer\n\nIt is {card_key}.\n"
        )
    path = folder / f"{key}.md"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def import_files(path: Path, *files: Path) -> importer.ImportPlan:
    database = open_import_database(f"sqlite:///{path}")
    assert isinstance(database, SqliteImportFile)  # the sqlite3 path, where the bulk path runs
    try:
        return store_packs(database, load_packs(list(files)), NOW)
    finally:
        database.close()


def give_history(path: Path, card_keys: list[str]) -> None:
    """Two learners' answers and schedules on these cards: some due, suspended, leeches."""
    database = open_database(f"sqlite:///{path}")
    try:
        with database.session() as session:
            profiles = [get_or_create_profile(session, name, NOW) for name in ("ana", "bo")]
            cards = session.scalars(select(Card).where(Card.key.in_(card_keys))).all()
            for number, card in enumerate(sorted(cards, key=lambda card: card.id)):
                for profile in profiles[: 1 + number % 2]:
                    session.add(
                        CardState(
                            profile_id=profile.id,
                            card_id=card.id,
                            repetitions=number % 3,
                            easiness_milli=1300 + 100 * number,
                            interval_days=number,
                            due_day=None if number % 5 == 4 else date(2026, 3, 1 + number % 9),
                            lapses=number % 2,
                            reviews=1 + number % 3,
                            suspended=number % 4 == 3,
                            leech=number % 6 == 5,
                        )
                    )
                    for answer in range(1 + number % 3):
                        session.add(
                            ReviewLog(
                                profile_id=profile.id,
                                card_id=card.id,
                                reviewed_at=NOW - timedelta(days=answer, hours=number),
                                study_day=date(2026, 3, 9 - answer),
                                quality=(number + answer) % 6,
                                seconds=1.5 + number + answer / 4,
                                graded_by="self",
                                moved_schedule=answer % 2 == 0,
                                mistake="gb_vs_gib" if number % 4 == 1 else None,
                            )
                        )
    finally:
        database.close()


def rollup_rows(connection) -> dict[str, list[tuple]]:
    """Every rollup row that counts something (the triggers leave rows summing to nothing
    where a topic lost its last card; the stats read past them), floats rounded."""
    tables = {}
    for table, keys in ROLLUP_KEYS.items():
        rows = connection.exec_driver_sql(f"SELECT * FROM {table}").all()
        tables[table] = sorted(
            tuple(round(value, 6) if isinstance(value, float) else value for value in row)
            for row in rows
            if any(row[keys:])
        )
    return tables


def assert_rollups_equal_rebuild(path: Path) -> None:
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            kept = rollup_rows(connection)
            rollups.rebuild(connection_sql(connection))
            rebuilt = rollup_rows(connection)
            connection.rollback()
    finally:
        engine.dispose()
    assert kept == rebuilt
    assert rebuilt["topic_days"] and rebuilt["topic_states"] and rebuilt["topic_cards"]


@pytest.fixture
def bulk_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first card id of each bulk insert of new topics (the real one runs)."""
    calls: list[int] = []
    real = rollups.insert_new_topics

    def counted(db, first_card, insert) -> None:
        calls.append(first_card)
        real(db, first_card, insert)

    monkeypatch.setattr(rollups, "insert_new_topics", counted)
    return calls


@pytest.mark.parametrize(
    ("new_cards", "json_each"),
    [(BULK_CARDS, True), (BULK_CARDS, False), (1, True)],
    ids=["bulk", "bulk-without-json_each", "per-row"],
)
def test_rollups_equal_the_rebuild_after_adding_changing_retiring_and_reviving(
    tmp_path: Path,
    new_cards: int,
    json_each: bool,
    bulk_calls: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not json_each:  # as on a SQLite older than 3.38: the topic rows come from Python
        monkeypatch.setattr(import_topics, "_reads_json", lambda db: False)
    db = tmp_path / "kvdrill.db"
    packs = tmp_path / "packs"
    first = {f"a{i}": ([f"t{i % 3}"], [str(1 + i % 4)]) for i in range(BULK_CARDS)}
    import_files(db, write_pack(packs, "alpha", first))
    assert len(bulk_calls) == 1  # a first import of this many cards takes the bulk path
    give_history(db, [f"a{i}" for i in range(12)])
    assert_rollups_equal_rebuild(db)

    # Tags and lessons changed on cards with history, two of them dropped (retired), new cards.
    edited = dict(first)
    edited["a1"] = (["t9"], ["1"])  # another tag
    edited["a2"] = ([], [])  # no own tag, no lesson: the pack's tag alone
    edited["a3"] = (["t0", "t7"], ["2", "9"])
    del edited["a4"], edited["a5"]
    edited |= {f"n{i}": ([f"t{i % 5}"], ["3"]) for i in range(new_cards)}
    plan = import_files(db, write_pack(packs, "alpha", edited))
    assert (plan.count("added"), plan.count("changed"), plan.count("retired")) == (new_cards, 3, 2)
    assert len(bulk_calls) == 1 + (new_cards == BULK_CARDS)
    assert_rollups_equal_rebuild(db)

    # The retired cards come back with other topics, another pack arrives.
    edited["a4"] = (["t4"], ["4"])
    edited["a5"] = first["a5"]
    second = {f"b{i}": (["t1"], []) for i in range(new_cards)}
    plan = import_files(db, write_pack(packs, "alpha", edited), write_pack(packs, "beta", second))
    assert plan.count("revived") == 2 and plan.count("added") == new_cards
    assert_rollups_equal_rebuild(db)


def database_rows(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, and the schema in the order SQLite keeps it."""
    connection = sqlite3.connect(path)
    try:
        schema = connection.execute(
            "SELECT rowid, type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"
        ).fetchall()
        tables = [name for _, kind, name, _, _ in schema if kind == "table"]
        rows = {
            table: sorted(connection.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
            for table in tables
        }
        return rows | {"sqlite_master": schema}
    finally:
        connection.close()


def history_collection(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A database with one pack and answers on it, and five packs of new cards to import."""
    db = tmp_path / "kvdrill.db"
    packs = tmp_path / "packs"
    import_files(db, write_pack(packs, "alpha", {f"a{i}": (["t1"], ["2"]) for i in range(8)}))
    give_history(db, [f"a{i}" for i in range(8)])
    files = [
        write_pack(packs / "new", f"new{n}", {f"c{i}": ([f"t{i % 4}"], []) for i in range(40)})
        for n in range(5)
    ]
    return db, files


def test_an_import_interrupted_in_the_bulk_insert_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the fifth pack's topics go in, the trigger dropped: all rolled back."""
    db, files = history_collection(tmp_path)
    before = database_rows(db)
    real = rollups.insert_new_topics
    calls: list[int] = []

    def interrupted_on_the_fifth(db_, first_card, insert) -> None:
        def insert_then_stop() -> None:
            insert()
            if len(calls) == 5:
                raise KeyboardInterrupt

        calls.append(first_card)
        real(db_, first_card, insert_then_stop)

    monkeypatch.setattr(rollups, "insert_new_topics", interrupted_on_the_fifth)
    with pytest.raises(KeyboardInterrupt):
        import_files(db, *files)
    assert len(calls) == 5
    assert database_rows(db) == before
    monkeypatch.setattr(rollups, "insert_new_topics", real)
    import_files(db, *files)  # the file still works, its rollups kept
    assert_rollups_equal_rebuild(db)


def test_an_import_killed_in_the_bulk_insert_writes_nothing(tmp_path: Path) -> None:
    """kill -9 while the last pack's topics go in, the trigger dropped: the file is as before."""
    db, files = history_collection(tmp_path)
    before = database_rows(db)
    probe = (
        "import os, signal, sys\n"
        "from kvdrill.store import rollups\n"
        "real = rollups.insert_new_topics\n"
        "calls = []\n"
        "def killed_on_the_fifth(db, first_card, insert):\n"
        "    def insert_then_die():\n"
        "        insert()\n"
        "        if len(calls) == 5:\n"
        "            os.kill(os.getpid(), signal.SIGKILL)\n"
        "    calls.append(first_card)\n"
        "    real(db, first_card, insert_then_die)\n"
        "rollups.insert_new_topics = killed_on_the_fifth\n"
        "from kvdrill.app.cli import main\n"
        f"sys.exit(main(['--db', {f'sqlite:///{db}'!r}, 'import', *{[str(f) for f in files]!r}]))\n"
    )
    env = dict(os.environ)
    env.pop("KVDRILL_DB", None)
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert done.returncode == -9, done.stderr
    connection = sqlite3.connect(db)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        connection.close()
    assert database_rows(db) == before
    import_files(db, *files)
    assert_rollups_equal_rebuild(db)


@pytest.mark.parametrize("json_each", [True, False], ids=["bulk", "per-row"])
def test_rollups_equal_the_rebuild_after_a_whole_pack_is_re_tagged(
    tmp_path: Path, json_each: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pack's tag and a lesson change on every card, most with history: as many topic
    rows removed and added as the pack has cards, in grouped statements (or, without
    json_each, through the triggers)."""
    if not json_each:
        monkeypatch.setattr(import_topics, "_reads_json", lambda db: False)
    changes: list[tuple[int, int]] = []
    real = rollups.change_topics

    def counted(db, removed, added, change) -> None:
        changes.append((len(removed), len(added)))
        real(db, removed, added, change)

    monkeypatch.setattr(rollups, "change_topics", counted)
    db = tmp_path / "kvdrill.db"
    packs = tmp_path / "packs"
    cards = {f"a{i}": ([f"t{i % 3}"], [str(1 + i % 4)]) for i in range(BULK_CARDS * 2)}
    import_files(db, write_pack(packs, "alpha", cards))
    give_history(db, list(cards))
    retagged = write_pack(packs, "alpha", {key: (tags, ["7"]) for key, (tags, _) in cards.items()})
    retagged.write_text(retagged.read_text().replace("tags: [shared]", "tags: [other]"))
    plan = import_files(db, retagged)
    assert plan.count("changed") == len(cards)
    # Every card loses the tag 'shared' and its lesson, and gains 'other' and lesson 7.
    assert changes == ([(2 * len(cards), 2 * len(cards))] if json_each else [])
    assert_rollups_equal_rebuild(db)


def test_a_re_tagging_interrupted_with_the_triggers_dropped_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C once a re-tagged pack's topic rows are out and in, both topic triggers dropped:
    every row and the schema are as before, and the next import keeps the rollups right."""
    db = tmp_path / "kvdrill.db"
    packs = tmp_path / "packs"
    cards = {f"a{i}": ([f"t{i % 3}"], ["2"]) for i in range(BULK_CARDS * 2)}
    import_files(db, write_pack(packs, "alpha", cards))
    give_history(db, list(cards))
    before = database_rows(db)
    retagged = write_pack(packs, "alpha", {key: (tags, ["5"]) for key, (tags, _) in cards.items()})
    real = rollups.change_topics

    def interrupted(db_, removed, added, change) -> None:
        def change_then_stop() -> None:
            change()
            raise KeyboardInterrupt

        real(db_, removed, added, change_then_stop)

    monkeypatch.setattr(rollups, "change_topics", interrupted)
    with pytest.raises(KeyboardInterrupt):
        import_files(db, retagged)
    assert database_rows(db) == before
    monkeypatch.setattr(rollups, "change_topics", real)
    assert import_files(db, retagged).count("changed") == len(cards)
    assert_rollups_equal_rebuild(db)
