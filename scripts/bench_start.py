"""Time from launching ``kvdrill drill`` to the first card on screen: median of 5 cold runs.

Method: each run is a fresh process, ``kvdrill drill`` (through scripts/first_card_probe.py), started inside a pseudo-terminal
(``script -qfc``) so Textual runs its real terminal driver. ``KVDRILL_FIRST_CARD_FILE`` makes
the probe write ``time.time()`` (and its CPU time) to that file right after the first card has
been painted (the refresh that follows mounting it) and exit. The figure is that time minus the time just before
the process was spawned. The database is a fresh SQLite file in a temp dir with the bundled
decks imported by a warm-up run that is not counted, so every timed run starts a real session.

The anchor is a bare Textual app painting one line (scripts/bare_textual_app.py), timed the
same way in the same run, alternated with kvdrill (A B A B): the ratio kvdrill/bare is the
figure that holds on a busy machine (target at most 1.4). Both run with Python's bytecode cache
(PYTHONDONTWRITEBYTECODE is dropped, and a warm-up run of each writes it), as an installed
kvdrill does: compiling the sources on every start is not what a learner waits for.

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
TARGET_RATIO = 1.4
DRILL = [sys.executable, str(ROOT / "scripts" / "first_card_probe.py"), "drill"]
BARE_APP = [sys.executable, str(ROOT / "scripts" / "bare_textual_app.py")]


def one_run(env: dict[str, str], stamp: Path, argv: list[str] = DRILL) -> tuple[float, float, str]:
    stamp.unlink(missing_ok=True)
    command = shlex.join(argv)
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
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if args.no_helper:
            env["KVDRILL_FAST_START"] = "0"
        warm_up, _, _ = one_run(env, stamp)  # creates the database, imports the bundled decks
        one_run(env, stamp, BARE_APP)  # its bytecode cache, as kvdrill's warm-up wrote kvdrill's
        runs, bare = [], []
        for _ in range(args.runs):
            runs.append(one_run(env, stamp))
            bare.append(one_run(env, stamp, BARE_APP))
    times = [wall for wall, _, _ in runs]
    bare_times = [wall for wall, _, _ in bare]
    median = statistics.median(times)
    ratio = median / statistics.median(bare_times)
    cpu_ratio = statistics.median(cpu for _, cpu, _ in runs) / statistics.median(
        cpu for _, cpu, _ in bare
    )
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
    print("bare Textual app, one line (wall s): " + ", ".join(f"{t:.3f}" for t in bare_times))
    print(
        "CPU of the bare app at that moment (s): " + ", ".join(f"{cpu:.3f}" for _, cpu, _ in bare)
    )
    print(f"CPU ratio kvdrill / bare app: {cpu_ratio:.2f}")
    print(
        f"ratio kvdrill / bare app: {ratio:.2f} (target at most {TARGET_RATIO}: "
        f"{'ok' if ratio <= TARGET_RATIO else 'over target'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
