"""``kvdrill serve`` in headless Chromium (Selenium) beside the same app in a tmux pane, and the
bare Textual app served and in tmux as their floor, in one run.

    .venv/bin/python scripts/bench_browser.py [--runs 3] [--cards 12]

Rows (the README's benchmark table):
- page open to the first screen interactive (the home screen's key line in the page's
  terminal) beside the same app started in a terminal (scripts/bench_tmux.py's launch to the
  home screen), alternated; target at most 2x;
- key press to the next card painted: in a drill, space (reveal) then 4 (grade) on recall
  cards, from just before Selenium sends the key to the page's terminal showing the key's
  effect (the reveal's heading, the next count of cards left), beside the same key sent to
  the drill in tmux, key by key; target median at most 2x tmux.

The floor under both rows: scripts/bare_textual_app.py served by the same textual-serve server
(app/web_server.py's ``KvdrillServer``, as ``kvdrill serve`` builds it) and opened in the same
Chromium, alternated with kvdrill's page opens and keys, and in tmux beside it (the bare app
repaints its line on every key). Rows: kvdrill in the browser vs the bare app in the browser
(what kvdrill adds), and the bare app in the browser vs in tmux (what the browser path itself
costs, whatever the app).

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
from bench_tmux import (
    BARE_APP,
    BARE_READY,
    HOME_READY,
    KVDRILL,
    REVEALED,
    Pane,
    percentile,
    recall_pack,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from selenium.webdriver.common.keys import Keys  # noqa: E402
from serve_helpers import stop_server  # noqa: E402
from test_serve_browser import CATCH_TERMINAL, CHROMEDRIVER, CHROMIUM, SCREEN_TEXT  # noqa: E402

HOST = "127.0.0.1"
FIRST_TITLE = "A key benchmark"
OPEN_RATIO, KEY_RATIO = 2.0, 2.0
# The bare app served as ``kvdrill serve`` serves kvdrill: the same server class, bound the same
# way, one app process per tab.
SERVE_BARE = """
import shlex, sys
from kvdrill.app.web_server import KvdrillServer, bind
*command, host, port = sys.argv[1:]
KvdrillServer(shlex.join(command), bind(host, int(port)), f"http://{host}:{port}", 8).serve()
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def chromium(folder: Path, profile: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1280,900", f"--user-data-dir={folder / profile}"):  # fmt: skip
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

    def open(self, ready: str = HOME_READY) -> float:
        """Seconds from asking for the page to ``ready`` (the home screen's key line)."""
        started = time.perf_counter()
        self.driver.get(self.address)
        self.wait_for(ready)
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


def start_server(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """A server started with ``argv`` plus its host and port, and its address once it listens."""
    port = free_port()
    server = subprocess.Popen(
        [*argv, HOST, str(port)] if argv[1] == "-c" else [*argv, "--host", HOST, "--port", str(port)],
        env=os.environ | env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    return server, f"http://{HOST}:{port}/"


def wait_listening(address: str) -> None:
    port = int(address.rstrip("/").rsplit(":", 1)[1])
    while socket.socket().connect_ex((HOST, port)) != 0:
        time.sleep(0.05)


def ratio_row(
    row: str, mine: list[float], theirs: list[float], anchor: str, limit: float, keys: bool
) -> None:
    """One row: medians (seconds) of ``mine`` against ``theirs``; keys also show p95 and max."""

    def shown(values: list[float]) -> str:
        if not keys:
            return milliseconds(statistics.median(values))
        ms = [value * 1e3 for value in values]
        return f"{statistics.median(ms):.0f} / {percentile(ms, 0.95):.0f} / {max(ms):.0f} ms"

    ratio = statistics.median(mine) / statistics.median(theirs)
    target = f"median <= {limit}x" if keys else f"<= {limit}x"
    print_row(row, shown(mine), f"{anchor} {shown(theirs)}", ratio, target, ratio <= limit)


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
        server, address = start_server([*KVDRILL, "serve"], env)
        bare_server, bare_address = start_server([sys.executable, "-c", SERVE_BARE, *BARE_APP], env)
        drivers = []
        try:
            wait_listening(address)
            wait_listening(bare_address)
            # One Chromium per page, so both stay open and in front through the key rows.
            drivers.append(chromium(folder, "chromium"))
            drivers.append(chromium(folder, "chromium-bare"))
            page, bare_page = Page(drivers[0], address), Page(drivers[1], bare_address)
            print(f"kvdrill serve and the bare app served, in headless Chromium beside tmux at 80x24; {load()}")  # fmt: skip
            # Warm-ups, not counted: the bundled decks' first import, bytecode caches.
            page.open()
            bare_page.open(BARE_READY)
            for argv, ready in ((KVDRILL, HOME_READY), (BARE_APP, BARE_READY)):
                warm = Pane(argv, env, folder)
                warm.wait_for(ready)
                warm.close()
            opens: dict[str, list[float]] = {side: [] for side in ("browser", "terminal", "bare browser", "bare terminal")}  # fmt: skip
            for _ in range(args.runs):
                opens["browser"].append(page.open())
                pane = Pane(KVDRILL, env, folder)
                opens["terminal"].append(pane.wait_for(HOME_READY))
                pane.close()
                opens["bare browser"].append(bare_page.open(BARE_READY))
                pane = Pane(BARE_APP, env, folder)
                opens["bare terminal"].append(pane.wait_for(BARE_READY))
                pane.close()

            # Both drills started the same way, from the home screen (Enter on the first pack,
            # the generated one), before either answers: the same recall cards in the same
            # order on both sides. The bare app takes the same keys, each repainting its line.
            pane = Pane(KVDRILL, env, folder)
            bare_pane = Pane(BARE_APP, env, folder)
            keys: dict[str, list[float]] = {side: [] for side in ("browser", "tmux", "bare browser", "bare tmux")}  # fmt: skip
            try:
                page.open()
                page.wait_for(FIRST_TITLE)
                textarea = page.driver.find_element("css selector", ".xterm-helper-textarea")
                textarea.send_keys(Keys.ENTER)
                page.wait_for("left")
                pane.wait_for(FIRST_TITLE)
                pane.key_to_change("Enter", "left")
                pane.wait_for("left")
                bare_page.open(BARE_READY)
                bare_pane.wait_for(BARE_READY)
                left = cards_left(page.screen())
                for _ in range(args.cards // 2 - 1):  # both sessions stay open to the end
                    left -= 1
                    for sent, pressed, name, on_page, in_pane in (
                        (" ", "Space", "space", REVEALED, REVEALED),
                        ("4", "4", "4", rf"(?<!\d){left} left", f"{left} left"),
                    ):
                        bare_effect = f"(key {name!r} at"
                        keys["browser"].append(page.key_to_change(sent, on_page))
                        keys["tmux"].append(pane.key_to_change(pressed, in_pane))
                        keys["bare browser"].append(
                            bare_page.key_to_change(sent, re.escape(bare_effect))
                        )
                        keys["bare tmux"].append(bare_pane.key_to_change(pressed, bare_effect))
            finally:
                pane.close()
                bare_pane.close()
        finally:
            for driver in drivers:
                driver.quit()
            stop_server(server)
            stop_server(bare_server)

    print_header()
    opened = f"page open -> first screen ({args.runs} runs)"
    ratio_row(f"`kvdrill serve`: {opened}", opens["browser"], opens["terminal"], "terminal start", OPEN_RATIO, keys=False)  # fmt: skip
    ratio_row(f"what kvdrill adds: {opened}, vs the bare app served", opens["browser"], opens["bare browser"], "bare app served", OPEN_RATIO, keys=False)  # fmt: skip
    ratio_row(f"the floor: the bare app's {opened}, vs its terminal start", opens["bare browser"], opens["bare terminal"], "bare app in tmux", OPEN_RATIO, keys=False)  # fmt: skip
    counted = f"median / p95 / max ({len(keys['browser'])} keys)"
    ratio_row(f"key -> next card painted in the browser, {counted}", keys["browser"], keys["tmux"], "tmux", KEY_RATIO, keys=True)  # fmt: skip
    ratio_row(f"what kvdrill adds: key -> painted in the browser, vs the bare app served, {counted}", keys["browser"], keys["bare browser"], "bare app served", KEY_RATIO, keys=True)  # fmt: skip
    ratio_row(f"the floor: the bare app's key -> painted in the browser, vs in tmux, {counted}", keys["bare browser"], keys["bare tmux"], "bare app in tmux", KEY_RATIO, keys=True)  # fmt: skip
    print(f"at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
