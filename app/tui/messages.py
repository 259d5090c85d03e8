"""What worker threads send back to the screen (or the app) that started them.

Every call that may touch the database runs in a ``@work(thread=True)`` worker. When it is done,
the worker posts one of these messages to its own screen with ``self.post_message(...)`` (safe
from any thread), and the screen's ``on_<message_name>`` handler updates the widgets. So a key
press reads, in code: ``action_x`` -> worker -> service call -> message -> ``on_...`` handler.

Only Textual and the standard library are imported here at run time: the first screen paints
before the store is loaded.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from kvdrill.app.services.drill import DrillSession
    from kvdrill.app.services.drill_steps import Done
    from kvdrill.app.services.importing import ImportScan
    from kvdrill.app.services.overview import Overview
    from kvdrill.engine.packs.card_view import DrillState
    from kvdrill.engine.study.stats_report import GroupReport, StatsReport


class WorkerResult(Message):
    """A worker's answer to the screen that started it: handled there, never bubbled on."""

    def __init_subclass__(cls, **options: Any) -> None:
        super().__init_subclass__(**{"bubble": False, **options})


# --- any screen -----------------------------------------------------------------------------


@dataclass
class CallFailed(WorkerResult):
    """A call raised; the screen shows ``error`` in one sentence, never a traceback."""

    error: Exception


@contextmanager
def failures_reported(screen: MessagePump) -> Iterator[None]:
    """Run a worker's body; an exception in it reaches ``screen`` as ``CallFailed``."""
    try:
        yield
    except Exception as error:  # noqa: BLE001 - shown to the learner, never a traceback
        screen.post_message(CallFailed(error))


# --- the app --------------------------------------------------------------------------------


@dataclass
class ThemeLoaded(WorkerResult):
    """The profile's saved theme, ``"light"`` or ``"dark"``."""

    theme: str


@dataclass
class ThemeNotSaved(WorkerResult):
    error: Exception


# --- home -----------------------------------------------------------------------------------


@dataclass
class OverviewLoaded(WorkerResult):
    overview: Overview


# --- drill ----------------------------------------------------------------------------------


@dataclass
class FirstCardRead(WorkerResult):
    """The fast-start helper's first card, to show while the session opens."""

    state: DrillState


@dataclass
class SessionOpened(WorkerResult):
    session: DrillSession
    state: DrillState


@dataclass
class SessionFailed(WorkerResult):
    """Today's session could not be opened (an unknown pack, an unreadable database...)."""

    error: Exception


class BundledDecksUpdated(WorkerResult):
    """A release changed the bundled decks and they were imported again."""


@dataclass
class CallDone(WorkerResult):
    """A drill session call (app/services/drill_steps.py) returned ``done``, or raised
    ``error`` (then ``done`` is None): the screen shows it in one sentence."""

    done: Done | None
    error: Exception | None


# --- import ---------------------------------------------------------------------------------


@dataclass
class ImportScanned(WorkerResult):
    scan: ImportScan


@dataclass
class ImportProgress(WorkerResult):
    done: int
    total: int


@dataclass
class ImportDone(WorkerResult):
    scan: ImportScan


# --- stats ----------------------------------------------------------------------------------


@dataclass
class ReportLoaded(WorkerResult):
    report: StatsReport


@dataclass
class ChartsLoaded(WorkerResult):
    """The stats charts (engine/study/charts.py ``ChartData``)."""

    charts: Any


@dataclass
class GroupReportLoaded(WorkerResult):
    report: GroupReport


# --- the card browser and a card's page ---------------------------------------------------


@dataclass
class CardsListed(WorkerResult):
    """The browser's cards (``BrowsedCard``) on the study day ``today``, from the ``offset``-th
    match on, of ``total`` matches; ``listing`` names the request (a later one wins)."""

    today: Any
    cards: list[Any]
    total: int = 0
    offset: int = 0
    listing: int = 0


@dataclass
class FilterChoicesLoaded(WorkerResult):
    """What each browser filter can be set to: filter name -> values."""

    choices: dict[str, list[str]]


@dataclass
class CardPageLoaded(WorkerResult):
    """A card's page (``CardPage``) on the study day ``today``."""

    today: Any
    page: Any


# --- settings -------------------------------------------------------------------------------


@dataclass
class SettingsLoaded(WorkerResult):
    """The profile's settings (``ProfileSettings``); ``changed`` names the one just saved."""

    settings: Any
    changed: str | None = None
