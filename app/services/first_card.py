"""Fast start: today's first card, read by a helper process while Textual loads.

In one process the first card cannot appear before Textual *and* SQLAlchemy with the store
have been imported, one after the other (README.md "Benchmarks" has the figures). ``kvdrill drill`` therefore calls
``start`` before it imports Textual: a second Python process (``python -m
kvdrill.app.services.first_card``) reads today's first card, writes its ``DrillState`` as JSON on its
stdout and exits, on the other core, while this process imports Textual and paints. The drill
screen shows that card as soon as it arrives, then opens its own session in a worker thread and
checks the card is the same one (it is, unless another kvdrill changed the queue in between;
then the screen shows the right one).

The helper reads the common case with store/fast_start.py (``sqlite3`` and the pure engine, no
SQLAlchemy); a filtered drill, a new profile or a problem card goes through the drill service
instead; no database file yet or an older schema is left to the app.

Only the standard library is imported at module level: this runs before anything heavy.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from kvdrill.app.services import environment
from kvdrill.engine.packs.card_view import DrillState, DrillStateJson
from kvdrill.gc_pause import pause_collector

__all__ = ["FirstCard", "card_state", "fast_card_state", "main", "start"]

READ_TIMEOUT_SECONDS = 15
OPTION_KEYS = ("pack", "tag", "lesson", "new_limit", "limit")


class FirstCard:
    """The helper process; ``read_state`` waits for its answer (in a worker thread)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def has_answered(self) -> bool:
        """Whether the helper has exited, so ``read_state`` returns at once."""
        return self.process.poll() is not None

    def read_state(self, timeout: float = READ_TIMEOUT_SECONDS) -> DrillState | None:
        """The first card's state, or None if the helper had nothing to say or failed."""
        try:
            out, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.cancel()
            return None
        if self.process.returncode != 0 or not out:
            return None
        try:
            state = DrillState.from_dict(json.loads(out))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        return state if state.card is not None else None

    def cancel(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def start(database_url: str | None, profile: str, options: dict[str, Any]) -> FirstCard | None:
    """Start the helper for ``kvdrill drill`` (same database, profile and filters)."""
    if not environment.fast_start_enabled():
        return None
    # The garbage collector pauses until the drill's session is open (the app turns it back
    # on, KvdrillApp.after_start): importing Textual and building the first screen allocate
    # much and free little, and its passes over all that are work the first card waits for.
    pause_collector()
    request = {
        "database_url": database_url,
        "profile": profile,
        **{key: options.get(key) for key in OPTION_KEYS},
    }
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "kvdrill.app.services.first_card", json.dumps(request)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None  # the drill screen loads the session itself
    return FirstCard(process)


def card_state(session: Any) -> DrillStateJson:
    """A drill session's current state as plain JSON-able data."""
    return session.state.to_dict()


def fast_card_state(request: dict[str, Any]) -> DrillStateJson | None:
    """``card_state`` of the session ``request`` would open, read with ``sqlite3`` alone;
    None or ``NeedsSession`` as ``store.fast_start.read_first_card`` says."""
    # Imported here, in the helper process: the app's own process never reads the card itself.
    from kvdrill.store.fast_start import read_first_card

    state = read_first_card(
        environment.database_url(request["database_url"]),
        request["profile"],
        environment.now(),
        **{key: request.get(key) for key in OPTION_KEYS},
    )
    return state.to_dict() if state is not None else None


def session_card_state(request: dict[str, Any]) -> DrillStateJson:
    """``card_state`` through the drill service (SQLAlchemy): what the fast path skips."""
    from kvdrill.app.services.backend import Services

    services = Services(request["database_url"], request["profile"], bundled=False)
    try:
        options: dict[str, Any] = {key: request.get(key) for key in OPTION_KEYS}
        return card_state(services.open_session(**options))
    finally:
        services.close()


def main(argv: list[str]) -> int:
    from kvdrill.store.fast_start import NeedsSession

    request = json.loads(argv[1])
    try:
        state = fast_card_state(request)
    except NeedsSession:
        state = session_card_state(request)
    if state is None:
        return 1
    sys.stdout.write(json.dumps(state, default=str))
    return 0


if __name__ == "__main__":
    pause_collector()  # a short-lived process: nothing to gain from collecting
    try:
        sys.exit(main(sys.argv))
    except Exception:  # noqa: BLE001 - the app then opens the session itself and reports errors
        sys.exit(1)
