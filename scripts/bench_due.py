"""Speed of ``kvdrill due`` beside ``kvdrill --help`` (the target: at most 2x).

Alternates the two as fresh processes (A B A B, median of N rounds each) and prints both and
their ratio, as scripts/bench_calc.py does, on a database with the bundled decks and a profile
(built in a temporary folder), or on ``--db PATH`` (say one from scripts/make_synthetic_db.py).

    .venv/bin/python scripts/bench_due.py [--runs N] [--db PATH] [--bytecode cached|inherit]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_calc import (
    ROOT,
    add_bytecode_option,
    child_environment,
    kvdrill_command,
    wall_times_side_by_side,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="rounds of A B")
    parser.add_argument("--db", type=Path, help="a kvdrill SQLite file (default: bundled decks)")
    parser.add_argument("--profile", default="default")
    add_bytecode_option(parser)
    args = parser.parse_args()
    kvdrill = kvdrill_command()
    with tempfile.TemporaryDirectory(prefix="kvdrill-bench-due-") as folder:
        env = child_environment(args.bytecode) | {"KVDRILL_DATA_DIR": folder}
        env.pop("KVDRILL_DB", None)
        if args.db is None:
            db = Path(folder) / "kvdrill.db"
            # The bundled decks go in on first use; a drill with nothing typed makes the profile.
            subprocess.run(
                [*kvdrill, "drill", "--plain"], cwd=ROOT, env=env, input="", capture_output=True
            )
        else:
            db = args.db.resolve()
        due = [*kvdrill, "--db", f"sqlite:///{db}", "--profile", args.profile, "due"]
        shown = subprocess.run(due, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        load_before = os.getloadavg()[0]
        due_time, help_time = wall_times_side_by_side([due, [*kvdrill, "--help"]], args.runs, env)
    print(
        f"kvdrill due ({shown.stdout.strip()}, {db.name}): median {due_time * 1e3:.0f} ms; "
        f"kvdrill --help {help_time * 1e3:.0f} ms; ratio {due_time / help_time:.2f}x "
        f"(target <= 2x; {args.runs} rounds A B, load average {load_before:.1f} -> "
        f"{os.getloadavg()[0]:.1f}, bytecode {args.bytecode})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
