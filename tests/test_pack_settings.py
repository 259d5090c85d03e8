"""A pack's own settings (``kvdrill settings --pack PACK KEY VALUE``): its new cards per day and
their order, honoured by every place that plans a day: the drill, ``kvdrill due`` (the sqlite3
read and the store's session), the fast start's first card, and home's per-pack new counts."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from kvdrill.app.cli import main
from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.overview import load_overview
from kvdrill.app.services.settings import change_pack_setting_text, change_settings
from kvdrill.engine.errors import UserError
from kvdrill.engine.study.queue import QueueCard, shuffle_key
from kvdrill.store.db import open_database
from kvdrill.store.due_counts import count_in_file, count_in_session
from kvdrill.store.location import sqlite_file
from kvdrill.store.models import Card, Pack

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server

DAY1 = datetime(2026, 3, 10, 9, 0)


@pytest.fixture
def db(db_url: str, collection):
    """Two packs of six recall cards; the profile takes up to 20 new cards a day."""
    database = open_database(db_url)
    with database.session() as session:
        collection.add_pack(session, "alpha", collection.recall_cards(6))
        collection.add_pack(session, "beta", collection.recall_cards(6))
    change_settings(database, "default", DAY1, new_per_day=20)
    yield database
    database.close()


def set_pack(db, pack: str, name: str, text: str) -> None:
    change_pack_setting_text(db, "default", DAY1, pack, name, text)


def session_packs(db, now: datetime = DAY1) -> list[str]:
    """The pack of each card a drill at ``now`` shows, in order, every card answered Good."""
    session = DrillSession.open(db, now=now)
    shown = []
    while (card := session.current) is not None:
        shown.append(card.pack_key)
        session.grade(4, 3.0)
    return shown


def due_line(capsys, db_url: str, now: datetime = DAY1) -> str:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KVDRILL_NOW", now.isoformat())
        assert main(["--db", db_url, "due"]) == 0
    return capsys.readouterr().out


def test_a_pack_limited_to_one_new_card_gives_one_in_the_drill_due_and_home(
    db, db_url, capsys
) -> None:
    set_pack(db, "beta", "new_per_day", "1")
    # kvdrill due: the sqlite3 read on SQLite, the store's session on PostgreSQL, and the
    # session's count on either.
    assert due_line(capsys, db_url) == "0 due · 7 new\n"
    assert count_in_session_of(db) == (0, 7)
    path = sqlite_file(db_url)
    if path is not None:  # the sqlite3 read itself, not a fall-back to the session
        counted = count_in_file(path, "default", DAY1)
        assert counted is not None and (counted.due, counted.new) == (0, 7)
    home = {line.key: line.new for line in load_overview(db.read, "default", DAY1).packs}
    assert home == {"alpha": 6, "beta": 1}
    assert load_overview(db.read, "default", DAY1).new_today == 7
    assert session_packs(db).count("beta") == 1
    # Later the same day: beta's one is used; home, due and the drill all say none of it.
    later = DAY1 + timedelta(hours=2)
    assert due_line(capsys, db_url, later) == "0 due · 0 new\n"
    home = {line.key: line.new for line in load_overview(db.read, "default", later).packs}
    assert home == {"alpha": 0, "beta": 0}
    assert session_packs(db, later) == []
    # The next day beta gives one new card again, besides the seven reviews.
    tomorrow = DAY1 + timedelta(days=1)
    assert due_line(capsys, db_url, tomorrow) == "7 due · 1 new\n"
    assert session_packs(db, tomorrow).count("beta") == 2


def count_in_session_of(db, now: datetime = DAY1) -> tuple[int, int]:
    with db.session() as session:
        counted = count_in_session(session, "default", now)
    return counted.due, counted.new


def beta_cards(db) -> list[QueueCard]:
    """Pack beta's cards in file order, as the queue sees them."""
    with db.session() as session:
        rows = session.execute(
            select(Card.id, Card.pack_id)
            .join(Pack)
            .where(Pack.key == "beta")
            .order_by(Card.position)
        ).all()
    return [QueueCard(card_id=card_id, kind="recall", order=i, pack=pack)
            for i, (card_id, pack) in enumerate(rows)]  # fmt: skip


def test_a_pack_in_random_order_comes_shuffled_in_the_drill_and_the_fast_start(
    db, db_url, monkeypatch
) -> None:
    from kvdrill.app.services.first_card import fast_card_state

    set_pack(db, "alpha", "new_per_day", "0")
    set_pack(db, "beta", "new_order", "random")
    cards = beta_cards(db)
    shuffled = [card.card_id for card in sorted(cards, key=shuffle_key)]
    assert shuffled != [card.card_id for card in cards]  # the shuffle moves this pack's cards
    with db.session() as session:
        key_of = {card_id: key for card_id, key in session.execute(select(Card.id, Card.key))}
    assert key_of[shuffled[0]] != "c1"  # so a plan ignoring either setting starts elsewhere
    session = DrillSession.open(db, now=DAY1)
    assert session.current is not None and session.current.key == key_of[shuffled[0]]
    monkeypatch.setenv("KVDRILL_NOW", DAY1.isoformat())
    request = {"database_url": db_url, "profile": "default"}
    fast = fast_card_state(request)  # None on PostgreSQL: the store's session reads it
    if db_url.startswith("sqlite"):
        assert fast is not None and fast["card"]["key"] == key_of[shuffled[0]]
    order = []
    while (card := session.current) is not None:
        order.append(card.key)
        session.grade(4, 3.0)
    assert order == [key_of[card_id] for card_id in shuffled]


def test_the_cli_sets_shows_and_takes_back_a_packs_own_settings(db, db_url, capsys) -> None:
    assert main(["--db", db_url, "settings", "--pack", "beta", "new_per_day", "3"]) == 0
    assert capsys.readouterr().out == "beta: new_per_day = 3\n"
    assert main(["--db", db_url, "settings", "--pack", "beta", "new_order", "random"]) == 0
    capsys.readouterr()
    assert main(["--db", db_url, "settings", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["new_per_day"] == 20
    assert shown["packs"] == {"beta": {"new_per_day": 3, "new_order": "random"}}
    assert main(["--db", db_url, "settings", "--pack", "beta", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "pack": "beta", "new_per_day": 3, "new_order": "random"
    }  # fmt: skip
    assert main(["--db", db_url, "settings", "--pack", "alpha"]) == 0
    out = capsys.readouterr().out
    assert "new_per_day  default" in out and "new_order    default" in out
    for name in ("new_per_day", "new_order"):
        assert main(["--db", db_url, "settings", "--pack", "beta", name, "default"]) == 0
    assert capsys.readouterr().out.endswith("beta: new_order = default\n")
    assert main(["--db", db_url, "settings", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["packs"] == {}


def test_a_wrong_pack_key_or_value_changes_nothing_and_says_why(db, db_url, capsys) -> None:
    with pytest.raises(UserError, match="there is no pack 'gamma'"):
        set_pack(db, "gamma", "new_per_day", "1")
    for args, message in [
        (["--pack", "gamma", "new_per_day", "1"], "there is no pack 'gamma' (packs: alpha, beta)"),
        (["--pack", "beta", "new_per_day", "-1"], "a whole number from 0 to 1000, or default"),
        (["--pack", "beta", "new_order", "sorted"], "one of file, random"),
        (["--pack", "beta", "new_orders", "file"], "there is no pack setting 'new_orders'"),
        (["--pack", "beta", "new_order"], "give a value too"),
    ]:
        assert main(["--db", db_url, "settings", *args]) != 0
        assert message in capsys.readouterr().err
    assert main(["--db", db_url, "settings", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["packs"] == {}


def test_a_pack_limited_to_no_new_card_says_so_in_the_settings_table(db, db_url, capsys) -> None:
    """0 is a limit of its own (no new card of that pack), shown as such, not as no setting."""
    assert main(["--db", db_url, "settings", "--pack", "beta", "new_per_day", "0"]) == 0
    capsys.readouterr()
    assert main(["--db", db_url, "settings"]) == 0
    assert "Pack beta: new_per_day = 0\n" in capsys.readouterr().out
