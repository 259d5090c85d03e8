"""Peak resident memory (max RSS) of kvdrill's processes, each a fresh child process.

    .venv/bin/python scripts/bench_memory.py

- a drill session in the TUI, launched in a pseudo-terminal (``script``) on the bundled decks,
  to the first card painted (scripts/first_card_probe.py with ``KVDRILL_FIRST_CARD_FILE`` makes it exit there);
- a plain-mode drill session (``kvdrill drill --plain``) answering every card of a 20-card
  session on stdin, problems included;
- ``kvdrill calc kv_bytes_per_token --model llama-3.1-8b --unit KiB``.

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

KVDRILL = Path(sys.executable).with_name("kvdrill")
PROBE = Path(__file__).resolve().parent / "first_card_probe.py"


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

        # Enough lines for 20 cards and their repeats: a recall card takes Enter then a grade,
        # a multiple-choice card a letter, a problem a number; an unreadable line is asked again.
        answers = "\n".join(["", "4", "A", "42 GiB"] * 120) + "\n"
        plain_mib = peak_mib(
            [str(KVDRILL), "drill", "--plain", "--limit", "20"], env, stdin=answers
        )
        calc = [str(KVDRILL), "calc", "kv_bytes_per_token", "--model", "llama-3.1-8b"]
        calc_mib = peak_mib([*calc, "--unit", "KiB"], env)

    print("peak resident memory (max RSS), fresh process each")
    print(f"  kvdrill drill (TUI, to the first card painted):   {tui_mib:6.1f} MiB")
    print(f"  kvdrill drill --plain, a 20-card session:         {plain_mib:6.1f} MiB")
    print(f"  kvdrill calc kv_bytes_per_token ... --unit KiB:   {calc_mib:6.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
