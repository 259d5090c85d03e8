"""Where the suite's CPU goes: per test, per file and per fixture set-up, children included.

Runs pytest with tests/cpu_profile.py switched on (``--cpu-profile``) and lists the long poles:
the top tests, files and fixtures by CPU seconds (this process's own plus the child processes
it waited for: ``kvdrill`` subprocesses, mypy, chromedriver, pg_ctl), and each worker's wall and
CPU, so an uneven split between the xdist workers shows. CPU, not wall: on a shared machine
wall times lie. A PostgreSQL server's own backends are not a child the tests wait for; their
CPU is left out (the report says so).

    .venv/bin/python scripts/suite_profile.py [--top 40] [--out DIR] [-- PYTEST ARGS]
    .venv/bin/python scripts/suite_profile.py --report DIR   # list an earlier run again
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_rows(directory: Path) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {}
    for path in sorted(directory.glob("*.jsonl")):
        rows[path.stem] = [json.loads(line) for line in path.read_text().splitlines() if line]
    return rows


def _table(title: str, pairs: list[tuple[str, float, str]], top: int) -> None:
    print(f"\n{title}")
    for name, seconds, extra in pairs[:top]:
        print(f"  {seconds:8.2f}  {name}{'  ' + extra if extra else ''}")


def report(directory: Path, top: int) -> None:
    by_worker = read_rows(directory)
    tests = [row for rows in by_worker.values() for row in rows if row["kind"] == "test"]
    fixtures = [row for rows in by_worker.values() for row in rows if row["kind"] == "fixture"]
    total = sum(row["cpu"] for row in tests)
    print(f"{len(tests)} tests, {total:.1f} s CPU in tests (children included)")
    for worker, rows in by_worker.items():
        ran = [row for row in rows if row["kind"] == "test"]
        closing = [row for row in rows if row["kind"] == "worker"]
        cpu = sum(row["cpu"] for row in ran)
        if closing:
            end = closing[-1]
            last = max((row["ended"] for row in ran), default=end["start"]) - end["start"]
            print(
                f"  {worker}: {len(ran)} tests, {cpu:.1f} s CPU in tests, "
                f"{end['cpu']:.1f} s CPU in all, wall {end['wall']:.1f} s "
                f"(last test ended at {last:.1f} s), load at the end {end['load'][0]:.1f}"
            )
        else:
            print(f"  {worker}: {len(ran)} tests, {cpu:.1f} s CPU (did not finish)")

    ranked = sorted(tests, key=lambda row: -row["cpu"])
    _table(
        f"top {top} tests by CPU s (set-up / call / teardown)",
        [
            (
                row["id"],
                row["cpu"],
                f"({row.get('setup', 0):.1f} / {row.get('call', 0):.1f} / "
                f"{row.get('teardown', 0):.1f})",
            )
            for row in ranked
        ],
        top,
    )

    per_file: dict[str, list[float]] = defaultdict(list)
    for row in tests:
        per_file[row["id"].split("::")[0]].append(row["cpu"])
    _table(
        f"top {top} files by CPU s",
        sorted(
            ((name, sum(cpus), f"{len(cpus)} tests") for name, cpus in per_file.items()),
            key=lambda pair: -pair[1],
        ),
        top,
    )

    per_fixture: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in fixtures:
        per_fixture[(row["name"], row["scope"])].append(row["self"])
    _table(
        f"top {top} fixtures by their own set-up CPU s (fixtures they use left out)",
        sorted(
            (
                (f"{name} ({scope})", sum(cpus), f"{len(cpus)} set-ups, max {max(cpus):.2f}")
                for (name, scope), cpus in per_fixture.items()
            ),
            key=lambda pair: -pair[1],
        ),
        top,
    )
    print(
        "\nLeft out: the CPU of processes no test waits for (a PostgreSQL server's backends, "
        "a daemon), and pytest's collection."
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=Path, help="keep the rows here (default: a temp dir)")
    parser.add_argument("--report", type=Path, help="list the rows of an earlier run; run none")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed on to pytest")
    options = parser.parse_args()
    if options.report:
        report(options.report, options.top)
        return 0
    out = options.out or Path(tempfile.mkdtemp(prefix="kvdrill-suite-profile-"))
    command = [sys.executable, "-m", "pytest", f"--cpu-profile={out}", *options.pytest_args]
    started = time.monotonic()
    completed = subprocess.run(command, cwd=ROOT)
    print(f"\npytest exited {completed.returncode} after {time.monotonic() - started:.1f} s wall")
    print(f"rows in {out}")
    report(out, options.top)
    return completed.returncode


if __name__ == "__main__":
    raise SystemExit(main())
