"""Time from launching ``kvdrill drill`` to the first card on screen: median of 5 cold runs.

Method: each run is a fresh process, ``python -m app drill``, started inside a pseudo-terminal
(``script -qfc``) so Textual runs its real terminal driver. ``KVDRILL_FIRST_CARD_FILE`` makes
the app write ``time.time()`` (and its CPU time) to that file right after the first card has
been painted (the refresh that follows mounting it) and exit. The figure is that time minus the time just before
the process was spawned. The database is a fresh SQLite file in a temp dir with the bundled
decks imported by a warm-up run that is not counted, so every timed run starts a real session.

    .venv/bin/python scripts/bench_start.py [--runs 5] [--no-helper]
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 0.8


def one_run(env: dict[str, str], stamp: Path) -> tuple[float, float, str]:
    stamp.unlink(missing_ok=True)
    command = shlex.join([sys.executable, "-m", "app", "drill"])
    started = time.time()
    subprocess.run(
        ["script", "-qfec", command, "/dev/null"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    if not stamp.exists():
        raise SystemExit("the app exited without painting a card (is the database empty?)")
    wall, cpu, source = stamp.read_text().split()
    return float(wall) - started, float(cpu), source


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--no-helper",
        action="store_true",
        help="without the fast-start helper process (KVDRILL_FAST_START=0), for comparison",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stamp = Path(tmp) / "first-card"
        env = dict(os.environ)
        env.update(
            KVDRILL_DATA_DIR=str(Path(tmp) / "data"),
            KVDRILL_FIRST_CARD_FILE=str(stamp),
            TERM=env.get("TERM", "xterm-256color"),
            COLUMNS="80",
            LINES="24",
        )
        env.pop("KVDRILL_DB", None)
        if args.no_helper:
            env["KVDRILL_FAST_START"] = "0"
        warm_up, _, _ = one_run(env, stamp)  # creates the database, imports the bundled decks
        runs = [one_run(env, stamp) for _ in range(args.runs)]
    times = [wall for wall, _, _ in runs]
    median = statistics.median(times)
    print(f"warm-up (creates the database): {warm_up:.3f} s (not counted)")
    print("runs (wall s): " + ", ".join(f"{t:.3f}" for t in times))
    print("card painted from: " + ", ".join(source for _, _, source in runs))
    print(
        "CPU of the UI process at that moment (s): "
        + ", ".join(f"{cpu:.3f}" for _, cpu, _ in runs)
        + f"; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    verdict = "ok" if median <= TARGET_SECONDS else "over target"
    print(
        f"first card on screen: median {median:.3f} s over {args.runs} runs "
        f"(target {TARGET_SECONDS} s: {verdict})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
