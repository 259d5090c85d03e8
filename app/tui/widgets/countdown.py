"""A pausable countdown: the time to answer out loud before revealing."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from kvdrill.engine.study.settings import DEFAULT_ANSWER_SECONDS


class Countdown(Static):
    """Counts down from ``seconds``; ``p`` pauses. It also measures the active time spent.

    ``clock`` is a monotonic clock in seconds (injectable so tests and snapshots can freeze it).
    """

    remaining: reactive[float] = reactive(0.0)
    paused: reactive[bool] = reactive(False)

    def __init__(
        self,
        seconds: int = DEFAULT_ANSWER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.length = max(1, int(seconds))
        self._spent_before = 0.0
        self._running_since: float | None = None
        self._stopped = True

    def on_mount(self) -> None:
        self.set_interval(0.25, self._tick)
        self._show()

    def restart(self, seconds: int | None = None) -> None:
        """Start again from the full length (a new card)."""
        if seconds is not None:
            self.length = max(1, int(seconds))
        self._spent_before = 0.0
        self._running_since = self.clock()
        self._stopped = False
        self.paused = False
        self._tick()

    def stop(self) -> None:
        """Freeze the count (the answer is revealed); ``spent`` stays readable."""
        self._spent_before = self.spent
        self._running_since = None
        self._stopped = True
        self._tick()

    def toggle_pause(self) -> bool:
        """Pause or resume; returns whether it is now paused."""
        if self._stopped:
            return self.paused
        if self.paused:
            self._running_since = self.clock()
            self.paused = False
        else:
            self._spent_before = self.spent
            self._running_since = None
            self.paused = True
        self._tick()
        return self.paused

    @property
    def spent(self) -> float:
        """Seconds of active (not paused) time since the card appeared."""
        running = 0.0 if self._running_since is None else self.clock() - self._running_since
        return self._spent_before + max(0.0, running)

    def _tick(self) -> None:
        self.remaining = max(0.0, self.length - self.spent)

    def watch_remaining(self) -> None:
        self._show()

    def watch_paused(self) -> None:
        self._show()

    def _show(self) -> None:
        whole = int(self.remaining + 0.999)
        text = f"{whole // 60}:{whole % 60:02d}"
        if self.paused:
            self.update(Content.from_markup("[reverse] paused $t [/]", t=text))
        elif whole == 0 and not self._stopped:
            self.update(Content.from_markup("[b]time's up[/b]"))
        else:
            self.update(Content(f"⏱ {text}"))
