"""The suite runs on pytest-xdist workers (a pytest plugin; ``-n auto`` is in pyproject.toml).

``-n auto`` starts two workers per core. A Pilot test sleeps at least 20 ms after every key and
every pause, until the app is idle (Textual's ``wait_for_idle``): test_tui.py and
test_tui_cards.py slept 21.5 s or more for their 34 s of CPU, and a worker asleep leaves its core
idle; so do the tests waiting on a subprocess, the browser or PostgreSQL. The other workers run
in those waits. A fresh clone on 2 idle cores: 186.8 s with three workers, 173.7 s with four.

A parallel run keeps its temporary directories in a short folder of its own (``/tmp/kvt-*``,
removed when the run passes; kept for a look when it fails), each worker in ``gw0``, ``gw1``...
of it: several tests check that an error line shows a path under the 80-character cut whole,
and pytest's ``/tmp/pytest-of-<user>/pytest-<n>/popen-gw0`` is too long for some of them.

Session fixtures run once per worker: the PostgreSQL server (tests/postgres_server.py) is one
cluster per worker, each in its own directory with its own socket.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

_OWN_BASETEMP = pytest.StashKey[Path]()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 * (cores or 1)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Before pytest makes its temp-path factory from ``--basetemp``."""
    worker = getattr(config, "workerinput", {}).get("workerid")
    basetemp = config.option.basetemp
    if worker:
        if basetemp and Path(basetemp).name == f"popen-{worker}":
            config.option.basetemp = str(Path(basetemp).with_name(worker))
    elif basetemp is None and config.getoption("numprocesses", None):
        own = Path(tempfile.mkdtemp(prefix="kvt-"))
        config.stash[_OWN_BASETEMP] = own
        config.option.basetemp = str(own)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    own = session.config.stash.get(_OWN_BASETEMP, None)
    if own is not None and exitstatus == pytest.ExitCode.OK:
        shutil.rmtree(own, ignore_errors=True)
