"""Old names of what the TUI uses, forwarded to app/services/ until the screens import from there.

No SQL and no store here: ``Backend`` is ``app.services.backend.Services``. What the UI can
switch to, then delete this module:

- ``app.services.backend.Services`` (was ``Backend``), plus ``stats_report(days)`` for the stats
  screen (then ``store.stats.load_report``, a shim, goes), ``settings()``,
  ``change_settings(**changes)``, ``unsuspend(ref)``, ``suspended_cards()``, ``close()``;
- ``app.services.overview.Overview``/``PackLine``, ``app.services.importing.ImportScan``/``PackDiff``;
- ``app.services.environment``: ``now()`` (was ``clock_now``), ``clock_is_set()`` (instead of
  reading ``KVDRILL_NOW``), ``first_card_file()`` (instead of ``KVDRILL_FIRST_CARD_FILE``);
- ``engine.packs.card_view``: ``CardView``/``ChoiceView`` (typed cards: ``choice.letter``,
  ``card.correct_letters``), ``CHOICE_LETTERS`` (one per ``MAX_CHOICES``), ``DrillState``;
  ``app.first_card.FirstCard.read_state()`` gives a ``DrillState`` with a typed card;
- ``engine.study.settings.DEFAULT_ANSWER_SECONDS`` for the countdown's 60 seconds;
- ``engine.study.rules.LEECH_LAPSES`` for "missed N times".
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
