"""The answer countdown's arithmetic: active (not paused) seconds since a card appeared.

Pure: the clock is passed in (a monotonic clock in seconds; snapshot tests pass a frozen one).
The drill flow owns one; the TUI's Countdown widget only shows it.
"""

from __future__ import annotations

from collections.abc import Callable

from kvdrill.engine.study.settings import DEFAULT_ANSWER_SECONDS


class AnswerTimer:
    """Counts down from ``length`` seconds; can be paused, and stops when the answer shows."""

    def __init__(self, clock: Callable[[], float], seconds: int = DEFAULT_ANSWER_SECONDS) -> None:
        self.clock = clock
        self.length = max(1, int(seconds))
        self.paused = False
        self.stopped = True
        self._spent_before = 0.0
        self._running_since: float | None = None

    def restart(self, seconds: int | None = None) -> None:
        """Start again from the full length (a new card)."""
        if seconds is not None:
            self.length = max(1, int(seconds))
        self._spent_before = 0.0
        self._running_since = self.clock()
        self.stopped = False
        self.paused = False

    def stop(self) -> None:
        """Freeze the count (the answer is revealed); ``spent`` stays readable."""
        self._spent_before = self.spent
        self._running_since = None
        self.stopped = True

    def toggle_pause(self) -> bool:
        """Pause or resume; returns whether it is now paused (a stopped timer stays as it is)."""
        if self.stopped:
            return self.paused
        if self.paused:
            self._running_since = self.clock()
            self.paused = False
        else:
            self._spent_before = self.spent
            self._running_since = None
            self.paused = True
        return self.paused

    @property
    def spent(self) -> float:
        """Seconds of active (not paused) time since the card appeared."""
        running = 0.0 if self._running_since is None else self.clock() - self._running_since
        return self._spent_before + max(0.0, running)

    @property
    def remaining(self) -> float:
        return max(0.0, self.length - self.spent)
