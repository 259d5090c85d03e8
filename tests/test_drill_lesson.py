"""Drilling one lesson: the queue narrows in SQL, the CLI refuses an unknown lesson in one line,
and Enter on a lesson row of the stats screen starts a drill of that lesson."""

from __future__ import annotations

import io
import sys
from datetime import datetime
from pathlib import Path

import pytest
from stats_helpers import open_stats
from textual.widgets import DataTable
from tui_helpers import make_app, settle

from kvdrill.app.cli import main
from kvdrill.engine.errors import UserError
from kvdrill.store.day_queue import check_filters, queue_cards
from kvdrill.store.db import open_database
from kvdrill.store.models import Card, CardTopic, Pack
from kvdrill.store.profiles import get_or_create_profile

EXAMPLE_PACK = Path(__file__).parent / "fixtures" / "packs" / "good"


@pytest.fixture
def example_db(db_url: str) -> str:
    """tests/fixtures/packs/good: the pack draws on lessons 5 and 7, one card also on 17."""
    from kvdrill.app.services.pack_files import parse_paths
    from kvdrill.store.importer import apply_import

    database = open_database(db_url)
    packs, errors = parse_paths([EXAMPLE_PACK])
    assert not errors
    with database.session() as session:
        apply_import(session, now=datetime.now(), packs=packs)
    database.close()
    return db_url


def card_keys(db_url: str, lesson: str | None) -> list[str]:
    database = open_database(db_url)
    try:
        with database.session() as session:
            profile = get_or_create_profile(session, "default", datetime.now())
            ids = [card.card_id for card in queue_cards(session, profile.id, lesson=lesson)]
            return [session.get(Card, card_id).key for card_id in ids]
    finally:
        database.close()


def test_a_lesson_narrows_the_queue_and_05_is_lesson_5(example_db: str) -> None:
    everything = card_keys(example_db, None)
    only_17 = card_keys(example_db, "17")
    assert "kv-per-token" in only_17
    assert "pool-choice" in everything and "pool-choice" not in only_17
    assert card_keys(example_db, "017") == only_17
    assert card_keys(example_db, "05") == card_keys(example_db, "5") == everything


def test_an_unknown_lesson_names_the_lessons_there_are(example_db: str) -> None:
    database = open_database(example_db)
    with database.session() as session, pytest.raises(UserError) as raised:
        check_filters(session, None, None, "99")
    database.close()
    assert str(raised.value) == "no card draws on lesson '99' (lessons: 5, 7, 17)"


def test_drill_lesson_is_a_one_line_error_when_no_card_draws_on_it(
    example_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", example_db, "drill", "--plain", "--lesson", "99"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kvdrill: no card draws on lesson '99'")
    assert err.count("\n") == 1


def test_plain_drill_of_one_lesson_asks_only_its_cards(
    example_db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    # Bundled decks also draw on lesson 17: point the bundled import at nothing.
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n4\n" * 10))
    assert main(["--db", example_db, "drill", "--plain", "--lesson", "17"]) == 0
    out = capsys.readouterr().out
    assert "Derive KV bytes per token" in out
    assert "Where does the KV pool go?" not in out
    assert "Session over: 2 cards" in out  # the card and its follow-up


@pytest.fixture
def lesson_stats_db(request: pytest.FixtureRequest) -> str:
    """The stats scenario, with C (reviewed, due) and a new card E in lesson 5."""
    url = request.getfixturevalue("stats_db")
    database = open_database(url)
    with database.session() as session:
        pack = session.query(Pack).filter_by(key="p1").one()
        card_c = session.query(Card).filter_by(key="C").one()
        card_e = Card(pack_id=pack.id, key="E", kind="recall", title="E", prompt="Say E.")
        session.add(card_e)
        session.flush()
        session.add_all(
            [
                CardTopic(card_id=card_c.id, kind="lesson", value="5"),
                CardTopic(card_id=card_e.id, kind="pack", value="p1"),
                CardTopic(card_id=card_e.id, kind="lesson", value="5"),
            ]
        )
        session.commit()
    database.close()
    return url


async def test_enter_on_a_lesson_row_of_the_stats_starts_a_drill_of_that_lesson(
    lesson_stats_db: str,
) -> None:
    app = make_app(lesson_stats_db, start="home")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_stats(pilot)
        table = app.screen.query_one("#topics", DataTable)
        rows = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        table.focus()
        table.move_cursor(row=rows.index("lesson:5"))
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "DrillScreen"
        # Narrowed to the lesson; practice only if nothing of it were due (issue 25).
        assert app.screen.narrow == {"lesson": "5", "cram_when_empty": True}
        assert not app.screen.session.practice
        assert app.screen.card.key == "C"  # the due review first, then the new card E
        assert app.screen.session.remaining == 2
