"""``kvdrill stats --group``: the weak topics of a study group sharing one database, as counts,
on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import pytest

from kvdrill.app.cli import main
from kvdrill.store import reviews
from kvdrill.store.db import open_database
from kvdrill.store.profiles import get_or_create_profile
from kvdrill.store.stats import build_group_report

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server

TODAY = date(2026, 3, 20)
SECRET_NOTE = "my private mnemonic: K and V, twice"


@pytest.fixture
def group_url(db_url: str, collection) -> str:
    """Ana and Ben keep failing the kv card; Cleo knows it but keeps failing the weights card."""
    database = open_database(db_url)
    with database.session() as session:
        cards = collection.recall_cards(1, tags=["kv"]) + collection.recall_cards(
            1, tags=["weights"]
        )
        pack = collection.add_pack(session, cards=cards)
        kv_card, weights_card = (card.id for card in pack.cards)
        learners = {
            name: get_or_create_profile(session, name, datetime(2026, 3, 1)).id
            for name in ("ana", "ben", "cleo")
        }
        session.flush()
        answers = {
            "ana": [(kv_card, 1)],
            "ben": [(kv_card, 2)],
            "cleo": [(kv_card, 5), (weights_card, 1)],
        }
        for name, cards in answers.items():
            for offset in range(6):  # one first answer a day, six days running
                when = datetime.combine(TODAY - timedelta(days=6 - offset), datetime.min.time())
                for card_id, quality in cards:
                    reviews.record_answer(
                        session,
                        profile_id=learners[name],
                        card_id=card_id,
                        quality=quality,
                        seconds=5.0,
                        graded_by="self",
                        now=when + timedelta(hours=9),
                        rollover_hour=4,
                    )
        reviews.set_note(session, learners["ben"], kv_card, SECRET_NOTE, datetime(2026, 3, 19))
    database.close()
    return db_url


def test_topics_rank_by_how_many_learners_are_weak_with_the_groups_accuracy(
    group_url: str,
) -> None:
    database = open_database(group_url)
    with database.session() as session:
        by_rollup = build_group_report(session, TODAY, 30, use_rollups=True)
        by_join = build_group_report(session, TODAY, 30, use_rollups=False)
    database.close()
    assert by_rollup == by_join
    assert by_rollup.learners == 3
    figures = [
        (t.kind, t.topic, t.learners_weak, t.learners_judged, t.recent_reviews, t.accuracy)
        for t in by_rollup.topics
    ]
    assert figures == [
        # Everyone lapsed half their first answers or more somewhere in the pack.
        ("pack", "sm2-test", 3, 3, 24, 0.25),
        ("tag", "kv", 2, 3, 18, round(6 / 18, 4)),  # only Cleo's six answers passed
        ("tag", "weights", 1, 1, 6, 0.0),
    ]


def test_the_command_shows_counts_and_never_a_learners_notes_or_name(
    group_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-20T12:00:00")
    assert main(["--db", group_url, "--profile", "ana", "stats", "--group", "--json"]) == 0
    as_json = capsys.readouterr().out
    assert json.loads(as_json)["topics"][1]["topic"] == "kv"
    assert main(["--db", group_url, "--profile", "ana", "stats", "--group"]) == 0
    as_text = capsys.readouterr().out
    assert "3 learner(s)" in as_text and "tag:kv" in as_text
    for output in (as_json, as_text):
        assert "mnemonic" not in output
        assert "ben" not in output and "cleo" not in output
