"""Benchmark the stats on a synthetic collection (100,000 cards, 1,000,000 reviews).

    python scripts/bench_stats.py [--db PATH] [--runs 5]

Builds the database with scripts/make_synthetic_db.py if PATH does not exist, then reports the
median and worst wall time of `kvdrill stats --json` (a fresh process each run, alternated with
a fresh process that builds the same report through the store's SQLAlchemy session, the path
the command took before it read SQLite with sqlite3: A B A B, with the ratio and the load
average), of building the report in-process, and of the stats screen from mount to the report
on screen. Both processes must print the same report. CPU time of each process is printed
too: it holds when the machine is busy, where wall time does not. The processes run with
Python's bytecode cache, as an installed kvdrill does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
NOW = "2026-11-29T12:00:00"
TARGET_SECONDS = 0.5  # issue 10: stats --json in a new process


def timed(fn, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return times


def report(name: str, times: list[float]) -> None:
    print(
        f"{name}: median {statistics.median(times) * 1000:.0f} ms, worst {max(times) * 1000:.0f} ms"
    )


async def screen_time(url: str) -> float:
    from textual.app import App

    from kvdrill.app.services.backend import Services
    from kvdrill.app.tui.screens.stats import StatsScreen

    class Harness(App):
        def on_mount(self) -> None:
            self.backend = Services(url, "default", bundled=False)
            self.started = time.perf_counter()
            self.push_screen(StatsScreen())

    app = Harness()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        while getattr(screen, "report", None) is None:
            await pilot.pause(0.005)
        await pilot.pause()
        return time.perf_counter() - app.started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/kvdrill-synthetic.db"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not args.db.exists():
        subprocess.run(
            [sys.executable, str(ROOT / "scripts/make_synthetic_db.py"), str(args.db)], check=True
        )
    url = f"sqlite:///{args.db}"
    # With the bytecode cache, as an installed kvdrill runs (the warm-up below writes it).
    env = {**os.environ, "KVDRILL_NOW": NOW}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["KVDRILL_NOW"] = NOW
    command = [sys.executable, "-m", "app", "--db", url, "stats", "--json"]
    through_store = [
        sys.executable,
        "-c",
        "from kvdrill.app.services.backend import Services; "
        f"print(Services({url!r}, 'default', bundled=False).stats_report().model_dump_json(indent=2))",
    ]
    fast: list[float] = []
    store: list[float] = []
    cpu: dict[int, list[float]] = {id(fast): [], id(store): []}
    outputs: dict[int, set[str]] = {id(fast): set(), id(store): set()}
    for argv in (command, through_store):
        subprocess.run(argv, env=env, check=True, capture_output=True)  # warm-up, not counted
    for _ in range(args.runs):
        for times, argv in ((fast, command), (store, through_store)):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(argv, env=env, check=True, capture_output=True, text=True)
            times.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[id(times)].append(
                after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            )
            outputs[id(times)].add(done.stdout)
    if outputs[id(fast)] != outputs[id(store)]:
        raise SystemExit("stats --json and the store path printed different reports")
    for name, times in (
        ("kvdrill stats --json (new process)", fast),
        ("same report through the SQLAlchemy store (new process)", store),
    ):
        report(name, times)
        print(
            f"  CPU time of the process: median {statistics.median(cpu[id(times)]) * 1000:.0f} ms"
        )
    median = statistics.median(fast)
    print(
        f"ratio stats --json / store path: {median / statistics.median(store):.2f}"
        f"; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    verdict = "ok" if median <= TARGET_SECONDS else "over target"
    print(f"stats --json: median {median:.3f} s (target {TARGET_SECONDS} s: {verdict})")

    from kvdrill.app.services.backend import Services

    services = Services(url, "default", bundled=False)
    report("report built in-process", timed(services.stats_report, args.runs))
    report(
        "stats screen, mount to report shown",
        [asyncio.run(screen_time(url)) for _ in range(args.runs)],
    )


if __name__ == "__main__":
    main()
