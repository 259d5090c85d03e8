"""The commands other than calc, each a fresh process beside its anchor, in one run.

    .venv/bin/python scripts/bench_commands.py [--runs 7] [--bytecode cached|inherit]

Rows (the README's benchmark table):
- ``kvdrill stats`` (the text report) beside ``kvdrill stats --json`` (target at most 1.5x);
- ``kvdrill problem T --seed N`` beside ``kvdrill --help`` (target at most 2x, as calc is);
- ``kvdrill check decks/`` (target 0.5 s), beside ``--help`` for the ratio;
- ``kvdrill export --format apkg`` of the bundled decks (target 1 s), beside ``--help``.

All run on a database in a temporary folder holding the bundled decks and a profile (a plain
drill with nothing typed makes both), alternating A B A B (scripts/bench_calc.py's
``wall_times_side_by_side``), medians of ``--runs`` rounds. The user's database is never read.
"""

from __future__ import annotations

import argparse
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
from bench_table import load, milliseconds, print_header, print_row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds of A B per row")
    add_bytecode_option(parser)
    args = parser.parse_args()
    kvdrill = kvdrill_command()
    with tempfile.TemporaryDirectory(prefix="kvdrill-bench-commands-") as folder:
        env = child_environment(args.bytecode) | {"KVDRILL_DATA_DIR": folder}
        env.pop("KVDRILL_DB", None)
        subprocess.run(
            [*kvdrill, "drill", "--plain"], cwd=ROOT, env=env, input="", capture_output=True
        )
        listed = subprocess.run(
            [*kvdrill, "problem", "--list"], cwd=ROOT, env=env, capture_output=True, text=True
        ).stdout.split()
        template = next(word for word in listed if "/" in word)
        apkg = str(Path(folder) / "out.apkg")
        help_ = [*kvdrill, "--help"]
        print(f"kvdrill commands, fresh processes, {args.runs} rounds A B each; {load()}")
        print_header()
        pairs = [
            ("`kvdrill stats` (text) vs `--json`", [*kvdrill, "stats"], [*kvdrill, "stats", "--json"], 1.5, None),
            (f"`kvdrill problem {template} --seed 7` vs `--help`",
             [*kvdrill, "problem", template, "--seed", "7"], help_, 2.0, None),
            ("`kvdrill check decks/` vs `--help`", [*kvdrill, "check", "decks/"], help_, None, 0.5),
            ("`kvdrill export --format apkg` (bundled decks) vs `--help`",
             [*kvdrill, "export", "--format", "apkg", apkg], help_, None, 1.0),
        ]  # fmt: skip
        for row, command, anchor, ratio_target, seconds_target in pairs:
            mine, theirs = wall_times_side_by_side([command, anchor], args.runs, env)
            ratio = mine / theirs
            if ratio_target is not None:
                target, met = f"<= {ratio_target}x", ratio <= ratio_target
            else:
                assert seconds_target is not None
                target, met = f"<= {seconds_target} s", mine <= seconds_target
            print_row(row, milliseconds(mine), milliseconds(theirs), ratio, target, met)
        print(f"at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
