"""``kvdrill stats --group``: the weak topics of a study group sharing one database, as counts,
on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import json

import pytest
from stats_helpers import GROUP_TODAY

from kvdrill.app.cli import main
from kvdrill.store.db import open_database
from kvdrill.store.stats import build_group_report

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
        ("tag", "weights", 1, 1, 6, 0.0),
    ]


def test_the_command_shows_counts_and_never_a_learners_notes_or_name(
    group_db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-20T12:00:00")
    assert main(["--db", group_db, "--profile", "ana", "stats", "--group", "--json"]) == 0
    as_json = capsys.readouterr().out
    assert json.loads(as_json)["topics"][1]["topic"] == "kv"
    assert main(["--db", group_db, "--profile", "ana", "stats", "--group"]) == 0
    as_text = capsys.readouterr().out
    assert "3 learner(s)" in as_text and "tag:kv" in as_text
    for output in (as_json, as_text):
        assert "mnemonic" not in output
        assert "ben" not in output and "cleo" not in output
