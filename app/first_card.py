"""Fast start: today's first card, read by a helper process while Textual loads.

In one process the first card cannot appear before Textual (about 0.4 s) *and* SQLAlchemy with
the store (about 0.6 s) have been imported, one after the other. ``kvdrill drill`` therefore calls
``start`` before it imports Textual: a second Python process reads today's first card, writes it
as JSON on its stdout and exits, on the other core, while this process imports Textual and
paints. The drill screen shows that card as soon as it arrives, then opens its own session in a
worker thread and checks the card is the same one (it is, unless another kvdrill changed the
queue in between; then the screen shows the right one).

The helper reads the common case with ``sqlite3`` and the pure engine alone (``fast_card_state``:
the same SQL text, row readers and queue policy the store uses, no SQLAlchemy). A filtered drill,
a new profile or a problem card goes through the store's own session instead; no database file
yet or an older schema is left to the app.

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
            [sys.executable, "-m", "kvdrill.app.first_card", json.dumps(request)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None  # the drill screen loads the session itself
    return FirstCard(process)


def card_state(session: Any) -> dict[str, Any]:
    """The session's current card and counts as plain JSON-able data."""
    return _state(session.current, session.remaining, session.done, session.answer_seconds)


def _state(card: Any, remaining: int, done: int, answer_seconds: int) -> dict[str, Any]:
    from dataclasses import asdict

    return {
        "card": asdict(card) if card is not None else None,
        "remaining": remaining,
        "done": done,
        "answer_seconds": answer_seconds,
    }


class NeedsSession(Exception):
    """The fast path cannot read this first card; the store's own session can."""


def fast_card_state(request: dict[str, Any]) -> dict[str, Any] | None:
    """``card_state`` of the session ``request`` would open, read with ``sqlite3`` alone.

    Only the common case: a SQLite file at the current schema revision, an existing profile, no
    ``--pack``/``--tag``/``--lesson``, and a first card that is not a problem (those need sympy).
    Returns None when there is no database file yet or its schema is older (the app creates or
    migrates it); raises ``NeedsSession`` for the other cases.
    """
    import sqlite3

    from kvdrill.engine.study.clock import now_from, study_day
    from kvdrill.engine.study.queue import SessionQueue, missing_parents, plan_day, read_today_log
    from kvdrill.store.card_view import card_view, excluded_kinds
    from kvdrill.store.location import HEAD_REVISION, resolve_url, sqlite_file
    from kvdrill.store.queries_sql import (
        CARD_VIEW_SQL,
        PROFILE_SQL,
        TODAY_LOG_SQL,
        queue_cards_from_rows,
        queue_cards_statement,
        today_log_answers,
    )

    if any(request.get(key) is not None for key in ("pack", "tag", "lesson")):
        raise NeedsSession("filters")
    path = sqlite_file(resolve_url(request["database_url"]))
    if path is None or not path.is_file():
        return None  # first launch: the app creates the database and imports the bundled decks
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    connection.row_factory = sqlite3.Row
    try:
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchone()
        profile = connection.execute(PROFILE_SQL, {"name": request["profile"]}).fetchone()
        if revision is None or revision[0] != HEAD_REVISION:
            return None  # the app migrates it first
        if profile is None:
            raise NeedsSession("a new profile: the store creates it")
        today = study_day(now_from(os.environ), profile["rollover_hour"])
        log = connection.execute(
            TODAY_LOG_SQL, {"profile_id": profile["id"], "study_day": today.isoformat()}
        )
        counts, missed = read_today_log(
            today_log_answers(log), profile["new_per_day"], profile["reviews_per_day"]
        )
        statement, params = queue_cards_statement(profile["id"], excluded_kinds=excluded_kinds())
        cards = queue_cards_from_rows(connection.execute(statement, params), missed)
        if missing_parents(cards):
            raise NeedsSession("a follow-up whose parent is retired")
        plan = plan_day(
            cards, today, counts, new_limit=request.get("new_limit"), limit=request.get("limit")
        )
        queue = SessionQueue(plan)
        view = None
        if queue.current is not None:
            row = connection.execute(
                CARD_VIEW_SQL, {"card_id": queue.current, "profile_id": profile["id"]}
            ).fetchone()
            if row["kind"] == "problem":
                raise NeedsSession("a problem card")
            view = card_view(row, is_repeat=queue.is_repeat(queue.current))
    finally:
        connection.close()
    return _state(view, queue.remaining, 0, profile["answer_seconds"])


def session_card_state(request: dict[str, Any]) -> dict[str, Any] | None:
    """``card_state`` through the store (SQLAlchemy): the fallback for what the fast path skips."""
    from kvdrill.store.db import open_database
    from kvdrill.store.drill import DrillSession

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
        return card_state(session)
    finally:
        database.close()


def main(argv: list[str]) -> int:
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
    try:
        sys.exit(main(sys.argv))
    except Exception:  # noqa: BLE001 - the app then opens the session itself and reports errors
        sys.exit(1)
