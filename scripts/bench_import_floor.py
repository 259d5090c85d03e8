"""The floor under the import row: kvdrill's own SQL for 10,000 cards from bare ``sqlite3``.

    .venv/bin/python scripts/bench_import_floor.py [--rounds 5]

The import row of scripts/bench_vs_anki.py times ``kvdrill import`` of five 2,000-card packs
in a new process on a fresh database. This script records every statement that import sends
to SQLite (store/sql.py's ``SqliteSql``: SQL text and bound rows, in order, with the
transactions around them), then replays the recording in a new Python process that
imports nothing but ``sqlite3`` and ``marshal``: a fresh file made with the same schema script
and pragmas (WAL, ``synchronous=FULL``), the same statements with the rows already built, the
same commits. No parsing, no Python per card. ``kvdrill import`` and the replay alternate
(A B) for ``--rounds`` rounds, each a new process, beside ``python -c pass``.

What the replay's process takes is what no Python implementation of this import can go below
on this machine with this schema; the rest of kvdrill's time is reading and parsing the packs
and building the rows. The issue's target is a third of Anki's time for the whole command.
"""

from __future__ import annotations

import argparse
import json
import marshal
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_FILE = ROOT / "store" / "migrations" / "schema_sqlite.sql"

REPLAY = r"""
import marshal, sqlite3, sys, time, json
started = time.perf_counter()
recording_path, database, schema_path = sys.argv[1:4]
with open(recording_path, "rb") as handle:
    recording = marshal.load(handle)
loaded = time.perf_counter()
connection = sqlite3.connect(database, isolation_level=None)
for pragma in ("journal_mode=WAL", "foreign_keys=ON", "busy_timeout=5000", "synchronous=FULL"):
    connection.execute("PRAGMA " + pragma)
with open(schema_path, encoding="utf-8") as handle:
    connection.executescript(handle.read())
schema = time.perf_counter()
each = {}
for kind, sql, params in recording:
    before = time.perf_counter()
    if kind in ("rows", "first"):
        connection.execute(sql, params).fetchall()
    elif kind == "run":
        connection.execute(sql, params)
    else:
        connection.executemany(sql, params)
    name = " ".join(sql.split()[:4])
    each[name] = each.get(name, 0.0) + time.perf_counter() - before
connection.close()
done = time.perf_counter()
print(json.dumps({"load": loaded - started, "schema": schema - loaded, "statements": done - schema,
                  "each": each}))
"""


def record(files: list[Path], recording: Path, data: Path) -> int:
    """Run ``kvdrill import`` in this process and write every statement it sends to SQLite."""
    from kvdrill.app.cli import main
    from kvdrill.store import sql as store_sql

    sent: list[tuple[str, str, object]] = []
    executor = store_sql.SqliteSql

    def recorded(kind: str, method):
        def call(self, sql, params=None):
            sent.append((kind, sql, params if params is not None else {}))
            return method(self, sql, params) if params is not None else method(self, sql)

        return call

    for kind in ("rows", "first", "run", "many"):
        setattr(executor, kind, recorded(kind, getattr(executor, kind)))
    insert = executor.insert

    def recorded_insert(self, table, columns, rows):
        if rows:
            marks = ", ".join("?" * len(columns))
            sent.append(
                ("many", f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
            )
        return insert(self, table, columns, rows)

    executor.insert = recorded_insert
    os.environ["KVDRILL_DATA_DIR"] = str(data)
    os.environ.pop("KVDRILL_DB", None)
    code = main(["import", *map(str, files)])
    # executemany takes any iterable: keep lists only, as marshal writes them.
    rows = [
        (kind, sql, list(params) if kind.startswith("many") else params)
        for kind, sql, params in sent
    ]
    recording.write_bytes(marshal.dumps(rows))
    return code


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--record", nargs=3, metavar=("FOLDER", "RECORDING", "DATA"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.record:
        folder, recording, data = map(Path, args.record)
        return record(sorted(folder.glob("*.md")), recording, data)

    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_vs_anki import write_packs

    kvdrill = Path(sys.executable).with_name("kvdrill")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        packs = work / "packs"
        packs.mkdir()
        markdown, _ = write_packs(packs)
        for path in packs.glob("*.tsv"):
            path.unlink()
        recording = work / "recording.marshal"
        me = [sys.executable, str(Path(__file__).resolve())]
        subprocess.run(
            [*me, "--record", str(packs), str(recording), str(work / "recorded")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        sent = marshal.loads(recording.read_bytes())
        rows = sum(len(params) if kind.startswith("many") else 1 for kind, _, params in sent)
        kv, floor, bare, parts = [], [], [], []
        for number in range(args.rounds):
            env = dict(os.environ, KVDRILL_DATA_DIR=str(work / f"kvdrill-{number}"))
            env.pop("KVDRILL_DB", None)
            kv.append(timed([str(kvdrill), "import", *map(str, markdown)], env)[0])
            seconds, out = timed(
                [
                    sys.executable,
                    "-c",
                    REPLAY,
                    str(recording),
                    str(work / f"floor-{number}.db"),
                    str(SCHEMA_FILE),
                ]
            )
            floor.append(seconds)
            parts.append(json.loads(out))
            bare.append(timed([sys.executable, "-c", "pass"])[0])
    median = statistics.median
    print(f"recorded: {len(sent)} calls to SQLite, {rows:,} statements executed in all")
    print(
        f"kvdrill import, 10,000 cards, new process:   median {median(kv):.3f} s  ({', '.join(f'{t:.3f}' for t in kv)})"
    )
    print(
        f"bare sqlite3 replay of its SQL, new process: median {median(floor):.3f} s  ({', '.join(f'{t:.3f}' for t in floor)})"
    )
    for name in ("load", "schema", "statements"):
        print(f"  of which {name:<10} median {median(p[name] for p in parts) * 1000:6.1f} ms")
    costly = sorted(parts[0]["each"], key=lambda name: -median(p["each"][name] for p in parts))
    for name in costly[:6]:
        share = median(p["each"][name] for p in parts) * 1000
        print(f"    {share:6.1f} ms  {name[:70]}")
    print(f"python -c pass:                              median {median(bare):.3f} s")
    # Loading the recording stands in for building the rows, which is kvdrill's own work.
    bottom = median(seconds - part["load"] for seconds, part in zip(floor, parts, strict=True))
    print(
        f"floor (the replay's process less loading the recording): median {bottom:.3f} s, "
        f"{bottom / median(kv):.2f} of kvdrill's time; load average {os.getloadavg()[0]:.2f} "
        f"on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
