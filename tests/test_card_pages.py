"""The card browser's listing read a page at a time: the pages are the whole listing's cards,
in pack order from the database, sorted or filtered by the engine's rules, on SQLite and on
PostgreSQL (the listing's one SQL text, app/services/browser.py ``list_cards_page``)."""

from __future__ import annotations

from datetime import datetime

import pytest

from kvdrill.app.services.browser import list_cards, list_cards_page
from kvdrill.app.services.drill import DrillSession
from kvdrill.store.db import open_database

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server

DAY1 = datetime(2026, 3, 10, 9, 0)


@pytest.fixture
def db(db_url: str, collection):
    """Two packs of six recall cards."""
    database = open_database(db_url)
    with database.session() as session:
        collection.add_pack(session, "alpha", collection.recall_cards(6))
        collection.add_pack(session, "beta", collection.recall_cards(6))
    yield database
    database.close()


def test_the_browsers_pages_are_the_whole_listings_cards(db) -> None:
    """A page read from the database (pack order, no state) and a page of a sorted or
    filtered listing are the same cards as the whole listing, on either database."""
    session = DrillSession.open(db, now=DAY1, pack="beta")
    session.set_note("a NOTE_with % and _ in it")
    session.grade(1, 3.0)  # beta/c1 missed: in learning, and first by reviews
    everything = list_cards(db, "default", DAY1)[1]
    assert len(everything) == 12
    today, first, total = list_cards_page(db, "default", DAY1, 5)
    assert (len(first), total) == (5, 12) and first == everything[:5]
    assert list_cards_page(db, "default", DAY1, 5, 10)[1:] == (everything[10:], 12)
    by_reviews = list_cards(db, "default", DAY1, sort="reviews")[1]
    assert list_cards_page(db, "default", DAY1, 5, 2, sort="reviews")[1:] == (by_reviews[2:], 12)
    learning = list_cards_page(db, "default", DAY1, 5, state="learning")
    assert [card.reference for card in learning[1]] == ["beta/c1"] and learning[2] == 1
    found = list_cards_page(db, "default", DAY1, 5, search="note_with %")
    assert [card.reference for card in found[1]] == ["beta/c1"] and found[2] == 1
    assert list_cards_page(db, "default", DAY1, 5, search="note%with")[2] == 0
