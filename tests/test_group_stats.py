"""``kvdrill stats --group``: the weak topics of a study group sharing one database, as counts,
on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from sqlalchemy import select
from stats_helpers import GROUP_TODAY, build_group_report

from kvdrill.app.cli import main
from kvdrill.store import reviews
from kvdrill.store.db import open_database
from kvdrill.store.models import Profile
from kvdrill.store.profiles import get_or_create_profile

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server


def test_topics_rank_by_how_many_learners_are_weak_with_the_groups_accuracy(
    group_db: str,
) -> None:
    database = open_database(group_db)
    with database.session() as session:
        by_rollup = build_group_report(session, GROUP_TODAY, 30, use_rollups=True)
        by_join = build_group_report(session, GROUP_TODAY, 30, use_rollups=False)
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
    ]
    # Only Cleo answered the weights card: its figures would be hers alone.
    assert by_rollup.hidden_topics == 1


def test_the_command_shows_counts_and_never_a_learners_notes_or_name(
    group_db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-20T12:00:00")
    assert main(["--db", group_db, "--profile", "ana", "stats", "--group", "--json"]) == 0
    as_json = capsys.readouterr().out
    assert json.loads(as_json)["topics"][1]["topic"] == "kv"
    assert main(["--db", group_db, "--profile", "ana", "stats", "--group"]) == 0
    as_text = capsys.readouterr().out
    assert "3 learners" in as_text and "tag:kv" in as_text
    assert "tag:weights" not in as_text and "weights" not in as_json
    assert "1 topic not shown: fewer than 3 learners answered in it" in as_text
    for output in (as_json, as_text):
        assert "mnemonic" not in output
        assert "ben" not in output and "cleo" not in output


def test_a_topic_two_learners_answered_in_is_not_shown(db_url: str, collection) -> None:
    """With two learners each could subtract their own figures from the group's."""
    database = open_database(db_url)
    with database.session() as session:
        pack = collection.add_pack(session, cards=collection.recall_cards(1, tags=["kv"]))
        (card,) = pack.cards
        for name, quality in (("ana", 1), ("ben", 5)):
            profile = get_or_create_profile(session, name, datetime(2026, 3, 1))
            session.flush()
            reviews.answer_in_session(
                session,
                reviews.GivenAnswer(
                    profile_id=profile.id,
                    card_id=card.id,
                    quality=quality,
                    seconds=5.0,
                    graded_by="self",
                    now=datetime(2026, 3, 19, 9),
                    rollover_hour=4,
                ),
            )
    with database.session() as session:
        report = build_group_report(session, GROUP_TODAY, 30)
    database.close()
    assert report.learners == 2
    assert report.topics == [] and report.hidden_topics == 2  # the pack and the tag


def profiles(db_url: str) -> list[str]:
    database = open_database(db_url)
    try:
        with database.session() as session:
            return sorted(session.scalars(select(Profile.name)))
    finally:
        database.close()


@pytest.mark.parametrize(
    "command",
    [
        ["stats", "--group"],
        ["stats", "--group", "--json"],
        ["stats"],
        ["stats", "--json"],
        ["settings"],
        ["settings", "--json"],
        ["problem", "--list"],
        ["drill", "--suspended"],
    ],
)
def test_a_read_without_profile_creates_no_default_learner(
    group_db: str, command: list[str], capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-20T12:00:00")
    assert main(["--db", group_db, *command]) == 0
    capsys.readouterr()
    assert profiles(group_db) == ["ana", "ben", "cleo"]
    assert main(["--db", group_db, "stats", "--group", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["learners"] == 3


def test_the_command_reads_without_sqlalchemy_what_the_store_reports(group_db: str) -> None:
    """``stats --group`` in a new process reads the database through the driver alone
    (psycopg or ``sqlite3``, store/pg_sql.py and store/plain_reads.py): the same report the
    store's own read gives, and neither SQLAlchemy nor Alembic imported."""
    import os
    import subprocess
    import sys

    from kvdrill.app.services.stats import load_group_report

    now = datetime(2026, 3, 20, 12)
    database = open_database(group_db)
    try:
        expected = load_group_report(database, "ana", now).model_dump_json(indent=2)
    finally:
        database.close()
    probe = (
        "import sys; from kvdrill.app.cli import main; code = main(sys.argv[1:]); "
        "print([m for m in ('sqlalchemy', 'alembic') if m in sys.modules])"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, "--db", group_db, "--profile", "ana", "stats", "--group",
         "--json"],
        env=dict(os.environ, KVDRILL_NOW=now.isoformat()),
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert result.stdout == expected + "\n[]\n"
