"""kvdrill against Anki's own backend, side by side on one machine, in one run.

    .venv/bin/python scripts/bench_vs_anki.py [--rounds 5] [--cards 10000] [--answers 300]
                                              [--only answer|import]

The ``anki`` package from PyPI is installed on first use into its own virtual environment
(``$KVDRILL_BENCH_CACHE``, default ~/.cache/kvdrill-bench/anki-venv); it is never a kvdrill
dependency, and scripts/anki_bench_worker.py, which runs there, never imports kvdrill. Every
figure is measured in a fresh child process, kvdrill and Anki alternating (A B A B) for
``--rounds`` rounds; each row prints the median over the rounds and the ratio kvdrill / Anki.

Rows:
- answer to next card on a 10,000-card collection (60 % in review, due from 20 days overdue to
  40 days ahead): kvdrill ``DrillSession.grade`` + ``current``, Anki ``answerCard`` + ``getCard``;
  median and p95 of 300 answers. Durability is equal: both commit every answer, compared once
  with both at ``synchronous=FULL`` (the setting of both) and once with both at NORMAL (both
  switched down for the benchmark).
- import of 10,000 recall cards (5 packs of 2,000), a new process on a fresh database:
  ``kvdrill import`` against Anki's ``Collection.add_notes`` (one batch per pack) in a new
  Python process that reads the same cards from tab-separated files.
- re-import of the same 10,000 cards unchanged (``kvdrill import`` again; target 0.5 s).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_table import load, print_header, print_row

ROOT = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().parent / "anki_bench_worker.py"
CACHE = Path(os.environ.get("KVDRILL_BENCH_CACHE", Path.home() / ".cache" / "kvdrill-bench"))
PACKS, PACK_CARDS = 5, 2000
ANSWER_TARGET, IMPORT_TARGET, REIMPORT_TARGET_S = 1.0, 0.5, 0.5  # issue 27's targets


def anki_python() -> Path:
    """The benchmark's Anki interpreter, created (``pip install anki``) when missing."""
    venv = CACHE / "anki-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"installing anki into {venv} (once) ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "anki"], check=True)
    return python


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


# --- the kvdrill side, run in a child process (``--worker``) ------------------------------------


def kvdrill_answer_worker(folder: Path, cards: int, answers: int, synchronous: str) -> dict:
    sys.path.insert(0, str(ROOT / "scripts"))
    import random

    from bench_answer import NOW, build_collection

    from kvdrill.app.services.drill import DrillSession
    from kvdrill.store import db, sqlite_file

    # The benchmark's one change to kvdrill, patched from here: the synchronous level of every
    # connection it opens, to match Anki's.
    sqlite_file.SQLITE_PRAGMAS = tuple(
        f"PRAGMA synchronous={synchronous}" if pragma.startswith("PRAGMA synchronous") else pragma
        for pragma in sqlite_file.SQLITE_PRAGMAS
    )
    database = db.open_database(f"sqlite:///{folder}/answer.db")
    build_collection(database, cards, reviewed=cards * 6 // 10)
    os.sync()  # a collection at rest, as Anki's worker leaves its own: no writeback pending
    session = DrillSession.open(database, now=NOW)
    assert session.current is not None, "the benchmark session is empty"
    grades = random.Random(11)
    timings = []
    cpu = time.process_time()
    for _ in range(min(answers, session.remaining)):
        quality = grades.choice((1, 3, 4, 4, 4, 5))
        started = time.perf_counter()
        session.grade(quality, 5.0)
        _ = session.current
        timings.append((time.perf_counter() - started) * 1000)
    cpu_ms = (time.process_time() - cpu) * 1000 / max(1, len(timings))
    # Read back on the connection the answers were written on.
    level, journal = database.read(
        lambda sql: (sql.rows("PRAGMA synchronous")[0][0], sql.rows("PRAGMA journal_mode")[0][0])
    )
    database.close()
    names = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
    return {
        "timings_ms": timings,
        "cpu_ms": cpu_ms,
        "synchronous": names[level],
        "journal_mode": journal,
    }


# --- the collections ----------------------------------------------------------------------------


def write_packs(folder: Path) -> tuple[list[Path], list[Path]]:
    """The same 10,000 recall cards as kvdrill packs (.md) and as Anki's tab-separated rows."""
    markdown, tsv = [], []
    for number in range(PACKS):
        parts = [
            f"---\npack: bench-{number}\ntitle: Benchmark pack {number}\nversion: 1\n"
            "tags: [bench]\n---\n\n"
        ]
        rows = []
        for index in range(PACK_CARDS):
            prompt = f"How many bytes does token {index} of pack {number} add?"
            answer = f"2 x layers x KV heads x head dim x bytes, here {index * 2} B."
            key_number = "128 KiB per token for Llama 3.1 8B"
            parts.append(
                f"## Card {index} {{#card-{index}}} #t{index % 7}\n\n"
                f"### Prompt\n\n{prompt}\n\n### Answer\n\n{answer}\n\n"
                f"### Key numbers\n\n- {key_number}\n\n"
            )
            rows.append(f"{prompt}\t{answer}<br>{key_number}")
        markdown.append(folder / f"bench-{number}.md")
        markdown[-1].write_text("".join(parts), encoding="utf-8")
        tsv.append(folder / f"bench-{number}.tsv")
        tsv[-1].write_text("\n".join(rows) + "\n", encoding="utf-8")
    return markdown, tsv


# --- one round ----------------------------------------------------------------------------------


def run_json(command: list[str]) -> dict:
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def wall(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def children_cpu() -> float:
    """CPU seconds (user + system) of every child process waited for so far: on a loaded
    machine a child's CPU time says more than its wall time, which includes waiting its turn."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_round(anki: Path, work: Path, args, markdown, tsv) -> dict[str, object]:
    kvdrill = Path(sys.executable).with_name("kvdrill")
    me = [sys.executable, str(Path(__file__).resolve()), "--worker"]
    sizes = [str(args.cards), str(args.answers)]
    results: dict[str, object] = {}
    for name, folder, tail in (
        ()
        if args.only == "import"
        else (
            ("kvdrill_full", work / "k1", ["FULL"]),
            ("anki", work / "a1", []),
            ("kvdrill_normal", work / "k2", ["NORMAL"]),
            ("anki_normal", work / "a3", ["NORMAL"]),
        )
    ):
        folder.mkdir()
        start = [str(anki), str(WORKER)] if name.startswith("anki") else me
        results[f"answer_{name}"] = run_json([*start, "answer", str(folder), *sizes, *tail])
    if args.only == "answer":
        return results

    env = dict(os.environ, KVDRILL_DATA_DIR=str(work / "kvdrill-data"))
    env.pop("KVDRILL_DB", None)
    files = [str(path) for path in markdown]
    cpu = children_cpu()
    results["import_kvdrill"] = wall([str(kvdrill), "import", *files], env)
    results["import_kvdrill_cpu"], cpu = children_cpu() - cpu, children_cpu()
    (work / "a2").mkdir()
    started = time.perf_counter()
    anki_import = run_json([str(anki), str(WORKER), "import", str(work / "a2"), *map(str, tsv)])
    results["import_anki"] = time.perf_counter() - started
    results["import_anki_pragmas"] = anki_import
    results["import_anki_cpu"], cpu = children_cpu() - cpu, children_cpu()
    results["reimport_kvdrill"] = wall([str(kvdrill), "import", *files], env)
    results["reimport_kvdrill_cpu"] = children_cpu() - cpu
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--answers", type=int, default=300)
    parser.add_argument("--only", choices=("answer", "import"), help="run only these rows")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _, folder, cards, answers, synchronous = args.worker
        print(
            json.dumps(kvdrill_answer_worker(Path(folder), int(cards), int(answers), synchronous))
        )
        return 0

    anki = anki_python()
    version = subprocess.run(
        [str(anki), "-c", "import anki.buildinfo as b; print(b.version)"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    print(f"kvdrill (Python {sys.version.split()[0]}) against Anki {version}; "
          f"load average at start {os.getloadavg()[0]:.2f} (2-core machine)")  # fmt: skip
    rounds = []
    with tempfile.TemporaryDirectory() as folder:
        packs = Path(folder) / "packs"
        packs.mkdir()
        markdown, tsv = write_packs(packs)
        for number in range(args.rounds):
            work = Path(folder) / f"round-{number}"
            work.mkdir()
            rounds.append(one_round(anki, work, args, markdown, tsv))
            print(f"  round {number + 1}/{args.rounds} done", file=sys.stderr)
    report(rounds, args)
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    return 0


def report(rounds: list[dict], args) -> None:
    if args.only != "import":
        report_answers(rounds, args)
    if args.only != "answer":
        report_imports(rounds)
    print(f"\n{load()}")
    print_header()
    if args.only != "import":
        for level, mine, anki in (("FULL", "kvdrill_full", "anki"), ("NORMAL", "kvdrill_normal", "anki_normal")):  # fmt: skip
            kv, other = (statistics.median(statistics.median(r[f"answer_{name}"]["timings_ms"]) for r in rounds) for name in (mine, anki))  # fmt: skip
            print_row(
                f"answer -> next card at synchronous={level}, median", f"{kv:.3f} ms",
                f"Anki {other:.3f} ms", kv / other, f"<= {ANSWER_TARGET}x Anki",
                kv / other <= ANSWER_TARGET,
            )  # fmt: skip
    if args.only != "answer":
        kv, other = (statistics.median(r[name] for r in rounds) for name in ("import_kvdrill", "import_anki"))  # fmt: skip
        print_row(
            f"import {PACKS * PACK_CARDS:,} cards, new process", f"{kv:.2f} s",
            f"Anki add_notes {other:.2f} s", kv / other, f"<= {IMPORT_TARGET}x Anki",
            kv / other <= IMPORT_TARGET,
        )  # fmt: skip


def report_answers(rounds: list[dict], args) -> None:
    def answers(name: str) -> tuple[float, float, str]:
        medians = [statistics.median(r[f"answer_{name}"]["timings_ms"]) for r in rounds]
        p95s = [percentile(r[f"answer_{name}"]["timings_ms"], 0.95) for r in rounds]
        cpu = statistics.median(r[f"answer_{name}"]["cpu_ms"] for r in rounds)
        first = rounds[0][f"answer_{name}"]
        return (statistics.median(medians), statistics.median(p95s),
                f"{first['journal_mode']} + synchronous={first['synchronous']}, "
                f"CPU {cpu:.2f} ms/answer")  # fmt: skip

    kv_median, kv_p95, kv_mode = answers("kvdrill_full")
    anki_median, anki_p95, anki_mode = answers("anki")
    normal_median, normal_p95, normal_mode = answers("kvdrill_normal")
    anki_normal_median, anki_normal_p95, anki_normal_mode = answers("anki_normal")
    count = len(rounds[0]["answer_anki"]["timings_ms"])

    def verdict(ratio: float, target: float) -> str:
        return "met" if ratio <= target else "MISSED"

    print(f"\nanswer to next card, {args.cards:,} cards, {count} answers, median of "
          f"{len(rounds)} rounds")  # fmt: skip
    print(f"  kvdrill ({kv_mode}):  median {kv_median:6.2f} ms   p95 {kv_p95:6.2f} ms")
    print(f"  Anki    ({anki_mode}):  median {anki_median:6.2f} ms   p95 {anki_p95:6.2f} ms")
    ratio = kv_median / anki_median
    print(f"  ratio kvdrill/Anki: median {ratio:.2f}x   p95 {kv_p95 / anki_p95:.2f}x   "
          f"(target <= {ANSWER_TARGET}x: {verdict(ratio, ANSWER_TARGET)})")  # fmt: skip
    print("  both switched down to NORMAL (survives a killed process, not a power cut):")
    print(f"  kvdrill ({normal_mode}):  median {normal_median:6.2f} ms   p95 {normal_p95:6.2f} ms")
    print(f"  Anki    ({anki_normal_mode}):  median {anki_normal_median:6.2f} ms   "
          f"p95 {anki_normal_p95:6.2f} ms")  # fmt: skip
    ratio = normal_median / anki_normal_median
    print(f"  ratio kvdrill/Anki: median {ratio:.2f}x   p95 {normal_p95 / anki_normal_p95:.2f}x   "
          f"(target <= {ANSWER_TARGET}x: {verdict(ratio, ANSWER_TARGET)})")  # fmt: skip

    medians = {
        "answer kvdrill FULL medians": "answer_kvdrill_full",
        "answer Anki medians": "answer_anki",
        "answer kvdrill NORMAL medians": "answer_kvdrill_normal",
        "answer Anki NORMAL medians": "answer_anki_normal",
    }
    print("\nper round:")
    for label, key in medians.items():
        values = [statistics.median(r[key]["timings_ms"]) for r in rounds]
        print(f"  {label:28} " + "  ".join(f"{value:7.2f}" for value in values))


def report_imports(rounds: list[dict]) -> None:
    def verdict(ratio: float, target: float) -> str:
        return "met" if ratio <= target else "MISSED"

    kv_import = statistics.median(r["import_kvdrill"] for r in rounds)
    anki_import = statistics.median(r["import_anki"] for r in rounds)
    anki_cards = rounds[0]["import_anki_pragmas"]["cards"]
    ratio = kv_import / anki_import
    print(f"\nimport {PACKS * PACK_CARDS:,} recall cards ({PACKS} packs of {PACK_CARDS:,}), new "
          f"process, fresh database, median of {len(rounds)} rounds")  # fmt: skip
    print(f"  kvdrill `kvdrill import`:                          {kv_import:6.2f} s")
    print(f"  Anki Collection.add_notes, new process ({anki_cards} cards): {anki_import:6.2f} s")
    print(f"  ratio kvdrill/Anki: {ratio:.2f}x   (target <= {IMPORT_TARGET}x: "
          f"{verdict(ratio, IMPORT_TARGET)})")  # fmt: skip
    kv_cpu = statistics.median(r["import_kvdrill_cpu"] for r in rounds)
    anki_cpu = statistics.median(r["import_anki_cpu"] for r in rounds)
    print(f"  CPU time (user + system): kvdrill {kv_cpu:.2f} s, Anki {anki_cpu:.2f} s, "
          f"ratio {kv_cpu / anki_cpu:.2f}x")  # fmt: skip

    again = statistics.median(r["reimport_kvdrill"] for r in rounds)
    print(f"\nre-import the same {PACKS * PACK_CARDS:,} cards unchanged (`kvdrill import`): "
          f"{again:.2f} s   (target <= {REIMPORT_TARGET_S} s: "
          f"{'met' if again <= REIMPORT_TARGET_S else 'MISSED'})")  # fmt: skip
    again_cpu = statistics.median(r["reimport_kvdrill_cpu"] for r in rounds)
    print(f"  CPU time (user + system): {again_cpu:.2f} s")
    samples = {
        "import kvdrill": [r["import_kvdrill"] for r in rounds],
        "import Anki": [r["import_anki"] for r in rounds],
        "re-import kvdrill": [r["reimport_kvdrill"] for r in rounds],
        "import kvdrill CPU": [r["import_kvdrill_cpu"] for r in rounds],
        "import Anki CPU": [r["import_anki_cpu"] for r in rounds],
    }
    print("\nper round:")
    for name, values in samples.items():
        print(f"  {name:28} " + "  ".join(f"{value:7.2f}" for value in values))


if __name__ == "__main__":
    sys.exit(main())
