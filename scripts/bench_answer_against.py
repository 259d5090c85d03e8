"""The answer path of this checkout against another's, alternating in one run.

    .venv/bin/python scripts/bench_answer_against.py CHECKOUT [--rounds 6] [--synchronous NORMAL]
                                                    [--cards 10000] [--answers 300]

Each round runs scripts/bench_vs_anki.py's kvdrill worker (``DrillSession.grade`` +
``current`` on a fresh collection, in a new process) once from this checkout and once from
CHECKOUT (``git worktree add /tmp/old COMMIT``; its own scripts, this interpreter), the order
swapped every round; it prints each side's median per round, the median of the medians and
their ratio (issue 22: the one path within 10 % of 454dd06).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_table import importable, load, print_header, print_row

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = 1.10  # issue 22: no row more than 10 % worse


def worker(checkout: Path, env: dict[str, str], level: str, cards: int, answers: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-answer-against-") as folder:
        done = subprocess.run(
            [sys.executable, str(checkout / "scripts" / "bench_vs_anki.py"), "--worker",
             "answer", folder, str(cards), str(answers), level],
            env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="the other kvdrill checkout")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--synchronous", choices=("NORMAL", "FULL"), default="NORMAL")
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--answers", type=int, default=300)
    args = parser.parse_args()
    medians: dict[str, list[float]] = {"this": [], "other": []}
    with tempfile.TemporaryDirectory() as links:
        sides = {"this": (ROOT, dict(os.environ)), "other": (args.checkout, importable(args.checkout, Path(links)))}  # fmt: skip
        for number in range(args.rounds):
            for side in ("this", "other") if number % 2 else ("other", "this"):
                checkout, env = sides[side]
                found = worker(checkout, env, args.synchronous, args.cards, args.answers)
                medians[side].append(statistics.median(found["timings_ms"]))
            print(f"  round {number + 1}: this {medians['this'][-1]:.3f} ms, "
                  f"{args.checkout} {medians['other'][-1]:.3f} ms, "
                  f"{medians['this'][-1] / medians['other'][-1]:.3f}x; {load()}", flush=True)  # fmt: skip
    mine, theirs = statistics.median(medians["this"]), statistics.median(medians["other"])
    print(f"\n{load()}")
    print_header()
    print_row(
        f"answer -> next card at synchronous={args.synchronous}, median, vs {args.checkout}",
        f"{mine:.3f} ms", f"{theirs:.3f} ms", mine / theirs, f"<= {ALLOWED}x",
        mine / theirs <= ALLOWED,
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
