"""CPU spent per test and per fixture set-up (a pytest plugin, off unless asked).

``pytest --cpu-profile=DIR`` writes one JSON-lines file per process (``DIR/gw0.jsonl``, ...,
or ``DIR/main.jsonl`` under ``-n0``): a row per test with the CPU seconds of its set-up, call and
teardown, this process's own (``time.process_time``) plus that of the child processes it
waited for (``RUSAGE_CHILDREN`` user + sys), a row per fixture set-up with its own CPU, and a
closing row with the worker's wall time. Wall time on a shared machine says little; CPU does.
``scripts/suite_profile.py`` runs the suite this way and lists the long poles.
"""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path
from typing import IO

import pytest

_OUT = pytest.StashKey[IO[str]]()
_STARTED = pytest.StashKey[tuple[float, float, float]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-profile",
        metavar="DIR",
        help="write each test's and each fixture set-up's CPU seconds (children included) "
        "to DIR/<worker>.jsonl (scripts/suite_profile.py reads them)",
    )


def cpu_now() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _write(config: pytest.Config, row: dict) -> None:
    out = config.stash.get(_OUT, None)
    if out is not None:
        out.write(json.dumps(row) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    directory = config.getoption("--cpu-profile", None)
    if not directory:
        return
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker is None and config.getoption("numprocesses", None):
        return  # the xdist controller runs no test
    Path(directory).mkdir(parents=True, exist_ok=True)
    config.stash[_OUT] = open(Path(directory) / f"{worker or 'main'}.jsonl", "w")  # noqa: SIM115
    config.stash[_STARTED] = (time.time(), time.monotonic(), cpu_now())


def pytest_unconfigure(config: pytest.Config) -> None:
    out = config.stash.get(_OUT, None)
    if out is None:
        return
    wall_start, monotonic_start, cpu_start = config.stash[_STARTED]
    _write(
        config,
        {
            "kind": "worker",
            "start": wall_start,
            "wall": time.monotonic() - monotonic_start,
            "cpu": cpu_now() - cpu_start,
            "load": os.getloadavg(),
        },
    )
    out.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if item.config.stash.get(_OUT, None) is None:
        yield
        return
    item.stash[_PHASES] = {}
    start, wall = cpu_now(), time.monotonic()
    yield
    phases = item.stash[_PHASES]
    _write(
        item.config,
        {
            "kind": "test",
            "id": item.nodeid,
            "cpu": cpu_now() - start,
            "wall": time.monotonic() - wall,
            "ended": time.time(),
            **phases,
        },
    )


_PHASES = pytest.StashKey[dict[str, float]]()


def _timed_phase(item: pytest.Item, name: str):
    if item.config.stash.get(_OUT, None) is None:
        yield
        return
    start = cpu_now()
    yield
    item.stash[_PHASES][name] = cpu_now() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    yield from _timed_phase(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    yield from _timed_phase(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item):
    yield from _timed_phase(item, "teardown")


# Fixtures set up inside another's set-up (its own arguments): the outer one's "self" leaves
# them out, so the rows add up.
_NESTED: list[float] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest):
    config = request.config
    if config.stash.get(_OUT, None) is None:
        yield
        return
    start = cpu_now()
    _NESTED.append(0.0)
    try:
        yield
    finally:
        nested = _NESTED.pop()
        total = cpu_now() - start
        if _NESTED:
            _NESTED[-1] += total
    _write(
        config,
        {
            "kind": "fixture",
            "name": fixturedef.argname,
            "scope": fixturedef.scope,
            "test": request.node.nodeid,
            "cpu": total,
            "self": total - nested,
        },
    )
