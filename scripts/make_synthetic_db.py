"""Build a synthetic kvdrill database for the stats benchmark.

    python scripts/make_synthetic_db.py PATH [--cards 100000] [--reviews 1000000] [--days 365]

Cards are spread over 20 packs, 12 tags and 40 lessons; reviews over the last ``--days`` study
days with a realistic mix of grades and diagnosed mistakes. Deterministic (seeded).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import time
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MISTAKES = [
    "kv_factor_2",
    "gb_vs_gib",
    "attention_heads",
    "bits_vs_bytes",
    "tp_missing",
    "kb_vs_kib",
]


def build(path: Path, cards: int, reviews: int, days: int, today: date) -> None:
    from kvdrill.store import rollups
    from kvdrill.store.db import connection_sql, open_database

    if path.exists():
        path.unlink()
    database = open_database(f"sqlite:///{path}")
    # Bulk load without the per-row triggers, then build the rollups in one pass.
    with database.engine.begin() as connection:
        rollups.drop_triggers(connection)
    rng = random.Random(7)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=OFF")
    now = datetime(today.year, today.month, today.day, 12)
    con.execute(
        "INSERT INTO profiles (id, name, created_at, new_per_day, reviews_per_day, rollover_hour,"
        " answer_seconds, theme) VALUES (1, 'default', ?, 10, 200, 4, 60, 'dark')",
        (now,),
    )
    packs = 20
    con.executemany(
        "INSERT INTO packs (id, key, title, version, lang, description, lessons, tags,"
        " source_path, content_hash, bundled, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (i + 1, f"pack-{i:02d}", f"Pack {i}", "1", "en", "", "[]", "[]", "", "", 0, now)
            for i in range(packs)
        ],
    )
    card_rows, topic_rows, state_rows = [], [], []
    for card_id in range(1, cards + 1):
        pack = card_id % packs + 1
        tag = f"tag-{card_id % 12}"
        lesson = str(card_id % 40 + 1)
        card_rows.append(
            (
                card_id,
                pack,
                f"c{card_id}",
                "recall",
                f"Card {card_id}",
                "q",
                "a",
                card_id,
                json.dumps([tag]),
                json.dumps([lesson]),
            )
        )
        topic_rows += [
            (card_id, "pack", f"pack-{pack - 1:02d}"),
            (card_id, "tag", tag),
            (card_id, "lesson", lesson),
        ]
        hard = (card_id % 12) / 12
        state_rows.append(
            (
                1,
                card_id,
                rng.randint(0, 8),
                int(2500 - 1200 * hard * rng.random()),
                rng.randint(1, 60),
                today + timedelta(days=rng.randint(-5, 40)),
                rng.randint(0, 3),
                10,
                now,
                0,
                None,
                int(rng.random() < 0.01),
            )
        )
    con.executemany(
        "INSERT INTO cards (id, pack_id, key, kind, title, prompt, answer, position, tags,"
        " lessons, status, key_numbers, tip, choices, explanation, related, source_line,"
        " content_hash, retired) VALUES (?,?,?,?,?,?,?,?,?,?, NULL, '[]', '', '[]', '', '[]',"
        " 0, '', 0)",
        card_rows,
    )
    con.executemany("INSERT INTO card_topics VALUES (?,?,?)", topic_rows)
    con.executemany(
        "INSERT INTO card_states (profile_id, card_id, repetitions, easiness_milli,"
        " interval_days, due_day, lapses, reviews, last_review_at, suspended, buried_until,"
        " leech) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        state_rows,
    )
    batch = []
    for i in range(reviews):
        card_id = rng.randint(1, cards)
        day = today - timedelta(days=rng.randint(0, days - 1))
        hard = (card_id % 12) / 12
        quality = rng.choice([1, 2]) if rng.random() < 0.1 + 0.3 * hard else rng.choice([3, 4, 5])
        mistake = rng.choice(MISTAKES) if quality < 3 and rng.random() < 0.3 else None
        batch.append(
            (
                1,
                card_id,
                datetime(day.year, day.month, day.day, 9) + timedelta(seconds=i % 3600),
                day,
                quality,
                rng.uniform(5, 90),
                "self",
                int(rng.random() < 0.9),
                None,
                None,
                None,
                None,
                None,
                None,
                mistake,
                None,
            )
        )
        if len(batch) == 50_000:
            _insert_reviews(con, batch)
            batch = []
    _insert_reviews(con, batch)
    con.commit()
    con.close()
    with database.engine.begin() as connection:
        rollups.rebuild(connection_sql(connection))
        rollups.create_triggers(connection)
    database.close()


def _insert_reviews(con: sqlite3.Connection, rows: list[tuple]) -> None:
    con.executemany(
        "INSERT INTO review_log (profile_id, card_id, reviewed_at, study_day, quality, seconds,"
        " graded_by, moved_schedule, typed_answer, template_id, seed, params, expected,"
        " diagnosis, mistake, prev_state) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--reviews", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--today", type=date.fromisoformat, default=date(2026, 11, 29))
    args = parser.parse_args()
    started = time.perf_counter()
    build(args.path, args.cards, args.reviews, args.days, args.today)
    print(f"built {args.path} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
