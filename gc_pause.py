"""The one place kvdrill pauses Python's cyclic garbage collector: a speed trick kept out of
domain code. Standard library only, so every layer (the engine included) may use it.

Parsing a big pack, storing thousands of rows and starting the TUI each make hundreds of
thousands of short-lived objects and no reference cycles worth collecting; the collector's
passes over them are pure cost (README, "Benchmarks").
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off; it is on again after, if it was before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def pause_collector() -> None:
    """Turn the collector off until ``resume_collector`` (a pause that spans callbacks, such
    as the TUI's start until its first screen is up)."""
    gc.disable()


def resume_collector() -> None:
    gc.enable()
