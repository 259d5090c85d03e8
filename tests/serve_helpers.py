"""Running ``kvdrill serve`` in tests: stopping it and every app process it started."""

from __future__ import annotations

import os
import signal
import subprocess
from contextlib import suppress


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM to the server's process group (started with ``start_new_session``), then SIGKILL
    if it has not gone within 15 s."""
    with suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=15)
