"""The card browser on a big collection: the full-screen app (headless, 80x24) from ``c`` on
home to the table filled, the next page of rows at the table's end, a text search, a state filter with a sort, and a card's page, each
alternated with the home screen's refresh (``r``, the overview of the same database) as the
anchor; medians and ratios.

    python scripts/make_synthetic_db.py /tmp/big.db
    python scripts/bench_card_browser.py --db /tmp/big.db [--runs 3] [--now 2026-11-29T09:00:00]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--now", default="2026-11-29T09:00:00")
    args = parser.parse_args()
    os.environ["KVDRILL_NOW"] = args.now
    times = asyncio.run(measure(f"sqlite:///{args.db}", args.runs))
    anchor = statistics.median(times["home refresh (anchor)"])
    print(f"load average {os.getloadavg()[0]:.1f}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:34} median {median:6.2f} s  {median / anchor:5.2f}x the anchor")


if __name__ == "__main__":
    main()
