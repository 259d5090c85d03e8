"""Measure the database layer: opening an up-to-date database, importing the bundled decks,
and importing (then re-importing) a 2,000-card pack.

    .venv/bin/python scripts/bench_import.py [--repeat N]

Everything happens in a temporary directory; the user's database is never touched.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvdrill.app.services.importing import import_bundled, load_packs, store_packs  # noqa: E402
from kvdrill.store.db import open_database  # noqa: E402


def timed(action: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return (time.perf_counter() - start) * 1000, result


def describe(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):7.1f} ms   p95 {p95:7.1f} ms   (n={len(ordered)})"


def big_pack(path: Path, cards: int) -> Path:
    parts = ["---\npack: bench-big\ntitle: Benchmark pack\nversion: 1\ntags: [bench]\n---\n\n"]
    for index in range(cards):
        parts.append(
            f"## Card {index} {{#card-{index}}} #t{index % 7}\n\nLessons: {index % 50 + 1}\n\n"
            f"### Prompt\n\nHow many bytes does token {index} add?\n\n"
            f"### Answer\n\n2 x layers x KV heads x head dim x bytes, here {index * 2} B.\n\n"
            "### Key numbers\n\n- 128 KiB per token for Llama 3.1 8B\n\n"
        )
    path.write_text("".join(parts), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="samples for the open timing")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        url = f"sqlite:///{work / 'bench.db'}"

        first_ms, database = timed(lambda: open_database(url))
        database.close()
        print(f"open_database, new file (schema script):      {first_ms:7.1f} ms")
        samples = []
        for _ in range(args.repeat):
            ms, database = timed(lambda: open_database(url))
            samples.append(ms)
            database.close()
        print(f"open_database, up to date:                    {describe(samples)}")

        database = open_database(url)
        ms, plan = timed(lambda: import_bundled(database, datetime.now()))
        cards = plan.count("added") if plan else 0
        print(f"import_bundled, first start ({cards} cards):        {ms:7.1f} ms")
        samples = [
            timed(lambda: import_bundled(database, datetime.now()))[0] for _ in range(args.repeat)
        ]
        print(f"import_bundled, nothing changed:              {describe(samples)}")

        pack_file = big_pack(work / "big.md", 2000)
        parse_ms, packs = timed(lambda: load_packs([pack_file]))

        def store_big_pack():
            return store_packs(database, packs, datetime.now())

        first_ms, _ = timed(store_big_pack)
        again_ms, _ = timed(store_big_pack)
        print(f"2,000-card pack: parse + checks               {parse_ms:7.1f} ms")
        print(f"2,000-card pack: first import                 {first_ms:7.1f} ms")
        print(f"2,000-card pack: re-import, nothing changed   {again_ms:7.1f} ms")
        database.close()

        env = dict(os.environ, KVDRILL_DATA_DIR=str(work / "cli"))
        env.pop("KVDRILL_DB", None)
        command = [sys.executable, "-m", "app", "import", str(pack_file)]
        ms, _ = timed(lambda: subprocess.run(command, env=env, cwd=ROOT, check=True, stdout=-3))
        print(f"kvdrill import big.md (new process, new db)   {ms:7.1f} ms")


if __name__ == "__main__":
    main()
