"""Cost of the quick check kvdrill runs when it opens a database (store/guard.py).

    .venv/bin/python scripts/bench_quick_check.py PATH [--runs 5]

PATH is a kvdrill database, such as one built by scripts/make_synthetic_db.py (100,000 cards
and a million reviews: about 175 MiB). Prints the median time of ``PRAGMA quick_check`` and
of ``PRAGMA integrity_check`` (what ``kvdrill doctor`` runs), and the cost per MiB, which sets
``QUICK_CHECK_MAX_BYTES``.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def timed(path: Path, pragma: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            started = time.perf_counter()
            connection.execute(pragma).fetchall()
            times.append(time.perf_counter() - started)
        finally:
            connection.close()
    return statistics.median(times)


def main() -> int:
    from kvdrill.store.guard import QUICK_CHECK_MAX_BYTES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    mib = args.path.stat().st_size / 2**20
    quick = timed(args.path, "PRAGMA quick_check", args.runs)
    full = timed(args.path, "PRAGMA integrity_check", max(1, args.runs // 2))
    per_mib = quick * 1000 / mib
    print(f"database: {mib:.1f} MiB")
    print(f"quick_check:     {quick * 1000:8.0f} ms  ({per_mib:.2f} ms per MiB)")
    print(f"integrity_check: {full * 1000:8.0f} ms")
    cap = QUICK_CHECK_MAX_BYTES / 2**20
    print(f"checked on open up to {cap:.0f} MiB: at most about {cap * per_mib:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
