"""New cards in a sensible order: on the bundled decks, a new learner's first five days bring
the five headline capacity templates (KV per token, weights, decode floor, KV pool,
concurrency), one a day, among the other packs' cards; and the first week meets every pack
(scripts/first_week.py prints after how many reviews each is first met)."""

from __future__ import annotations

import importlib.util
from datetime import datetime
from pathlib import Path

from kvdrill.app.services.importing import import_bundled
from kvdrill.store.day_queue import pack_keys
from kvdrill.store.db import open_database

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "first_week.py"
HEADLINE = [
    "gen-kv-bytes-per-token",
    "gen-weight-bytes",
    "gen-decode-floor",
    "gen-kv-pool-tokens",
    "gen-max-concurrency",
]


def test_the_headline_templates_come_in_the_first_five_days_and_a_week_meets_every_pack(
    db_url: str,
) -> None:
    spec = importlib.util.spec_from_file_location("first_week", SCRIPT)
    assert spec is not None and spec.loader is not None
    first_week = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(first_week)
    database = open_database(db_url)
    start = datetime(2026, 12, 1, 9, 0)
    import_bundled(database, start)
    shown = first_week.drill_days(database, start, 7)
    with database.session() as session:
        english = {key for key in pack_keys(session) if not key.endswith("-vi")}
    database.close()
    new_problems = [
        [card.key for card in day if card.is_new and card.kind == "problem"] for day in shown
    ]
    assert [day[0] for day in new_problems[:5]] == HEADLINE
    # Packs take turns, from one day to the next: a week meets every one.
    assert {card.pack_key for day in shown for card in day} == english
