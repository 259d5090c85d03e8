"""Pausing Python's cyclic garbage collector around work that makes many short-lived objects
and no cycles worth collecting (parsing and storing thousands of cards), in one place."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for the block, back as it was after (also on an error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
