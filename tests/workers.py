"""The suite runs on pytest-xdist workers (a pytest plugin; ``-n`` is in pyproject.toml).

A parallel run keeps its temporary directories in a short folder of its own (``/tmp/kvt-*``,
removed when the run passes; kept for a look when it fails), each worker in ``gw0``, ``gw1``...
of it: several tests check that an error line shows a path under the 80-character cut whole,
and pytest's ``/tmp/pytest-of-<user>/pytest-<n>/popen-gw0`` is too long for some of them.

Session fixtures run once per worker: the PostgreSQL server (tests/postgres_server.py) is one
cluster per worker, each in its own directory with its own socket.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

_OWN_BASETEMP = pytest.StashKey[Path]()


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
