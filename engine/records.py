"""Building a frozen dataclass from values already checked, on the paths that make many.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, a call per
field. The pack parser's fast path (a card at a time), the answer path (the given answer, the
schedules and the next card's view) and nothing else build records often enough for that to
count.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def unchecked(cls: type[T], values: dict[str, Any]) -> T:
    """``cls(**values)`` for ``values`` holding every field of ``cls`` (a plain, non-slots
    dataclass), without its ``__init__``: no defaults filled in, no ``__post_init__``."""
    record = object.__new__(cls)
    record.__dict__.update(values)
    return record
