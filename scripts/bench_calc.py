"""Speed of the formula engine and of ``kvdrill calc``.

Prints: the wall time of ``kvdrill calc`` as a fresh process beside ``kvdrill --help``
(alternated A B A B, median of N rounds each, and their ratio; the target is at most 2x), the
load average while measuring, the import time of engine.capacity.formulas (sympy), formula
evaluations per second through ``evaluate`` (the functions scripts/generate_formula_code.py
writes), ``inputs_from`` calls per second, and ``solve_for`` calls per second once each
inverse is cached.

    .venv/bin/python scripts/bench_calc.py [--runs N] [--seconds S] [--bytecode cached|inherit]

Bytecode: by default the child processes may write and read .pyc files (PYTHONDONTWRITEBYTECODE
dropped, one warm-up run each), as an installed kvdrill does: pip compiles a wheel's modules
when it installs them. ``--bytecode inherit`` passes the environment unchanged; with
PYTHONDONTWRITEBYTECODE=1 and no __pycache__ beside the sources, every run compiles kvdrill's
modules from source, which costs calc (more modules) more than --help.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CALC_ARGV = [
    ["kv_bytes_per_token", "--model", "llama-3.1-8b", "--unit", "KiB"],
    ["max_concurrency", "--model", "llama-3.1-8b", "--set", "pool=54.8GiB", "--explain"],
]


HELP_ARGV = ["--help"]


def kvdrill_command() -> list[str]:
    """The installed ``kvdrill`` script beside this Python, else ``python -m kvdrill.app``."""
    script = Path(sys.executable).parent / "kvdrill"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kvdrill.app"]


def child_environment(bytecode: str) -> dict[str, str]:
    """The environment of the timed processes: see the module docstring."""
    env = dict(os.environ)
    if bytecode == "cached":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def add_bytecode_option(parser: argparse.ArgumentParser) -> None:
    """``--bytecode cached|inherit``: see the module docstring."""
    parser.add_argument(
        "--bytecode",
        choices=("cached", "inherit"),
        default="cached",
        help="let the timed processes cache .pyc files (default), or inherit the environment",
    )


def wall_times_side_by_side(
    commands: list[list[str]], rounds: int, env: dict[str, str] | list[dict[str, str]]
) -> list[float]:
    """Median wall time of each command, run in turn (A B A B ...) so load hits them alike.
    ``env``: one environment for all, or one per command."""
    envs = env if isinstance(env, list) else [env] * len(commands)
    times: list[list[float]] = [[] for _ in commands]
    for command, command_env in zip(commands, envs, strict=True):  # a warm-up run: file
        # cache, and .pyc files where allowed
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True, env=command_env)
    for _ in range(rounds):
        for command, command_env, samples in zip(commands, envs, times, strict=True):
            start = time.perf_counter()
            subprocess.run(command, cwd=ROOT, check=True, capture_output=True, env=command_env)
            samples.append(time.perf_counter() - start)
    return [statistics.median(samples) for samples in times]


def rate(call, seconds: float) -> float:
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(100):
            call()
        count += 100
    return count / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds of A B per calc command")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per in-process rate")
    add_bytecode_option(parser)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))

    kvdrill = kvdrill_command()
    for argv in CALC_ARGV:
        load_before = os.getloadavg()[0]
        calc, help_ = wall_times_side_by_side(
            [[*kvdrill, "calc", *argv], [*kvdrill, *HELP_ARGV]],
            args.runs,
            child_environment(args.bytecode),
        )
        print(
            f"kvdrill calc {' '.join(argv)}: median {calc * 1e3:.0f} ms; kvdrill --help "
            f"{help_ * 1e3:.0f} ms; ratio {calc / help_:.2f}x (target <= 2x; {args.runs} rounds "
            f"A B, load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}, bytecode "
            f"{args.bytecode})"
        )

    start = time.perf_counter()
    from kvdrill.engine.capacity import formulas

    print(
        f"import kvdrill.engine.capacity.formulas (sympy): {(time.perf_counter() - start) * 1e3:.0f} ms"
    )
    inputs = formulas.inputs_from(
        "llama-3.1-8b",
        "h100-sxm",
        overrides={"seq_tokens": 4096, "request_tokens": 1800, "new_gpu_util": 0.95},
    )
    names = [n for n, f in formulas.FORMULAS.items() if set(f.symbols) <= set(inputs)]
    start = time.perf_counter()
    for name in names:
        formulas.evaluate(name, inputs)
    print(
        f"first evaluation of {len(names)} formulas (generated functions): {(time.perf_counter() - start) * 1e3:.0f} ms"
    )

    def evaluate_all() -> None:
        for name in names:
            formulas.evaluate(name, inputs)

    per_second = rate(evaluate_all, args.seconds) * len(names)
    print(f"formula evaluations: {per_second:,.0f}/s")
    print(
        f"inputs_from (catalog -> every derived symbol): {rate(lambda: formulas.inputs_from('llama-3.1-70b', 'h100-sxm', tp=2), args.seconds):,.0f}/s"
    )

    known = dict(inputs)
    known["max_concurrency"] = 10
    start = time.perf_counter()
    formulas.solve_for("max_concurrency", "max_model_len", known)
    print(f"first solve_for (sympy.solve + lambdify): {(time.perf_counter() - start) * 1e3:.0f} ms")
    solves = rate(
        lambda: formulas.solve_for("max_concurrency", "max_model_len", known), args.seconds
    )
    print(f"solve_for once cached: {solves:,.0f}/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
