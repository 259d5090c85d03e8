"""What a learner feels in a terminal: kvdrill in a real tmux pane at 80x24, beside a bare
Textual app in the same pane, alternated in one run.

    .venv/bin/python scripts/bench_tmux.py [--runs 5] [--cards 20] [--against CHECKOUT]

Rows (the README's benchmark table):
- launch of ``kvdrill`` to the home screen painted, beside the bare app (scripts/
  bare_textual_app.py) to its one line painted (target at most 1.4x), and to the home's
  counts shown (read from the database after the first paint);
- key press to the screen changed in a drill (reveal with space, grade with 4, on recall
  cards), median, p95 and max, beside the bare app repainting its line per key (targets:
  median at most 2x the bare app's, p95 at most 100 ms).

Launch: from just before ``tmux new-session`` to ``capture-pane`` first showing the screen's
last line to be painted (polled every 5 ms). Key: the pane's output is piped to a file
(``pipe-pane``); from just before ``send-keys`` to the app writing the key's own effect (the
reveal's "Your note" heading, the next card's "N left"; the bare app's line naming the key),
the app idle before each key (no output for 200 ms). Output that is not the key's effect (the
countdown ticking) does not count. Both sides pay the same tmux client start. Each side's database is a fresh one in a temporary folder: a generated pack of
``--cards`` recall cards, the bundled decks imported by a warm-up run that is not counted.
With ``--against`` (another checkout, ``git worktree add /tmp/old COMMIT``) that checkout runs
too, alternated with this one and the bare app, and the ratios this/other are printed.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path

from bench_table import importable, load, milliseconds, print_header, print_row

ROOT = Path(__file__).resolve().parent.parent
KVDRILL = [sys.executable, "-m", "kvdrill.app"]
BARE_APP = [sys.executable, str(ROOT / "scripts" / "bare_textual_app.py")]
HOME_READY = "d or Enter: drill"  # the home screen's key line, in its first paint
HOME_COUNTS = "Today:"  # the line of today's counts, once the database is read
BARE_READY = "What is the KV cache size"
REVEALED = "Your note"  # the reveal's last heading
QUIET_SECONDS = 0.2
LAUNCH_RATIO, KEY_RATIO, KEY_P95_MS = 1.4, 2.0, 100.0


def tmux(*args: str, tries: int = 1) -> str:
    """``tmux args``'s output; a failure is tried again ``tries`` times in all (a new session
    can meet the server exiting as another helper's last session closes), then one line."""
    for attempt in range(tries):
        done = subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=30)
        if done.returncode == 0:
            return done.stdout
        time.sleep(0.2 * (attempt + 1))
    raise SystemExit(f"tmux {args[0]} failed: {done.stderr.strip() or done.returncode}")


class Pane:
    """One app in a detached tmux session at 80x24, its output piped to a file."""

    def __init__(self, argv: list[str], env: dict[str, str], folder: Path):
        self.name = f"kvdrill-bench-{uuid.uuid4().hex[:8]}"
        self.output = folder / f"{self.name}.out"
        self.output.touch()
        command = ["env", *(f"{key}={value}" for key, value in env.items()), *argv]
        self.started = time.perf_counter()
        tmux("new-session", "-d", "-s", self.name, "-x", "80", "-y", "24", shlex.join(command), tries=3)  # fmt: skip
        tmux("pipe-pane", "-o", "-t", self.name, f"cat >> {shlex.quote(str(self.output))}")

    def screen(self) -> str:
        return tmux("capture-pane", "-p", "-t", self.name)

    def wait_for(self, text: str, timeout: float = 120) -> float:
        """Seconds from the launch until ``text`` is on screen."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if text in self.screen():
                return time.perf_counter() - self.started
            time.sleep(0.005)
        raise SystemExit(f"gave up waiting for {text!r}; the pane shows:\n{self.screen()}")

    def quiet(self) -> None:
        """Wait until the app has written nothing for ``QUIET_SECONDS``."""
        size, since = self.output.stat().st_size, time.perf_counter()
        while time.perf_counter() - since < QUIET_SECONDS:
            time.sleep(0.01)
            now = self.output.stat().st_size
            if now != size:
                size, since = now, time.perf_counter()

    def key_to_change(self, key: str, effect: str) -> float:
        """Seconds from sending ``key`` to the app writing ``effect`` (text on screen)."""
        self.quiet()
        with self.output.open("rb") as output:
            output.seek(0, os.SEEK_END)
            started = time.perf_counter()
            tmux("send-keys", "-t", self.name, key)
            deadline, written, wanted = started + 30, b"", effect.encode()
            while wanted not in written:
                if time.perf_counter() > deadline:
                    raise SystemExit(f"no {effect!r} after {key!r}; the pane shows:\n{self.screen()}")  # fmt: skip
                written += output.read()
                time.sleep(0.0005)
        return time.perf_counter() - started

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True, timeout=30)


def recall_pack(path: Path, cards: int, title: str = "Key benchmark") -> None:
    """A pack of ``cards`` recall cards (the format of decks/README.md)."""
    lines = [
        "---",
        "pack: bench-keys",
        f"title: {title}",
        "version: 1",
        "tags: [bench]",
        "description: Recall cards for scripts/bench_tmux.py.",
        "---",
    ]
    for number in range(cards):
        lines += [
            "",
            f"## Bytes of value {number} {{#value-{number}}}",
            "",
            "### Prompt",
            "",
            f"How many bytes do {number + 1} BF16 values take?",
            "",
            "### Answer",
            "",
            f"{2 * (number + 1)} bytes.",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="launches of each, alternated")
    parser.add_argument("--cards", type=int, default=20, help="recall cards in the drill")
    parser.add_argument("--against", type=Path, help="another kvdrill checkout, alternated too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kvdrill-bench-tmux-") as name:
        folder = Path(name)
        base = {"TERM": "xterm-256color", "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
        envs = {"kvdrill": base | {"KVDRILL_DATA_DIR": str(folder / "data")}}
        if args.against:
            other = importable(args.against, folder)
            envs["other"] = base | {"KVDRILL_DATA_DIR": str(folder / "other-data"), "PYTHONPATH": other["PYTHONPATH"]}  # fmt: skip
        recall_pack(folder / "bench-keys.md", args.cards)
        for env in envs.values():
            subprocess.run(
                [*KVDRILL, "import", str(folder / "bench-keys.md")],
                env=os.environ | env, check=True, capture_output=True,
            )  # fmt: skip
        print(f"kvdrill and a bare Textual app in tmux at 80x24; {load()}")
        apps = {side: (KVDRILL, env, HOME_READY) for side, env in envs.items()}
        apps["bare"] = (BARE_APP, envs["kvdrill"], BARE_READY)
        # Warm-ups, not counted: bytecode caches, the bundled decks' first import.
        for argv, env, ready in apps.values():
            pane = Pane(argv, env, folder)
            pane.wait_for(ready)
            pane.close()
        launches: dict[str, list[float]] = {side: [] for side in apps}
        counted: dict[str, list[float]] = {side: [] for side in envs}
        for _ in range(args.runs):
            for side, (argv, env, ready) in apps.items():
                pane = Pane(argv, env, folder)
                launches[side].append(pane.wait_for(ready))
                if side != "bare":
                    counted[side].append(pane.wait_for(HOME_COUNTS))
                pane.close()

        drill = [*KVDRILL, "drill", "--pack", "bench-keys", "--new", str(args.cards)]
        panes = {side: Pane(drill, env, folder) for side, env in envs.items()}
        panes["bare"] = Pane(BARE_APP, envs["kvdrill"], folder)
        keys: dict[str, list[float]] = {side: [] for side in panes}
        by_key: dict[tuple[str, str], list[float]] = defaultdict(list)
        try:
            for side, pane in panes.items():
                pane.wait_for(BARE_READY if side == "bare" else f"{args.cards} left")
            for done in range(1, args.cards):  # the last grade ends the session
                for key, effect, name in (
                    ("Space", REVEALED, "space"),
                    ("4", f"{args.cards - done} left", "4"),
                ):
                    for side, pane in panes.items():
                        wanted = f"(key {name!r} at" if side == "bare" else effect
                        keys[side].append(pane.key_to_change(key, wanted))
                        by_key[side, key].append(keys[side][-1] * 1e3)
        finally:
            for pane in panes.values():
                pane.close()

    print_header()
    for side in envs:
        mine, theirs = statistics.median(launches[side]), statistics.median(launches["bare"])
        ratio = mine / theirs
        print_row(
            f"{label(side, args.against)}launch -> home screen painted ({args.runs} runs)",
            milliseconds(mine), milliseconds(theirs), ratio, f"<= {LAUNCH_RATIO}x",
            ratio <= LAUNCH_RATIO,
        )  # fmt: skip
        mine = statistics.median(counted[side])
        ratio = mine / theirs
        print_row(
            f"{label(side, args.against)}launch -> home's counts shown ({args.runs} runs)",
            milliseconds(mine), milliseconds(theirs), ratio, f"<= {LAUNCH_RATIO}x",
            ratio <= LAUNCH_RATIO,
        )  # fmt: skip
    ms = {side: [value * 1e3 for value in values] for side, values in keys.items()}
    shown = {
        side: f"{statistics.median(v):.0f} / {percentile(v, 0.95):.0f} / {max(v):.0f} ms"
        for side, v in ms.items()
    }
    for side in envs:
        ratio = statistics.median(ms[side]) / statistics.median(ms["bare"])
        p95 = percentile(ms[side], 0.95)
        print_row(
            f"{label(side, args.against)}key -> screen changed in a drill, "
            f"median / p95 / max ({len(ms[side])} keys)",
            shown[side], shown["bare"], ratio,
            f"median <= {KEY_RATIO}x, p95 <= {KEY_P95_MS:.0f} ms",
            ratio <= KEY_RATIO and p95 <= KEY_P95_MS,
        )  # fmt: skip
    if args.against:
        for what, figures in (("launch", launches), ("counts", counted), ("key", ms)):
            ratio = statistics.median(figures["kvdrill"]) / statistics.median(figures["other"])
            print(f"{what}: this checkout / {args.against}: {ratio:.2f}x")
    for (side, key), times in by_key.items():
        print(f"{key} alone, {side}: median {statistics.median(times):.0f} ms")
    for side, times in launches.items():
        print(f"launch runs (s), {side}: " + ", ".join(f"{t:.3f}" for t in times))
    print(f"at the end: {load()}")
    return 0


def label(side: str, against: Path | None) -> str:
    return "" if side == "kvdrill" and against is None else f"[{side}] "


if __name__ == "__main__":
    sys.exit(main())
