"""Fast start: today's first card, read by a helper process while Textual loads.

In one process the first card cannot appear before Textual (about 0.4 s) *and* SQLAlchemy with
the store (about 0.6 s) have been imported, one after the other. ``kvdrill drill`` therefore calls
``start`` before it imports Textual: a second Python process opens the database and today's
session, writes the first card as JSON on its stdout and exits, on the other core, while this
process imports Textual and paints. The drill screen shows that card as soon as it arrives, then
opens its own session in a worker thread and checks the card is the same one (it is, unless
another kvdrill changed the queue in between; then the screen shows the right one).

Only the standard library is imported at module level: this runs before anything heavy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

READ_TIMEOUT_SECONDS = 15
# ``KVDRILL_FAST_START=0`` turns the helper off (scripts/bench_start.py --no-helper compares).
SWITCH_VARIABLE = "KVDRILL_FAST_START"


class FirstCard:
    """The helper process; ``read`` waits for its answer (in a worker thread)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def read(self, timeout: float = READ_TIMEOUT_SECONDS) -> dict[str, Any] | None:
        """The first card's state, or None if the helper had nothing to say or failed."""
        try:
            out, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.cancel()
            return None
        if self.process.returncode != 0 or not out:
            return None
        try:
            data = json.loads(out)
        except ValueError:
            return None
        return data if isinstance(data, dict) and data.get("card") else None

    def cancel(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def start(database_url: str | None, profile: str, options: dict[str, Any]) -> FirstCard | None:
    """Start the helper for ``kvdrill drill`` (same database, profile and filters)."""
    if os.environ.get(SWITCH_VARIABLE) == "0":
        return None
    request = {
        "database_url": database_url,
        "profile": profile,
        **{key: options.get(key) for key in ("pack", "tag", "lesson", "new_limit", "limit")},
    }
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "app.first_card", json.dumps(request)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None  # the drill screen loads the session itself
    return FirstCard(process)


def card_state(session: Any) -> dict[str, Any]:
    """The session's current card and counts as plain JSON-able data."""
    from dataclasses import asdict

    card = session.current
    return {
        "card": asdict(card) if card is not None else None,
        "remaining": session.remaining,
        "done": session.done,
        "answer_seconds": session.answer_seconds,
    }


def main(argv: list[str]) -> int:
    request = json.loads(argv[1])
    from store.db import open_database, resolve_url, sqlite_file
    from store.drill import DrillSession

    path = sqlite_file(resolve_url(request["database_url"]))
    if path is not None and not path.exists():
        return 1  # first launch: the app creates the database and imports the bundled decks
    database = open_database(request["database_url"])
    try:
        session = DrillSession.open(
            database,
            profile=request["profile"],
            pack=request.get("pack"),
            tag=request.get("tag"),
            lesson=request.get("lesson"),
            new_limit=request.get("new_limit"),
            limit=request.get("limit"),
        )
        state = card_state(session)
    finally:
        database.close()
    sys.stdout.write(json.dumps(state, default=str))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception:  # noqa: BLE001 - the app then opens the session itself and reports errors
        sys.exit(1)
