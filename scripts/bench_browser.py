"""``kvdrill serve`` in headless Chromium (Selenium) beside the same app in a tmux pane, in one
run.

    .venv/bin/python scripts/bench_browser.py [--runs 3] [--cards 12]

Rows (the README's benchmark table):
- page open to the first screen interactive (the home screen's key line in the page's
  terminal) beside the same app started in a terminal (scripts/bench_tmux.py's launch to the
  home screen), alternated; target at most 2x;
- key press to the next card painted: in a drill, space (reveal) then 4 (grade) on recall
  cards, from just before Selenium sends the key to the page's terminal showing the key's
  effect (the reveal's heading, the next count of cards left), beside the same key sent to
  the drill in tmux, key by key; target median at most 2x tmux.

The page draws the app with xterm.js; its screen is read as tests/test_serve_browser.py reads
it (a script before the page's own keeps the Terminal). The server listens on loopback only
and is stopped at the end, with every app process it started.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_table import load, milliseconds, print_header, print_row
from bench_tmux import HOME_READY, KVDRILL, REVEALED, Pane, percentile, recall_pack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from selenium.webdriver.common.keys import Keys  # noqa: E402
from serve_helpers import stop_server  # noqa: E402
from test_serve_browser import CATCH_TERMINAL, CHROMEDRIVER, CHROMIUM, SCREEN_TEXT  # noqa: E402

HOST = "127.0.0.1"
FIRST_TITLE = "A key benchmark"
OPEN_RATIO, KEY_RATIO = 2.0, 2.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def chromium(folder: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1280,900", f"--user-data-dir={folder / 'chromium'}"):  # fmt: skip
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(120)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CATCH_TERMINAL})
    return driver


class Page:
    def __init__(self, driver, address: str):
        self.driver, self.address = driver, address

    def screen(self) -> str:
        return self.driver.execute_script(SCREEN_TEXT) or ""

    def open(self) -> float:
        """Seconds from asking for the page to its home screen's key line."""
        started = time.perf_counter()
        self.driver.get(self.address)
        self.wait_for(HOME_READY)
        return time.perf_counter() - started

    def wait_for(self, text: str, timeout: float = 120) -> None:
        deadline = time.perf_counter() + timeout
        while text not in self.screen():
            if time.perf_counter() > deadline:
                raise SystemExit(f"gave up waiting for {text!r}; the page shows:\n{self.screen()}")
            time.sleep(0.005)

    def key_to_change(self, key: str, effect: str) -> float:
        """Seconds from sending ``key`` to the page's terminal showing ``effect`` (a regular
        expression), as bench_tmux waits for a key's own effect, not for any change."""
        time.sleep(0.2)  # the page idle, as bench_tmux waits for the pane
        started = time.perf_counter()
        self.driver.find_element("css selector", ".xterm-helper-textarea").send_keys(key)
        deadline = started + 30
        while not re.search(effect, self.screen()):
            if time.perf_counter() > deadline:
                raise SystemExit(f"no {effect!r} after {key!r}; the page shows:\n{self.screen()}")  # fmt: skip
        return time.perf_counter() - started


def cards_left(screen: str) -> int:
    """The drill's count of cards left, as its top line shows it."""
    found = re.search(r"(\d+) left", screen)
    if found is None:
        raise SystemExit(f"no count of cards left on screen:\n{screen}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="page opens and launches, alternated")
    parser.add_argument("--cards", type=int, default=12, help="recall cards in the drill")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kvdrill-bench-browser-") as name:
        folder = Path(name)
        db_url = f"sqlite:///{folder / 'served.db'}"
        env = {"KVDRILL_DATA_DIR": str(folder / "data"), "KVDRILL_DB": db_url,
               "TERM": "xterm-256color", "PYTHONPATH": os.environ.get("PYTHONPATH", "")}  # fmt: skip
        # Its title sorts first on home, where Enter drills the first pack: only recall cards.
        recall_pack(folder / "bench-keys.md", args.cards, title=FIRST_TITLE)
        subprocess.run([*KVDRILL, "import", str(folder / "bench-keys.md")],
                       env=os.environ | env, check=True, capture_output=True)  # fmt: skip
        # Enough new cards for the drill.
        subprocess.run([*KVDRILL, "settings", "new_per_day", str(args.cards)],
                       env=os.environ | env, check=True, capture_output=True)  # fmt: skip
        port = free_port()
        server = subprocess.Popen(
            [*KVDRILL, "serve", "--host", HOST, "--port", str(port)],
            env=os.environ | env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        driver = None
        try:
            while socket.socket().connect_ex((HOST, port)) != 0:
                time.sleep(0.05)
            driver = chromium(folder)
            page = Page(driver, f"http://{HOST}:{port}/")
            print(f"kvdrill serve in headless Chromium beside tmux at 80x24; {load()}")
            page.open()  # warm-up, not counted: the bundled decks' first import
            warm = Pane(KVDRILL, env, folder)
            warm.wait_for(HOME_READY)
            warm.close()
            opens: dict[str, list[float]] = {"browser": [], "terminal": []}
            for _ in range(args.runs):
                opens["browser"].append(page.open())
                pane = Pane(KVDRILL, env, folder)
                opens["terminal"].append(pane.wait_for(HOME_READY))
                pane.close()

            # Both drills started the same way, from the home screen (Enter on the first pack,
            # the generated one), before either answers: the same recall cards in the same
            # order on both sides.
            pane = Pane(KVDRILL, env, folder)
            keys: dict[str, list[float]] = {"browser": [], "tmux": []}
            try:
                page.open()
                page.wait_for(FIRST_TITLE)
                textarea = page.driver.find_element("css selector", ".xterm-helper-textarea")
                textarea.send_keys(Keys.ENTER)
                page.wait_for("left")
                pane.wait_for(FIRST_TITLE)
                pane.key_to_change("Enter", "left")
                pane.wait_for("left")
                left = cards_left(page.screen())
                for _ in range(args.cards // 2 - 1):  # both sessions stay open to the end
                    left -= 1
                    keys["browser"].append(page.key_to_change(" ", REVEALED))
                    keys["tmux"].append(pane.key_to_change("Space", REVEALED))
                    keys["browser"].append(page.key_to_change("4", rf"(?<!\d){left} left"))
                    keys["tmux"].append(pane.key_to_change("4", f"{left} left"))
            finally:
                pane.close()
        finally:
            if driver is not None:
                driver.quit()
            stop_server(server)

    print_header()
    mine, theirs = (statistics.median(opens[side]) for side in ("browser", "terminal"))
    print_row(
        f"`kvdrill serve`: page open -> first screen interactive ({args.runs} runs)",
        milliseconds(mine), f"terminal start {milliseconds(theirs)}", mine / theirs,
        f"<= {OPEN_RATIO}x", mine / theirs <= OPEN_RATIO,
    )  # fmt: skip
    ms = {side: [value * 1e3 for value in values] for side, values in keys.items()}
    shown = {
        side: f"{statistics.median(v):.0f} / {percentile(v, 0.95):.0f} / {max(v):.0f} ms"
        for side, v in ms.items()
    }
    ratio = statistics.median(ms["browser"]) / statistics.median(ms["tmux"])
    print_row(
        f"key -> next card painted in the browser, median / p95 / max ({len(ms['browser'])} keys)",
        shown["browser"], f"tmux {shown['tmux']}", ratio, f"median <= {KEY_RATIO}x tmux",
        ratio <= KEY_RATIO,
    )  # fmt: skip
    print(f"at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
