"""Today's first card read with ``sqlite3`` alone, before SQLAlchemy is imported.

The fast-start helper process (app/services/first_card.py) calls ``read_first_card`` while the app
imports Textual. It runs the same SQL text (store/queries_sql.py), row readers
(store/card_rows.py) and queue policy (engine/study/queue.py) as the store's own session, so the
card is the session's first card. Only the common case: a SQLite file at the current schema
revision, an existing profile, no ``--pack``/``--tag``/``--lesson``, and a first card that is
not a problem (those need sympy). Standard library only, at module level and inside.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from kvdrill.engine.packs.card_view import DrillState
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.queue import (
    SessionQueue,
    missing_parents,
    session_plan,
)
from kvdrill.engine.study.seeds import presentation_seed
from kvdrill.store.card_rows import card_view
from kvdrill.store.location import sqlite_file
from kvdrill.store.queries_sql import (
    CARD_VIEW_SQL,
    PROFILE_SQL,
    card_view_params,
    options_language,
    queue_cards_from_rows,
    queue_cards_statement,
    read_day_counts,
)
from kvdrill.store.sqlite_file import open_current


class NeedsSession(Exception):
    """The fast path cannot read this first card; the store's own session can."""


def read_first_card(
    database_url: str,
    profile_name: str,
    now: datetime,
    *,
    pack: str | None = None,
    tag: str | None = None,
    lesson: str | None = None,
    new_limit: int | None = None,
    limit: int | None = None,
) -> DrillState | None:
    """The state the session ``DrillSession.open`` would open at ``now`` starts in.

    None when there is no database file yet or its schema is older (the app creates or migrates
    it); ``NeedsSession`` for the other cases the fast path leaves out (see the module text).
    """
    if any(value is not None for value in (pack, tag, lesson)):
        raise NeedsSession("filters")
    path = sqlite_file(database_url)
    # None: first launch (the app creates the database and imports the bundled decks), or an
    # older schema (the app migrates it first).
    connection = open_current(path, read_only=True) if path is not None else None
    if connection is None:
        return None
    connection.row_factory = sqlite3.Row
    try:
        profile = connection.execute(PROFILE_SQL, {"name": profile_name}).fetchone()
        if profile is None:
            raise NeedsSession("a new profile: the store creates it")
        today = study_day(now, profile["rollover_hour"])
        counts, missed = read_day_counts(
            connection.execute,
            profile["id"],
            today,
            profile["new_per_day"],
            profile["reviews_per_day"],
        )
        language = options_language(profile["options"])
        statement, params = queue_cards_statement(profile["id"], lang=language)
        cards = queue_cards_from_rows(connection.execute(statement, params), missed)
        if missing_parents(cards):
            raise NeedsSession("a follow-up whose parent is retired")
        queue = SessionQueue(session_plan(cards, today, counts, new_limit=new_limit, limit=limit))
        view = None
        if queue.current is not None:
            row = connection.execute(
                CARD_VIEW_SQL, card_view_params(queue.current, profile["id"], language)
            ).fetchone()
            if row["kind"] == "problem":
                raise NeedsSession("a problem card")
            seed = presentation_seed(profile["id"], queue.current, today, 0)
            view = card_view(row, is_repeat=queue.is_repeat(queue.current), seed=seed)
    finally:
        connection.close()
    return DrillState(view, queue.remaining, 0, profile["answer_seconds"])
