"""New cards in a sensible order: on the bundled decks, a new learner's first five days bring
the five headline capacity templates (KV per token, weights, decode floor, KV pool,
concurrency), one a day, among the other packs' cards."""

from __future__ import annotations

from datetime import datetime, timedelta

from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.importing import import_bundled
from kvdrill.store.db import open_database

HEADLINE = [
    "gen-kv-bytes-per-token",
    "gen-weight-bytes",
    "gen-decode-floor",
    "gen-kv-pool-tokens",
    "gen-max-concurrency",
]


def test_the_headline_capacity_templates_come_in_the_first_five_days(db_url: str) -> None:
    database = open_database(db_url)
    start = datetime(2026, 12, 1, 9, 0)
    import_bundled(database, start)
    new_problems: list[list[str]] = []
    packs: set[str] = set()
    for day in range(5):
        session = DrillSession.open(database, now=start + timedelta(days=day))
        today = []
        while (card := session.current) is not None:
            if card.is_new:
                packs.add(card.pack_key)
                if card.kind == "problem":
                    today.append(card.key)
            if card.kind == "choice":
                session.answer_choice(card.correct_letters, 3.0)
            elif card.kind == "problem":
                value = f"{card.variant.expected_value:g} {card.variant.unit}"
                session.answer_problem(value, 3.0)
            else:
                session.grade(4, 3.0)
        new_problems.append(today)
    database.close()
    assert [day[0] for day in new_problems] == HEADLINE
    assert "capacity-problems" in packs and len(packs) >= 8  # packs take turns
