"""Answer-to-next-card time on a 10,000-card collection: schedule, commit, next card's view.

Builds a throwaway SQLite database (WAL, as kvdrill uses it) with 10,000 recall cards, 6,000 of
them already reviewed and spread over past and future due days, opens today's session, then
times each ``grade()`` plus the read of the next ``current`` card. Target: median <= 2 ms.

    .venv/bin/python scripts/bench_answer.py [--cards 10000] [--answers 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert  # noqa: E402

from kvdrill.app.services.drill import DrillSession  # noqa: E402
from kvdrill.store.db import open_database  # noqa: E402
from kvdrill.store.models import Card, CardState, CardTopic, Pack  # noqa: E402
from kvdrill.store.profiles import get_or_create_profile, set_settings  # noqa: E402

NOW = datetime(2026, 3, 10, 9, 0)
TODAY = date(2026, 3, 10)


def build_collection(database, cards: int, reviewed: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with database.session() as session:
        profile = get_or_create_profile(session, "default", datetime.now())
        # Enough room in today's limits that the session is long.
        set_settings(profile, {"new_per_day": 1000, "reviews_per_day": 100_000})
        packs = []
        for number in range(10):
            pack = Pack(
                key=f"bench-{number}", title=f"Bench {number}", version="1", imported_at=NOW
            )
            session.add(pack)
            packs.append(pack)
        session.flush()
        per_pack = cards // len(packs)
        session.execute(
            insert(Card),
            [
                {
                    "pack_id": packs[i // per_pack].id,
                    "key": f"card-{i}",
                    "kind": "recall",
                    "title": f"Card {i}",
                    "status": None,
                    "prompt": f"Question {i}: how many bytes per token?",
                    "answer": f"Answer {i}.",
                    "key_numbers": [{"text": f"figure {i}", "claim": None, "line": 1}],
                    "tags": ["bench", f"tag-{i % 20}"],
                    "position": i % per_pack,
                }
                for i in range(per_pack * len(packs))
            ],
        )
        ids = list(session.scalars(Card.__table__.select().with_only_columns(Card.id)))
        session.execute(
            insert(CardTopic), [{"card_id": i, "kind": "tag", "value": "bench"} for i in ids]
        )
        session.execute(
            insert(CardState),
            [
                {
                    "profile_id": profile.id,
                    "card_id": card_id,
                    "repetitions": rng.randint(1, 6),
                    "easiness_milli": rng.choice(range(1300, 2800, 20)),
                    "interval_days": rng.randint(1, 60),
                    "due_day": TODAY + timedelta(days=rng.randint(-20, 40)),
                    "lapses": rng.randint(0, 3),
                    "reviews": rng.randint(1, 12),
                    "last_review_at": NOW - timedelta(days=rng.randint(1, 60)),
                    "suspended": False,
                    "leech": False,
                }
                for card_id in rng.sample(ids, reviewed)
            ],
        )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--answers", type=int, default=300)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        database = open_database(f"sqlite:///{folder}/bench.db")
        started = time.perf_counter()
        build_collection(database, args.cards, reviewed=args.cards * 6 // 10)
        built = time.perf_counter() - started

        started = time.perf_counter()
        session = DrillSession.open(database, now=NOW)
        first = session.current
        opened = time.perf_counter() - started
        assert first is not None, "the benchmark session is empty"

        rng = random.Random(11)
        timings = []
        for _ in range(min(args.answers, session.remaining)):
            quality = rng.choice((1, 3, 4, 4, 4, 5))
            started = time.perf_counter()
            session.grade(quality, 5.0)
            _ = session.current
            timings.append((time.perf_counter() - started) * 1000)
        database.close()

    median = statistics.median(timings)
    print(f"collection: {args.cards} cards ({built:.1f} s to build)")
    print(f"open session (plan the queue, first card): {opened * 1000:.1f} ms")
    print(f"answer to next card over {len(timings)} answers (grade + commit + next view):")
    print(f"  median {median:.2f} ms   p95 {percentile(timings, 0.95):.2f} ms   "
          f"max {max(timings):.2f} ms")  # fmt: skip
    print(f"  target: median <= 2 ms: {'met' if median <= 2.0 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
