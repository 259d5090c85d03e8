"""The commands other than calc, each a fresh process beside its anchor, in one run.

    .venv/bin/python scripts/bench_commands.py [--runs 7] [--bytecode cached|inherit]
                                               [--only problem,check,...] [--against CHECKOUT]

Rows (the README's benchmark table):
- ``kvdrill stats`` (the text report) beside ``kvdrill stats --json`` (target at most 1.5x);
- ``kvdrill problem T --seed N`` beside ``kvdrill --help`` (target at most 2x, as calc is);
- ``kvdrill check decks/`` (target 0.5 s), beside ``--help`` for the ratio;
- ``kvdrill export --format apkg`` of the bundled decks (target 1 s), beside ``--help``.

All run on a database in a temporary folder holding the bundled decks and a profile (a plain
drill with nothing typed makes both), alternating A B A B (scripts/bench_calc.py's
``wall_times_side_by_side``), medians of ``--runs`` rounds. The user's database is never read.
``--only`` takes the rows whose first word after ``kvdrill`` is named (stats, problem, check,
export). With ``--against`` (another checkout, ``git worktree add /tmp/old COMMIT``) that
checkout's command runs in each round too (A A' B), and each row prints this/other.
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
from bench_table import importable, load, milliseconds, print_header, print_row

# What the kvdrill script runs, for a checkout found through PYTHONPATH (scripts/bench_table.py
# ``importable``) rather than this venv's installed package.
RUN_CLI = "import sys; from kvdrill.app.cli import main; sys.exit(main())"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds of A B per row")
    parser.add_argument("--only", help="comma-separated rows: stats, problem, check, export")
    parser.add_argument("--against", type=Path, help="another kvdrill checkout, alternated too")
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
        wanted = set(args.only.split(",")) if args.only else None
        other_env = None
        if args.against:
            link_folder, data = Path(folder) / "against", Path(folder) / "against-data"
            link_folder.mkdir()
            data.mkdir()
            # Its own database: one checkout's migrations may be newer than the other's.
            other_env = env | {
                "PYTHONPATH": importable(args.against, link_folder)["PYTHONPATH"],
                "KVDRILL_DATA_DIR": str(data),
            }
            subprocess.run(
                [sys.executable, "-c", RUN_CLI, "drill", "--plain"],
                cwd=ROOT,
                env=other_env,
                input="",
                capture_output=True,
            )
        for row, command, anchor, ratio_target, seconds_target in pairs:
            if wanted is not None and command[len(kvdrill)] not in wanted:
                continue
            commands, envs = [command, anchor], [env, env]
            if other_env is not None:
                # Its own decks: this checkout's would clash with its bundled packs.
                own = [str(args.against / "decks") if a == "decks/" else a for a in command]
                commands.insert(1, [sys.executable, "-c", RUN_CLI, *own[len(kvdrill) :]])
                envs.insert(1, other_env)
            times = wall_times_side_by_side(commands, args.runs, envs)
            mine, theirs = times[0], times[-1]
            ratio = mine / theirs
            if ratio_target is not None:
                target, met = f"<= {ratio_target}x", ratio <= ratio_target
            else:
                assert seconds_target is not None
                target, met = f"<= {seconds_target} s", mine <= seconds_target
            print_row(row, milliseconds(mine), milliseconds(theirs), ratio, target, met)
            if other_env is not None:
                other = times[1]
                print(
                    f"  [{args.against}] {milliseconds(other)} vs anchor: {other / theirs:.2f}x; "
                    f"this checkout / {args.against}: {mine / other:.2f}x"
                )
        print(f"at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
