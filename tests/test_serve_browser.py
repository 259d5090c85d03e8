"""``kvdrill serve`` driven by a real headless browser: Debian's Chromium through chromedriver and
Selenium. The page is loaded, the home screen read, a drill started, a card graded, and the
review found in the database.

The page draws the app on a canvas (xterm.js), so the test reads what the browser's terminal
holds: a script installed before the page's own catches the page's xterm.js ``Terminal`` as it is
created, and the test reads the lines of its screen buffer.

Where Chromium, chromedriver, Selenium or textual-serve are missing the test says so and skips;
with ``KVDRILL_REQUIRE_BROWSER=1`` (set by .ci/run) it fails instead. Only loopback is used,
every wait is bounded, and the server is stopped at the end.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from serve_helpers import stop_server
from sqlalchemy import select

from kvdrill.app.services.importing import import_bundled
from kvdrill.store.db import open_database
from kvdrill.store.models import ReviewLog

CHROMIUM = os.environ.get("KVDRILL_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("KVDRILL_CHROMEDRIVER", "/usr/bin/chromedriver")
SERVER_START_S = 60
SCREEN_WAIT_S = 90  # the first start imports the bundled packs
HOST = "127.0.0.1"

# Runs before the page's scripts: the page assigns its terminal to ``this.terminal``; an
# accessor on Object.prototype sees that first assignment and keeps the Terminal.
CATCH_TERMINAL = """
window.__terminals = [];
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true});
    if (value && value.buffer) window.__terminals.push(value);
  },
});
"""
SCREEN_TEXT = """
const terminal = window.__terminals[0];
if (!terminal) return "";
const buffer = terminal.buffer.active, lines = [];
for (let row = 0; row < terminal.rows; row++) {
  const line = buffer.getLine(buffer.viewportY + row);
  lines.push(line ? line.translateToString(true) : "");
}
return lines.join("\\n");
"""


def missing(reason: str) -> None:
    if os.environ.get("KVDRILL_REQUIRE_BROWSER") == "1":
        pytest.fail(f"the browser test is required here but {reason}")
    pytest.skip(f"no headless browser for this test: {reason}")


def free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def wait_for(condition: Callable[[], object], seconds: float, what: str) -> object:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.25)
    raise AssertionError(f"gave up after {seconds}s waiting for {what}")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """``kvdrill serve`` on a free loopback port and a temp database: (page URL, database URL)."""
    yield from serve(tmp_path, {})


@pytest.fixture
def served_three_due(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """``kvdrill serve`` on a database whose first three cards of the day are recall cards:
    three-recall's, answered Good ten days before the served app's KVDRILL_NOW, and no new card
    (the bundled decks, stored here before the server starts as a first start would store
    them, would otherwise join the session). The served app then has nothing to import."""
    from tui_helpers import import_fixture

    from kvdrill.app.cli import main
    from kvdrill.app.services.drill import DrillSession

    db_url = import_fixture(f"sqlite:///{tmp_path / 'served.db'}", "../three-recall")
    database = open_database(db_url)
    session = DrillSession.open(database, now=datetime(2026, 3, 2, 9))
    while session.current is not None:
        session.grade(4)
    import_bundled(database, datetime(2026, 3, 2, 9))
    database.close()
    assert main(["--db", db_url, "settings", "new_per_day", "0"]) == 0
    yield from serve(tmp_path, {"KVDRILL_NOW": "2026-03-12T09:00:00"})


# A 1x1 PNG, the image the served card shows.
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082"
)
IMAGE_PACK = """---
pack: roofline-plot
title: Roofline plot
version: 1
---

## The plot {#plot}

### Prompt
Where does decode sit on this plot? ![roofline plot](figures/roofline.png)

### Answer
Far left: memory bound.
"""


@pytest.fixture
def served_image_card(tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    """``kvdrill serve`` on a database whose one due card shows an image of a hand-written pack,
    referenced by its path from the pack file (answered ten days before the served app's
    KVDRILL_NOW; no new card)."""
    from kvdrill.app.cli import main
    from kvdrill.app.services.drill import DrillSession

    pack = tmp_path / "plot.md"
    pack.write_text(IMAGE_PACK, encoding="utf-8")
    (tmp_path / "figures").mkdir()
    image = tmp_path / "figures" / "roofline.png"
    image.write_bytes(TINY_PNG)
    db_url = f"sqlite:///{tmp_path / 'served.db'}"
    assert main(["--db", db_url, "import", str(pack)]) == 0
    database = open_database(db_url)
    session = DrillSession.open(database, now=datetime(2026, 3, 2, 9))
    while session.current is not None:
        session.grade(4)
    import_bundled(database, datetime(2026, 3, 2, 9))
    database.close()
    assert main(["--db", db_url, "settings", "new_per_day", "0"]) == 0
    for address, url in serve(tmp_path, {"KVDRILL_NOW": "2026-03-12T09:00:00"}):
        yield address, url, image


def serve(tmp_path: Path, extra_env: dict[str, str]) -> Iterator[tuple[str, str]]:
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        missing("textual-serve is not installed (pip install 'kvdrill[serve]')")
    db_url = f"sqlite:///{tmp_path / 'served.db'}"
    port = free_loopback_port()
    data = str(tmp_path / "data")
    env = {**os.environ, "KVDRILL_DATA_DIR": data, "KVDRILL_DB": db_url, **extra_env}
    server = subprocess.Popen(
        [sys.executable, "-m", "kvdrill.app", "serve", "--host", HOST, "--port", str(port)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=open(tmp_path / "serve.log", "w"),  # noqa: SIM115 - closed with the process
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its app processes are stopped with it
    )
    try:

        def listening() -> bool:
            with socket.socket() as probe:
                return probe.connect_ex((HOST, port)) == 0

        wait_for(lambda: listening() or server.poll() is not None, SERVER_START_S, "the server")
        assert server.poll() is None, (tmp_path / "serve.log").read_text()
        yield f"http://{HOST}:{port}/", db_url
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory):
    """One headless Chromium for the module's tests (starting one costs more CPU than a test's
    drill); ``browser`` gives each test a clean window of it."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        missing(
            f"{CHROMIUM} or {CHROMEDRIVER} is missing (apt-get install chromium chromium-driver)"
        )
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing("selenium is not installed (pip install 'kvdrill[test]')")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CATCH_TERMINAL})
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(chromium):
    """The module's Chromium on a blank page in one window; the windows a test opened are
    closed after it (and the page it left, so its websocket and app go)."""
    first = chromium.window_handles[0]
    chromium.switch_to.window(first)
    try:
        yield chromium
    finally:
        for handle in chromium.window_handles:
            if handle != first:
                chromium.switch_to.window(handle)
                chromium.close()
        chromium.switch_to.window(first)
        chromium.get("about:blank")


class Page:
    """The served app as the browser shows it: its screen's text, and keys typed into it."""

    def __init__(self, browser) -> None:
        self.browser = browser

    def screen(self) -> str:
        return self.browser.execute_script(SCREEN_TEXT) or ""

    def wait_to_see(self, *words: str, what: str) -> None:
        try:
            wait_for(lambda: all(word in self.screen() for word in words), SCREEN_WAIT_S, what)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the browser shows:\n{self.screen()}") from None

    def press(self, keys: str) -> None:
        """``keys`` typed in one go, as fast as the browser sends them."""
        self.browser.find_element("css selector", ".xterm-helper-textarea").send_keys(keys)


def reviews(db_url: str) -> list[tuple[int, str]]:
    database = open_database(db_url)
    try:
        with database.session() as session:
            return session.execute(select(ReviewLog.quality, ReviewLog.graded_by)).all()
    finally:
        database.close()


def test_a_browser_drills_a_card_and_the_review_lands_in_the_database(served, browser) -> None:
    address, db_url = served
    browser.get(address)
    page = Page(browser)
    page.wait_to_see("kvdrill", "Drill", "Stats", "due", what="the home screen with its packs")
    page.press("d")
    page.wait_to_see("Reveal", "left", what="the first card")
    page.press(" ")
    page.wait_to_see("Again", "Good", what="the grades")
    page.press("3")  # Good: quality 4
    logged = wait_for(lambda: reviews(db_url), SCREEN_WAIT_S, "the review in the database")
    assert logged == [(4, "self")]


def test_a_burst_of_keys_in_the_browser_logs_every_review(served_three_due, browser) -> None:
    """ "space 4" three times in one burst of keystrokes: none is dropped while an answer commits."""
    address, db_url = served_three_due
    browser.get(address)
    page = Page(browser)
    page.wait_to_see("kvdrill", "Drill", what="the home screen")
    page.press("d")
    page.wait_to_see("Bytes of one", "Reveal", what="the first due card")
    page.press(" 4 4 4")

    def three_more() -> list[tuple[int, str]] | None:
        logged = reviews(db_url)  # the first three are the day-one answers
        return logged[3:] if len(logged) >= 6 else None

    assert wait_for(three_more, SCREEN_WAIT_S, "three more reviews") == [(5, "self")] * 3
    page.wait_to_see("Session done", "Cards done       3", what="the summary of the three")


# Where the first screen line holding ``text`` is, in CSS pixels from the terminal's centre.
CELL_OFFSET = """
const terminal = window.__terminals[0], text = arguments[0];
const screen = document.querySelector(".xterm-screen").getBoundingClientRect();
const buffer = terminal.buffer.active;
for (let row = 0; row < terminal.rows; row++) {
  const line = buffer.getLine(buffer.viewportY + row);
  const column = line ? line.translateToString(true).indexOf(text) : -1;
  if (column >= 0) {
    const width = screen.width / terminal.cols, height = screen.height / terminal.rows;
    return [(column + 3.5) * width - screen.width / 2, (row + 0.5) * height - screen.height / 2];
  }
}
return null;
"""


def test_clicking_a_cards_image_line_shows_the_image_in_a_browser_tab(
    served_image_card, browser
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    address, _db_url, image = served_image_card
    browser.get(address)
    page = Page(browser)
    page.wait_to_see("kvdrill", "Drill", what="the home screen")
    page.press("d")
    page.wait_to_see("Where does decode sit", "[image: roofline plot:", what="the image's line")
    assert str(image.parent) in page.screen().replace("\n", "")
    offset = browser.execute_script(CELL_OFFSET, "[image: roofline plot:")
    screen = browser.find_element("css selector", ".xterm-screen")
    ActionChains(browser).move_to_element_with_offset(screen, *offset).click().perform()
    wait_for(lambda: len(browser.window_handles) == 2, SCREEN_WAIT_S, "the image's tab")
    browser.switch_to.window(browser.window_handles[1])
    shown = wait_for(
        lambda: browser.execute_script(
            "const img = document.querySelector('img');"
            "return img && img.complete ? [document.contentType, img.naturalWidth] : null;"
        ),
        SCREEN_WAIT_S,
        "the image in its tab",
    )
    assert shown == ["image/png", 1]
    assert browser.current_url.startswith(address + "download/")


def test_only_loopback_addresses_are_served_without_a_warning() -> None:
    from kvdrill.app.commands.serve import is_loopback

    assert all(
        is_loopback(host) for host in ("127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost")
    )
    assert not any(is_loopback(host) for host in ("0.0.0.0", "::", "192.168.1.5", "example.org"))
