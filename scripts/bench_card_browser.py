"""The card browser on a big collection: the full-screen app (headless, 80x24) from ``c`` on
home to the table filled, the next page of rows at the table's end, a text search, a state filter with a sort, and a card's page, each
alternated with the home screen's refresh (``r``, the overview of the same database) as the
anchor; medians and ratios.

    python scripts/make_synthetic_db.py /tmp/big.db
    python scripts/bench_card_browser.py --db /tmp/big.db [--runs 3] [--now 2026-11-29T09:00:00]
    python scripts/bench_card_browser.py --db /tmp/big.db --listing --against /tmp/old [--runs 5]

``--listing`` times the browser's listing alone (app/services/browser.py ``list_cards``: every
card, a state filter with a sort, a text search), each in a process of its own with the
database already open; with ``--against`` (another checkout: ``git archive COMMIT | tar -x -C
/tmp/old``) that checkout's listing runs in each round too (A B A B), and each row prints
this/other.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def timed(pilot, step) -> float:
    start = time.perf_counter()
    await step()
    await settle(pilot)
    return time.perf_counter() - start


async def measure(url: str, runs: int) -> dict[str, list[float]]:
    from kvdrill.app.app_options import AppOptions
    from kvdrill.app.tui import create_app

    app = create_app(url, start="home", options=AppOptions(bundled=False))
    times: dict[str, list[float]] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)

        async def press(*keys: str) -> None:
            await pilot.press(*keys)

        async def search(text: str) -> None:
            app.screen.query_one("#cards-search").value = text
            app.screen._search_now()

        async def due_by_lapses() -> None:
            app.screen.filters["state"], app.screen.sort = "due", "lapses"
            app.screen.load_cards()

        for _ in range(runs):
            for name, step in (
                ("home refresh (anchor)", lambda: press("r")),
                ("browser: c to every card listed", lambda: press("c")),
                ("next page: ctrl+end, 500 rows more", lambda: press("ctrl+end")),
                ('search "card 4"', lambda: search("card 4")),
                ("state due, by lapses", due_by_lapses),
                ("card page", lambda: press("enter")),
            ):
                times.setdefault(name, []).append(await timed(pilot, step))
            await pilot.press("escape", "escape")
            await settle(pilot)
    return times


# One process's listing times (wall and CPU seconds), the database opened first; argv: the
# URL. "the browser's first page" is what the screen asks for (a checkout without
# ``list_cards_page`` lists every card for it, as its screen did).
LISTING = """
import json, sys, time
from kvdrill.app.services import browser, environment
from kvdrill.store.db import open_database
database = open_database(sys.argv[1])
now = environment.now()

def first_page(**filters):
    if hasattr(browser, "list_cards_page"):
        return browser.list_cards_page(database, "default", now, 500, **filters)[1]
    return browser.list_cards(database, "default", now, **filters)[1]

times = {}
for name, listed, filters in (
    ("list every card", browser.list_cards, {}),
    ("the browser's first page", None, {}),
    ("state due, by lapses", browser.list_cards, {"state": "due", "sort": "lapses"}),
    ('search "card 4"', browser.list_cards, {"search": "card 4"}),
):
    wall, cpu = time.perf_counter(), time.process_time()
    if listed is None:
        count = min(len(first_page(**filters)), 500)
    else:
        count = len(listed(database, "default", now, **filters)[1])
    times[name] = (time.perf_counter() - wall, time.process_time() - cpu, count)
database.close()
print(json.dumps(times))
"""


def listing_times(
    url: str, checkouts: list[Path], runs: int
) -> list[dict[str, list[tuple[float, float]]]]:
    """Per checkout, each listing's (wall, CPU) times over ``runs`` rounds, the checkouts in
    turn."""
    with tempfile.TemporaryDirectory(prefix="kvdrill-bench-listing-") as folder:
        envs = []
        for index, checkout in enumerate(checkouts):
            link = Path(folder) / str(index) / "kvdrill"  # the repo root is the package
            link.parent.mkdir()
            link.symlink_to(checkout.resolve(), target_is_directory=True)
            envs.append(dict(os.environ, PYTHONPATH=str(link.parent)))
        times: list[dict[str, list[tuple[float, float]]]] = [{} for _ in checkouts]
        counts: list[dict[str, int]] = [{} for _ in checkouts]
        for _ in range(runs):
            for env, samples, rows in zip(envs, times, counts, strict=True):
                command = [sys.executable, "-c", LISTING, url]
                output = subprocess.run(command, env=env, check=True, capture_output=True)
                for name, (wall, cpu, count) in json.loads(output.stdout).items():
                    samples.setdefault(name, []).append((wall, cpu))
                    rows[name] = count
        if len(counts) > 1 and counts[0] != counts[1]:
            raise SystemExit(f"the checkouts list different cards: {counts}")
        print(f"rows: {counts[0]}")
        return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--now", default="2026-11-29T09:00:00")
    parser.add_argument("--listing", action="store_true", help="time list_cards alone")
    parser.add_argument("--against", type=Path, help="another checkout, alternated (--listing)")
    args = parser.parse_args()
    os.environ["KVDRILL_NOW"] = args.now
    if args.listing:
        here = Path(__file__).resolve().parent.parent
        checkouts = [here, *([args.against] if args.against else [])]
        print(f"load average {os.getloadavg()[0]:.1f}")
        mine, *other = listing_times(f"sqlite:///{args.db}", checkouts, args.runs)
        for name, values in mine.items():
            wall, cpu = (statistics.median(v[i] for v in values) for i in (0, 1))
            line = f"{name:26} wall {wall:6.3f} s  CPU {cpu:6.3f} s"
            if other:
                their_wall, their_cpu = (
                    statistics.median(v[i] for v in other[0][name]) for i in (0, 1)
                )
                line += (
                    f" | other wall {their_wall:6.3f} s  CPU {their_cpu:6.3f} s"
                    f" | this/other wall {wall / their_wall:4.2f}x  CPU {cpu / their_cpu:4.2f}x"
                )
            print(line)
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
        return
    times = asyncio.run(measure(f"sqlite:///{args.db}", args.runs))
    anchor = statistics.median(times["home refresh (anchor)"])
    print(f"load average {os.getloadavg()[0]:.1f}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:34} median {median:6.2f} s  {median / anchor:5.2f}x the anchor")


if __name__ == "__main__":
    main()
