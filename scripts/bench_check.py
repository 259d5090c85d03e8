"""Measure answer checking: typed answers read, checked and diagnosed per second.

    .venv/bin/python scripts/bench_check.py [--answers N] [--repeat R]

The mix is what a drill sees: right answers in the asked unit and in others, unit traps,
diagnosed mistakes, undiagnosed wrong answers and unreadable text. The first check (which
builds the unit registry) is timed on its own. The generator's share of the 2,000/s target
(generate + check) is measured by the generator's own benchmark.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvdrill.engine.problems.types import Variant  # noqa: E402

GQA = {"formula": "kv_bytes_per_token", "heads": 32, "kv_heads": 8, "tp": 1, "dtype_bytes": 2}

CASES: list[tuple[Variant, list[str]]] = [
    (
        Variant("bench/kv", 1, "", {}, 131_072, "B", context=GQA),
        ["128 KiB", "131,072", "128 kB", "65536", "512 KiB", "77777", "9**9**9", "1 Mb"],
    ),
    (
        Variant("bench/kv", 2, "", {}, 128, "KiB", context=GQA),
        ["128", "131.1 kB", "64 KiB", "1 MiB", "128K", "128 KB"],
    ),
    (
        Variant("bench/pool", 3, "", {}, 448_921, "tokens", context={"formula": "kv_pool_tokens"}),
        ["449k", "448,921 tokens", "900k", "1.3e5", "nan", "449k tokens"],
    ),
    (
        Variant("bench/decode", 4, "", {}, 0.01, "s", context={"formula": "decode_floor_time"}),
        ["10 ms", "0.01", "10 s", "42 ms", "10 GiB"],
    ),
    (
        Variant("bench/bw", 5, "", {}, 3.35, "TB/s"),
        ["3.35 TB/s", "3350 GB/s", "26.8 TB/s", "3.35 TiB/s"],
    ),
    (
        Variant("bench/conc", 6, "", {}, 3.43, "x", context={"formula": "max_concurrency"}),
        ["3.43x", "3.4", "6.86x", "x" * 10_000],
    ),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=20_000, help="answers per round")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (median reported)")
    args = parser.parse_args()

    start = time.perf_counter()
    from kvdrill.engine.problems.checker import check_answer

    check_answer(CASES[0][0], "128 KiB")
    first_ms = (time.perf_counter() - start) * 1000

    pairs = [(variant, typed) for variant, answers in CASES for typed in answers]
    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for i in range(args.answers):
            variant, typed = pairs[i % len(pairs)]
            check_answer(variant, typed, seconds=20.0)
        rates.append(args.answers / (time.perf_counter() - start))

    print(f"first check (imports pint, builds the registry): {first_ms:.0f} ms")
    print(
        f"answers checked per second: {statistics.median(rates):,.0f} "
        f"(median of {args.repeat} rounds of {args.answers:,}; min {min(rates):,.0f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
