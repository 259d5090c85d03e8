"""The answer countdown on screen: shows an ``AnswerTimer`` (app/services/answer_timer.py)."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from kvdrill.app.services.answer_timer import AnswerTimer
from kvdrill.engine.study.settings import DEFAULT_ANSWER_SECONDS


class Countdown(Static):
    """Shows ``timer`` counting down; the drill flow starts, stops and pauses it.

    Without a timer it makes its own on ``clock`` (a monotonic clock in seconds)."""

    remaining: reactive[float] = reactive(0.0)
    paused: reactive[bool] = reactive(False)

    def __init__(
        self,
        seconds: int = DEFAULT_ANSWER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        *,
        timer: AnswerTimer | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.timer = timer if timer is not None else AnswerTimer(clock, seconds)
        self._shown: tuple[str, bool, bool] | None = None

    @property
    def clock(self) -> Callable[[], float]:
        return self.timer.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.timer.clock = clock

    def on_mount(self) -> None:
        self.set_interval(0.25, self.tick)
        self._show()

    def restart(self, seconds: int | None = None) -> None:
        """Start again from the full length (a new card)."""
        self.timer.restart(seconds)
        self.tick()

    def stop(self) -> None:
        self.timer.stop()
        self.tick()

    def toggle_pause(self) -> bool:
        paused = self.timer.toggle_pause()
        self.tick()
        return paused

    @property
    def spent(self) -> float:
        """Seconds of active (not paused) time since the card appeared."""
        return self.timer.spent

    def tick(self) -> None:
        """Show the timer as it is now."""
        self.paused = self.timer.paused
        self.remaining = self.timer.remaining

    def watch_remaining(self) -> None:
        self._show()

    def watch_paused(self) -> None:
        self._show()

    def _show(self) -> None:
        whole = int(self.remaining + 0.999)
        text = f"{whole // 60}:{whole % 60:02d}"
        # Ticks come four times a second: repaint only when what is shown changes.
        shown = (text, self.paused, self.timer.stopped)
        if shown == self._shown:
            return
        self._shown = shown
        if self.paused:
            self.update(Content.from_markup("[reverse] paused $t [/]", t=text))
        elif whole == 0 and not self.timer.stopped:
            self.update(Content.from_markup("[b]time's up[/b]"))
        else:
            self.update(Content(f"⏱ {text}"))
