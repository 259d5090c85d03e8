"""A study group on one real local PostgreSQL cluster: learners answering at once, and the
group's stats.

    .venv/bin/python scripts/bench_postgres.py [--learners 8 16] [--answers 100]
                                               [--reviews 1000000] [--group-learners 50]

The cluster is started the way the suite starts its own (tests/postgres_server.py
``start_cluster``: ``initdb`` and ``pg_ctl`` in a temporary folder, a Unix socket only) and
removed at the end. Rows (the README's benchmark table):

- N learners answering at once (N = 8, then 16), each a separate process with its own
  profile, all on one database of 400 recall cards: every process opens its session, waits
  for the others, then answers ``--answers`` cards (``DrillSession.grade`` + ``current``, as
  scripts/bench_answer.py times them). Printed: median, p99 and max answer time over every
  answer, errors (any exception a learner met), and lost answers (answers a process was told
  were saved that the review log does not hold), and the learner processes' CPU per answer.
  Target: p99 <= 50 ms, 0 errors, 0 lost.
- ``kvdrill stats --group`` on ``--group-learners`` learners and ``--reviews`` reviews, beside
  ``kvdrill --help`` (target 1 s): the review log filled with one ``INSERT ... SELECT`` over
  ``generate_series``, the rollups rebuilt once (store/rollups.py ``rebuild``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bench_calc import child_environment, kvdrill_command, wall_times_side_by_side  # noqa: E402
from bench_table import load, milliseconds, print_header, print_row  # noqa: E402
from bench_tmux import percentile, recall_pack  # noqa: E402

NOW = datetime(2026, 3, 10, 9, 0)
CARDS = 400
P99_TARGET_MS, GROUP_TARGET_S = 50.0, 1.0


def learner(url: str, profile: str, answers: int, go: Path) -> dict[str, object]:
    """One learner's process: open the session, wait for ``go``, answer, report."""
    from kvdrill.app.services.drill import DrillSession
    from kvdrill.store.db import open_database

    database = open_database(url)
    timings: list[float] = []
    errors: list[str] = []
    saved = 0
    try:
        session = DrillSession.open(database, profile=profile, now=NOW, new_limit=answers)
        while not go.exists():
            time.sleep(0.001)
        cpu_started = time.process_time()
        for _ in range(answers):
            if session.current is None:
                break
            started = time.perf_counter()
            try:
                session.grade(4, 5.0)
                _ = session.current
            except Exception as exc:  # every failure counts, whatever it is
                errors.append(f"{type(exc).__name__}: {exc}")
                continue
            timings.append((time.perf_counter() - started) * 1e3)
            saved += 1
        cpu_ms = (time.process_time() - cpu_started) * 1e3
    finally:
        database.close()
    return {"timings_ms": timings, "errors": errors, "saved": saved, "cpu_ms": cpu_ms}


def answering_at_once(url: str, learners: int, answers: int, folder: Path) -> dict[str, object]:
    go = folder / f"go-{learners}"
    profiles = [f"group{learners}-{number}" for number in range(learners)]
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", url, profile, str(answers), str(go)],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for profile in profiles
    ]
    time.sleep(2 + learners * 0.5)  # every process opens its session first
    go.touch()
    results = [json.loads(child.communicate()[0].strip().splitlines()[-1]) for child in children]
    logged = logged_answers(url, profiles)
    timings = [value for result in results for value in result["timings_ms"]]
    return {
        "timings": timings,
        "errors": [error for result in results for error in result["errors"]],
        "lost": sum(result["saved"] for result in results) - logged,
        # The learner processes' own CPU per answer: what the cores are shared out for.
        "cpu_per_answer_ms": sum(result["cpu_ms"] for result in results) / max(1, len(timings)),
    }


def logged_answers(url: str, profiles: list[str]) -> int:
    from sqlalchemy import bindparam, create_engine, text

    engine = create_engine(url)
    with engine.connect() as connection:
        count = connection.execute(
            text(
                "SELECT count(*) FROM review_log JOIN profiles ON profiles.id = "
                "review_log.profile_id WHERE profiles.name IN :names"
            ).bindparams(bindparam("names", expanding=True)),
            {"names": profiles},
        ).scalar_one()
    engine.dispose()
    return int(count)


def fill_group(url: str, learners: int, reviews: int) -> None:
    """``learners`` profiles and ``reviews`` review-log rows over the last year, rollups rebuilt."""
    from sqlalchemy import create_engine, text

    from kvdrill.store import rollups
    from kvdrill.store.db import connection_sql, open_database
    from kvdrill.store.profiles import get_or_create_profile

    database = open_database(url)
    with database.session() as session:
        for number in range(learners):
            get_or_create_profile(session, f"member-{number}", NOW)
    database.close()
    engine = create_engine(url)
    with engine.begin() as connection:
        rollups.drop_triggers(connection)
        connection.execute(
            text(
                """
                INSERT INTO review_log (profile_id, card_id, reviewed_at, study_day, quality,
                                        seconds, graded_by, moved_schedule, practice)
                SELECT p.ids[1 + g % cardinality(p.ids)],
                       c.ids[1 + (g / 7) % cardinality(c.ids)],
                       TIMESTAMP '2026-03-10 09:00' - (g % 365) * INTERVAL '1 day',
                       DATE '2026-03-10' - (g % 365),
                       (ARRAY[1, 3, 4, 4, 5])[1 + g % 5], 6.5, 'self', true, false
                FROM generate_series(1, :reviews) AS g,
                     (SELECT array_agg(id) AS ids FROM profiles
                      WHERE name LIKE 'member-%') AS p,
                     (SELECT array_agg(id) AS ids FROM cards) AS c
                """
            ),
            {"reviews": reviews},
        )
        rollups.rebuild(connection_sql(connection))
        rollups.create_triggers(connection)
    engine.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, nargs="+", default=[8, 16])
    parser.add_argument("--answers", type=int, default=100, help="answers per learner")
    parser.add_argument("--reviews", type=int, default=1_000_000)
    parser.add_argument("--group-learners", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5, help="rounds of stats --group A B")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        url, profile, answers, go = args.worker
        print(json.dumps(learner(url, profile, int(answers), Path(go))))
        return 0

    from postgres_server import start_cluster

    cluster = start_cluster()
    try:
        with tempfile.TemporaryDirectory(prefix="kvdrill-bench-pg-") as name:
            folder = Path(name)
            url = cluster.new_database()
            kvdrill = kvdrill_command()
            # With .pyc files, as an installed kvdrill runs (bench_calc.py ``child_environment``).
            env = child_environment("cached") | {"KVDRILL_DATA_DIR": str(folder / "data")}
            env.pop("KVDRILL_DB", None)
            recall_pack(folder / "bench-keys.md", CARDS)
            subprocess.run(
                [*kvdrill, "--db", url, "import", str(folder / "bench-keys.md")],
                env=env, check=True, capture_output=True,
            )  # fmt: skip
            print(f"PostgreSQL 15, one local cluster (Unix socket); {load()}")
            rows = []
            for learners in args.learners:
                rows.append((learners, answering_at_once(url, learners, args.answers, folder)))
            fill_group(url, args.group_learners, args.reviews)
            group = [*kvdrill, "--db", url, "stats", "--group"]
            # On the day the reviews were filled up to: else the window holds none of them.
            at_fill = env | {"KVDRILL_NOW": NOW.isoformat()}
            group_s, help_s = wall_times_side_by_side(
                [group, [*kvdrill, "--help"]], args.runs, at_fill
            )
            learners_shown = subprocess.run(
                group, env=at_fill, check=True, capture_output=True, text=True
            ).stdout.splitlines()[0]
    finally:
        cluster.remove()

    print_header()
    for learners, found in rows:
        timings = found["timings"]
        p99 = percentile(timings, 0.99)
        shown = (
            f"median {statistics.median(timings):.1f} / p99 {p99:.1f} / max {max(timings):.1f} "
            f"ms, {len(found['errors'])} errors, {found['lost']} lost "
            f"(client CPU {found['cpu_per_answer_ms']:.2f} ms per answer)"
        )
        print_row(
            f"{learners} learner processes answering at once ({len(timings)} answers)", shown,
            "-", None, f"p99 <= {P99_TARGET_MS:.0f} ms, 0 errors, 0 lost",
            p99 <= P99_TARGET_MS and not found["errors"] and found["lost"] == 0,
        )  # fmt: skip
        for error in sorted(set(found["errors"]))[:3]:
            print(f"    error: {error}")
    print(f"    {learners_shown}")
    print_row(
        f"`kvdrill stats --group`, {args.group_learners} learners, {args.reviews:,} reviews "
        "vs `--help`", milliseconds(group_s), milliseconds(help_s), group_s / help_s,
        f"<= {GROUP_TARGET_S} s", group_s <= GROUP_TARGET_S,
    )  # fmt: skip
    print(f"at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
