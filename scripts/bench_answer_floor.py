"""The floor under kvdrill's answer path: the same SQL with no kvdrill code around it.

    .venv/bin/python scripts/bench_answer_floor.py [--answers 1000] [--rounds 3]

Builds the 10,000-card collection of scripts/bench_answer.py (6,000 cards in review), then,
from bare ``sqlite3`` on the same file (WAL, as kvdrill opens it), times per answer what
kvdrill's SQLite answer path asks of SQLite: BEGIN IMMEDIATE, read the card's state, write
the new one, insert the review-log row, COMMIT, read the next card. Each round runs at
``synchronous=FULL`` (kvdrill's and Anki's setting) and NORMAL, with the stats rollup triggers
in place (as kvdrill runs) and dropped (what they cost). Whatever kvdrill takes above these
figures is its own code; at FULL the one fsync per answer is most of the floor, on both sides
of scripts/bench_vs_anki.py.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_answer import build_collection  # noqa: E402

from kvdrill.store import rollups  # noqa: E402
from kvdrill.store.db import open_database  # noqa: E402

STATE = "repetitions, easiness_milli, interval_days, due_day, lapses, reviews"


def answers(path: Path, synchronous: str, count: int) -> tuple[float, float]:
    """Median wall ms per answer and CPU ms per answer over ``count`` answers (after 50)."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute(f"PRAGMA synchronous={synchronous}")
    card_ids = [row[0] for row in connection.execute("SELECT card_id FROM card_states")]
    columns = [row[1] for row in connection.execute("PRAGMA table_info(review_log)")]
    columns.remove("id")
    insert = (
        f"INSERT INTO review_log ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    )
    row = dict.fromkeys(columns)

    def answer(card_id: int) -> None:
        connection.execute("BEGIN IMMEDIATE")
        state = connection.execute(
            f"SELECT {STATE} FROM card_states WHERE profile_id = 1 AND card_id = ?", (card_id,)
        ).fetchone()
        connection.execute(
            "UPDATE card_states SET repetitions = ?, interval_days = ?, due_day = ?, "
            "reviews = ? WHERE profile_id = 1 AND card_id = ?",
            (state[0] + 1, state[2] + 1, "2026-04-01", state[5] + 1, card_id),
        )
        row.update(
            profile_id=1, card_id=card_id, reviewed_at="2026-03-10 09:00:00.000000",
            study_day="2026-03-10", quality=4, seconds=5.0, graded_by="self",
            moved_schedule=1, prev_state='{"repetitions": 1}', practice=0,
        )  # fmt: skip
        connection.execute(insert, list(row.values()))
        connection.execute("COMMIT")
        connection.execute("SELECT * FROM cards WHERE id = ?", (card_id + 1,)).fetchone()

    for card_id in card_ids[:50]:
        answer(card_id)
    timings = []
    cpu = time.process_time()
    for card_id in card_ids[50 : 50 + count]:
        started = time.perf_counter()
        answer(card_id)
        timings.append((time.perf_counter() - started) * 1000)
    cpu_ms = (time.process_time() - cpu) * 1000 / len(timings)
    connection.close()
    return statistics.median(timings), cpu_ms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        built = Path(folder) / "built.db"
        database = open_database(f"sqlite:///{built}")
        build_collection(database, 10_000, reviewed=6_000)
        database.close()
        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.rounds):
            for triggers in ("with triggers", "without triggers"):
                for synchronous in ("FULL", "NORMAL"):
                    path = Path(folder) / "round.db"
                    shutil.copyfile(built, path)
                    if triggers == "without triggers":
                        copy = open_database(f"sqlite:///{path}")
                        with copy.engine.begin() as connection:
                            rollups.drop_triggers(connection)
                        copy.close()
                    key = (synchronous, triggers)
                    results.setdefault(key, []).append(answers(path, synchronous, args.answers))
                    for suffix in ("", "-wal", "-shm"):
                        Path(f"{path}{suffix}").unlink(missing_ok=True)
    print(
        f"bare sqlite3, kvdrill's answer statements, {args.answers} answers, {args.rounds} rounds"
    )
    for (synchronous, triggers), runs in results.items():
        wall = statistics.median(run[0] for run in runs)
        cpu = statistics.median(run[1] for run in runs)
        print(f"  synchronous={synchronous:<6} {triggers:<17} median {wall:.3f} ms/answer  "
              f"CPU {cpu:.3f} ms/answer")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
