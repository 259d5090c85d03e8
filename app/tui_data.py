"""Old names of what the TUI uses, forwarded to app/services/ until the screens import from there.

No SQL and no store here: ``Backend`` is ``app.services.backend.Services``.
"""

from __future__ import annotations

from kvdrill.app.services import environment
from kvdrill.app.services.backend import Services as Backend
from kvdrill.app.services.importing import ImportScan, PackDiff
from kvdrill.app.services.overview import (
    WEAK_TOPICS_SHOWN,
    WEAK_WINDOW_DAYS,
    Overview,
    PackLine,
    load_overview,
)

clock_now = environment.now

__all__ = [
    "WEAK_TOPICS_SHOWN",
    "WEAK_WINDOW_DAYS",
    "Backend",
    "ImportScan",
    "Overview",
    "PackDiff",
    "PackLine",
    "clock_now",
    "load_overview",
]
