"""Peak resident memory (max RSS) of kvdrill's processes, each a fresh child process.

    .venv/bin/python scripts/bench_memory.py

- a drill session in the TUI, launched in a pseudo-terminal (``script``) on the bundled decks,
  to the first card painted (scripts/first_card_probe.py with ``KVDRILL_FIRST_CARD_FILE`` makes it exit there);
- a plain-mode drill session (``kvdrill drill --plain``) answering every card of a 20-card
  session on stdin, problems included;
- the same two on a generated pack of 20 recall cards only (``--pack bench-keys``): what a
  session without problems loads (no sympy, pint or pydantic: those draw and check problems);
- ``kvdrill calc kv_bytes_per_token --model llama-3.1-8b --unit KiB``;
- the anchor of the TUI row: the bare Textual app of scripts/bare_textual_app.py, launched the
  same way, to its one line painted.

The rows print as scripts/bench_table.py words them, with the targets of the README's table:
the TUI drill at most 2x the bare app, the 20-card plain session at most 60 MiB.

The figure is ``ru_maxrss`` from ``os.wait4`` on the child: the largest resident set of the
process and of any process it waited for. The user's database is never touched.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_table import load, print_header, print_row
from bench_tmux import recall_pack

KVDRILL = Path(sys.executable).with_name("kvdrill")
PROBE = Path(__file__).resolve().parent / "first_card_probe.py"
BARE_APP = Path(__file__).resolve().with_name("bare_textual_app.py")
TUI_RATIO, PLAIN_MIB = 2.0, 60.0


def peak_mib(command: list[str], env: dict[str, str], stdin: str = "") -> float:
    """Run ``command`` and return its peak RSS in MiB (Linux reports KiB)."""
    child = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdin is not None
    try:
        child.stdin.write(stdin)
        child.stdin.close()
    except BrokenPipeError:
        pass  # the session ended before reading every line
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} exited with {child.returncode}")
    return usage.ru_maxrss / 1024


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, KVDRILL_DATA_DIR=folder)
        env.pop("KVDRILL_DB", None)
        # The bundled decks are imported by this first run, not counted.
        subprocess.run([str(KVDRILL), "stats"], env=env, check=True, capture_output=True)

        stamp = Path(folder) / "first-card"
        tui = dict(env, KVDRILL_FIRST_CARD_FILE=str(stamp))
        launch = shlex.join([sys.executable, str(PROBE), "drill"])
        tui_mib = peak_mib(["script", "-qfec", launch, "/dev/null"], tui)
        if not stamp.exists():
            raise SystemExit("the TUI exited without painting a card")
        stamp.unlink()
        bare = shlex.join([sys.executable, str(BARE_APP)])
        bare_mib = peak_mib(["script", "-qfec", bare, "/dev/null"], tui)
        if not stamp.exists():
            raise SystemExit("the bare app exited without painting its line")

        # Enough lines for 20 cards and their repeats: a recall card takes Enter then a grade,
        # a multiple-choice card a letter, a problem a number; an unreadable line is asked again.
        answers = "\n".join(["", "4", "A", "42 GiB"] * 120) + "\n"
        plain_mib = peak_mib(
            [str(KVDRILL), "drill", "--plain", "--limit", "20"], env, stdin=answers
        )
        recall = Path(folder) / "bench-keys.md"
        recall_pack(recall, 20)
        subprocess.run([str(KVDRILL), "import", str(recall)], env=env, check=True, capture_output=True)  # fmt: skip
        only_recall = ["drill", "--pack", "bench-keys", "--new", "20"]
        launch = shlex.join([sys.executable, str(PROBE), *only_recall])
        tui_recall_mib = peak_mib(["script", "-qfec", launch, "/dev/null"], tui)
        if not stamp.exists():
            raise SystemExit("the TUI exited without painting a recall card")
        plain_recall_mib = peak_mib(
            [str(KVDRILL), *only_recall, "--plain"], env, stdin="\n".join(["", "4"] * 60) + "\n"
        )
        calc = [str(KVDRILL), "calc", "kv_bytes_per_token", "--model", "llama-3.1-8b"]
        calc_mib = peak_mib([*calc, "--unit", "KiB"], env)

    print("peak resident memory (max RSS), fresh process each")
    print(f"  kvdrill drill (TUI, to the first card painted):   {tui_mib:6.1f} MiB")
    print(f"  kvdrill drill --plain, a 20-card session:         {plain_mib:6.1f} MiB")
    print(f"  the same two, 20 recall cards only:   TUI {tui_recall_mib:6.1f} MiB, plain {plain_recall_mib:6.1f} MiB")  # fmt: skip
    print(f"  kvdrill calc kv_bytes_per_token ... --unit KiB:   {calc_mib:6.1f} MiB")
    print(f"  a bare Textual app (one line painted):            {bare_mib:6.1f} MiB")
    print(load())
    print_header()
    ratio = tui_mib / bare_mib
    print_row(
        "peak RSS of a TUI drill (to the first card)", f"{tui_mib:.1f} MiB",
        f"{bare_mib:.1f} MiB", ratio, f"<= {TUI_RATIO}x", ratio <= TUI_RATIO,
    )  # fmt: skip
    print_row(
        "peak RSS of a 20-card plain session", f"{plain_mib:.1f} MiB", "-", None,
        f"<= {PLAIN_MIB:.0f} MiB", plain_mib <= PLAIN_MIB,
    )  # fmt: skip
    ratio = tui_recall_mib / bare_mib
    print_row(
        "the same, recall cards only: TUI drill", f"{tui_recall_mib:.1f} MiB",
        f"{bare_mib:.1f} MiB", ratio, f"<= {TUI_RATIO}x", ratio <= TUI_RATIO,
    )  # fmt: skip
    print_row(
        "the same, recall cards only: 20-card plain session", f"{plain_recall_mib:.1f} MiB",
        "-", None, f"<= {PLAIN_MIB:.0f} MiB", plain_recall_mib <= PLAIN_MIB,
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
