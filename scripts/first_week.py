"""A default first week on the bundled decks: after how many reviews each pack is first met.

A new learner with the default settings drills once a day for ``--days`` days (7 by default),
answering every card right (Good on recall, the expected value on problems, the right letters on
choices), on a fresh SQLite database in a temporary folder. Printed: per pack, the review (1 =
the first answer of the week) and the day at which its first card came; packs never met are
listed last. tests/test_new_card_order.py drills the same week through ``drill_days``.

    python scripts/first_week.py [--days 7] [--start 2026-12-01T09:00]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))


def drill_days(database: Any, start: datetime, days: int) -> list[list[Any]]:
    """The cards (``CardView``) each day's session shows, in order, every one answered right."""
    from kvdrill.app.services.drill import DrillSession

    shown: list[list[Any]] = []
    for day in range(days):
        session = DrillSession.open(database, now=start + timedelta(days=day))
        shown.append([])
        while (card := session.current) is not None:
            shown[-1].append(card)
            if card.kind == "choice":
                session.answer_choice(card.correct_letters, 3.0)
            elif card.kind == "problem":
                session.answer_problem(f"{card.variant.expected_value:g} {card.variant.unit}", 3.0)
            else:
                session.grade(4, 3.0)
    return shown


def main() -> None:
    from kvdrill.app.services.importing import import_bundled
    from kvdrill.store.day_queue import pack_keys
    from kvdrill.store.db import open_database

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--start", default="2026-12-01T09:00")
    args = parser.parse_args()
    start = datetime.fromisoformat(args.start)
    with tempfile.TemporaryDirectory(prefix="kvdrill-week-") as folder:
        database = open_database(f"sqlite:///{folder}/week.db")
        import_bundled(database, start)
        with database.session() as session:
            packs = [key for key in pack_keys(session) if not key.endswith("-vi")]
        shown = drill_days(database, start, args.days)
        database.close()
    met: dict[str, tuple[int, int]] = {}
    reviews = 0
    for day, cards in enumerate(shown, start=1):
        for card in cards:
            reviews += 1
            met.setdefault(card.pack_key, (reviews, day))
    print(f"{reviews} reviews in {args.days} days")
    for pack, (review, day) in sorted(met.items(), key=lambda item: item[1]):
        print(f"  {pack:28} first met at review {review:4} (day {day})")
    for pack in packs:
        if pack not in met:
            print(f"  {pack:28} never met")


if __name__ == "__main__":
    main()
