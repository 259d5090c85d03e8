"""Speed of the formula engine and of ``kvdrill calc``.

Prints: the wall time of ``kvdrill calc`` as a fresh process (median of N runs), the import
time of engine.formulas (sympy), formula evaluations per second through ``evaluate`` (compiled
once with lambdify and cached), ``inputs_from`` calls per second, and ``solve_for`` calls per
second once each inverse is cached.

    .venv/bin/python scripts/bench_calc.py [--runs N] [--seconds S]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CALC_ARGV = [
    ["kv_bytes_per_token", "--model", "llama-3.1-8b", "--unit", "KiB"],
    ["max_concurrency", "--model", "llama-3.1-8b", "--set", "pool=54.8GiB", "--explain"],
]


def wall_time_of_calc(argv: list[str], runs: int) -> float:
    command = [sys.executable, "-m", "app", "calc", *argv]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rate(call, seconds: float) -> float:
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(100):
            call()
        count += 100
    return count / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="process runs per calc command")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per in-process rate")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))

    for argv in CALC_ARGV:
        median = wall_time_of_calc(argv, args.runs)
        print(f"kvdrill calc {' '.join(argv)}: median {median * 1e3:.0f} ms of {args.runs} runs")

    start = time.perf_counter()
    from kvdrill.engine import formulas

    print(
        f"import kvdrill.engine.capacity.formulas (sympy): {(time.perf_counter() - start) * 1e3:.0f} ms"
    )
    inputs = formulas.inputs_from(
        "llama-3.1-8b",
        "h100-sxm",
        overrides={"seq_tokens": 4096, "request_tokens": 1800, "new_gpu_util": 0.95},
    )
    names = [n for n, f in formulas.FORMULAS.items() if set(f.symbols) <= set(inputs)]
    start = time.perf_counter()
    for name in names:
        formulas.evaluate(name, inputs)
    print(
        f"first evaluation of {len(names)} formulas (lambdify): {(time.perf_counter() - start) * 1e3:.0f} ms"
    )

    def evaluate_all() -> None:
        for name in names:
            formulas.evaluate(name, inputs)

    per_second = rate(evaluate_all, args.seconds) * len(names)
    print(f"formula evaluations: {per_second:,.0f}/s")
    print(
        f"inputs_from (catalog -> every derived symbol): {rate(lambda: formulas.inputs_from('llama-3.1-70b', 'h100-sxm', tp=2), args.seconds):,.0f}/s"
    )

    known = dict(inputs)
    known["max_concurrency"] = 10
    start = time.perf_counter()
    formulas.solve_for("max_concurrency", "max_model_len", known)
    print(f"first solve_for (sympy.solve + lambdify): {(time.perf_counter() - start) * 1e3:.0f} ms")
    solves = rate(
        lambda: formulas.solve_for("max_concurrency", "max_model_len", known), args.seconds
    )
    print(f"solve_for once cached: {solves:,.0f}/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
