"""Test tiers (a pytest plugin): every test is exactly one of ``unit``, ``store`` or ``e2e``.

- ``unit``: pure engine and app logic, no database, no subprocess, no Textual app (seconds).
- ``store``: a real database, SQLite and in modules marked both_backends PostgreSQL too.
- ``e2e``: the app whole: Textual Pilot and snapshots, ``kvdrill`` in a subprocess, tmux, the
  browser, Anki's own library, the built wheel.

A test takes the tier marked on it, its class or its module (``pytestmark = pytest.mark.e2e``);
unmarked, it is ``e2e`` when its module is listed in E2E_MODULES, it is a coroutine (a Pilot
test), it uses an end-to-end fixture or its own code names ``subprocess``; ``store`` when its
module is in STORE_MODULES or it uses a database fixture; and ``unit`` otherwise. ``pytest -m unit`` is the inner loop; the README's
command runs all three. A ``unit`` test that opens a SQLite database or starts a process fails
at teardown, naming the tier it belongs to, so the tiers stay what they say.

Modules whose costly module-scoped fixture must be built once run on one xdist worker
(ONE_WORKER_MODULES), and start first, then the modules of long single tests
(LONG_POLE_MODULES), so that the slowest work does not come last.
"""

from __future__ import annotations

import functools
import inspect
import sqlite3
import subprocess
import types
from collections.abc import Iterator

import pytest

TIERS = {
    "unit": "pure engine and app logic: no database, no subprocess, no Textual app",
    "store": "a real database (SQLite; PostgreSQL too in both_backends modules)",
    "e2e": "the app whole: Pilot, snapshots, subprocesses, tmux, the browser, Anki, the wheel",
}

# Every test of these modules drives the app from outside or through Anki's own library.
E2E_MODULES = {
    "test_cli",
    "test_contracts",
    "test_db_faults",
    "test_e2e_calc",
    "test_e2e_vi",
    "test_interop_anki",
    "test_kill",
    "test_serve_browser",
    "test_serve_limits",
    "test_tui_snapshots",
    "test_types",
    "test_wheel",
}
# Tests of these modules open databases of their own (no db_url fixture), or run the command
# line in this process on a database.
STORE_MODULES = {
    "test_anki_malformed",
    "test_answer_shortcuts",
    "test_backup",
    "test_card_content",
    "test_cli_garbage",
    "test_db",
    "test_doctor",
    "test_fresh_schema",
    "test_import_cli",
    "test_import_rollups",
    "test_interop",
    "test_optimize",
    "test_small_faults",
    "test_sqlite_import",
}
E2E_FIXTURES = {"snap_compare"}
STORE_FIXTURES = {"db_url", "backend", "postgres_cluster", "postgres_url"}
# Built once per run, in the module's fixture (the wheel, Chromium): its tests share one worker.
ONE_WORKER_MODULES = {"test_serve_browser", "test_wheel"}
# Handed out right after those: single tests of many seconds (mypy, two drills racing, the
# browser), so that none of them starts last and runs alone while the other worker idles.
LONG_POLE_MODULES = {"test_types", "test_kill", "test_serve_limits", "test_serve_browser"}


def pytest_configure(config: pytest.Config) -> None:
    for tier, meaning in TIERS.items():
        config.addinivalue_line("markers", f"{tier}: test tier: {meaning}")


def tier_of(item: pytest.Item) -> str:
    marked = {mark.name for mark in item.iter_markers() if mark.name in TIERS}
    if len(marked) > 1:
        raise pytest.UsageError(f"{item.nodeid} is marked with more than one tier: {marked}")
    if marked:
        return marked.pop()
    module = module_name(item)
    fixtures = set(getattr(item, "fixturenames", ()))
    function = getattr(item, "function", None)
    if (
        module in E2E_MODULES
        or fixtures & E2E_FIXTURES
        or inspect.iscoroutinefunction(function)
        or _starts_a_process(function)
    ):
        return "e2e"
    if module in STORE_MODULES or fixtures & STORE_FIXTURES:
        return "store"
    return "unit"


def _starts_a_process(function: object) -> bool:
    code = getattr(function, "__code__", None)
    return code is not None and "subprocess" in _names_used(code)


@functools.cache
def _names_used(code: types.CodeType) -> frozenset[str]:
    """The global and attribute names a function's code uses, its nested functions' included
    (the same tiers as searching its source for the word, without reading and tokenizing the
    source of each of the suite's 2,500 tests in every worker)."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names_used(constant)
    return frozenset(names)


def module_name(item: pytest.Item) -> str:
    module = getattr(item, "module", None)
    return module.__name__.rpartition(".")[2] if module else ""


# First: before -m selects by marker and before xdist reads the groups.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item)
        if not item.get_closest_marker(tier):
            item.add_marker(tier)
        module = module_name(item)
        if module in ONE_WORKER_MODULES:
            item.add_marker(pytest.mark.xdist_group(module))
    # The one-worker modules first: a worker takes them while the other runs everything else.
    items.sort(
        key=lambda item: (
            item.get_closest_marker("xdist_group") is None,
            module_name(item) not in LONG_POLE_MODULES,
        )
    )


@pytest.fixture(autouse=True)
def unit_tier_stays_pure(request: pytest.FixtureRequest) -> Iterator[None]:
    """A unit test may open no SQLite database and start no process (it runs as it would,
    and fails at teardown with the tier it belongs in)."""
    if not request.node.get_closest_marker("unit"):
        yield
        return
    used: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        for module in (sqlite3, sqlite3.dbapi2):
            patch.setattr(module, "connect", _noting(module.connect, used, "store"))
        start = subprocess.Popen._execute_child  # every subprocess function comes here
        patch.setattr(subprocess.Popen, "_execute_child", _noting(start, used, "e2e"))
        yield
    if used:
        tier = "e2e" if "e2e" in used else "store"
        what = "started a process" if tier == "e2e" else "opened a SQLite database"
        pytest.fail(
            f"this test is in the unit tier but {what}: mark it "
            f"pytest.mark.{tier} (or add its module to tests/tiers.py)",
            pytrace=False,
        )


def _noting(function, used: list[str], tier: str):
    def noted(*args, **kwargs):
        used.append(tier)
        return function(*args, **kwargs)

    return noted
