"""Stats rollups: two small tables that SQLite triggers keep equal to the big joins.

``kvdrill stats`` must answer in well under a second on 100,000 cards and 1,000,000 reviews.
Joining the review log and the card states to their topics (pack, tags, lessons) touches
hundreds of thousands of rows on every call, so the joins are maintained incrementally instead:

- ``topic_days``: per profile, topic and study day, the review counts of that topic's cards;
- ``topic_states``: per profile, topic, due day and suspended flag, the card-state sums of that
  topic's non-retired cards;
- ``topic_cards``: per topic, how many non-retired cards it has.

Each table is by definition the GROUP BY of a join (``store/stats.py`` keeps that join as the
reference, and tests compare the two after arbitrary edits). Every trigger adds a signed delta
through an upsert, so inserts, deletes, updates, re-imported topics and retire/revive all keep
the identity. The same trigger bodies run on SQLite (migration 0003) and, as PL/pgSQL trigger
functions, on PostgreSQL (migration 0005); on another database the stats fall back to the joins.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # SQLAlchemy stays unloaded on ``kvdrill import``'s sqlite3 path
    from sqlalchemy import Connection

    from kvdrill.store.sql import Sql

DIALECTS = ("sqlite", "postgresql")  # the databases whose migrations create the triggers
NO_DUE_DAY = "9999-12-31"  # stands for "not scheduled" in topic_states' key

DAY_KEYS = ("profile_id", "kind", "value", "study_day")
DAY_SUMS = ("reviews", "passed", "firsts", "failed_firsts", "seconds", "diagnosed")
STATE_KEYS = ("profile_id", "kind", "value", "due_day", "suspended")
STATE_SUMS = ("cards", "seen", "reviews", "lapses", "easiness_sum", "leeches")


def _int(condition: str) -> str:
    """A truth value as 0 or 1: PostgreSQL's booleans do not add up, SQLite's already do."""
    return f"CAST({condition} AS INTEGER)"


def _upsert(table: str, keys: tuple[str, ...], sums: tuple[str, ...], select: str) -> str:
    updates = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in sums)
    # Rows are upserted in key order, so two writers lock shared rollup rows in the same order.
    return (
        f"INSERT INTO {table} ({', '.join(keys + sums)}) {select} ORDER BY {_positions(keys)} "
        f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates};"
    )


def _positions(keys: tuple[str, ...]) -> str:
    return ", ".join(str(i + 1) for i in range(len(keys)))


def _review_delta(row: str, sign: str) -> str:
    """topic_days delta of one review-log row (``NEW`` or ``OLD``)."""
    return _upsert(
        "topic_days",
        DAY_KEYS,
        DAY_SUMS,
        f"SELECT {row}.profile_id, ct.kind, ct.value, {row}.study_day, {sign}1, "
        f"{sign}{_int(f'{row}.quality >= 3')}, {sign}{_int(f'{row}.moved_schedule')}, "
        f"{sign}{_int(f'{row}.moved_schedule AND {row}.quality < 3')}, {sign}{row}.seconds, "
        f"{sign}{_int(f'{row}.mistake IS NOT NULL')} "
        f"FROM card_topics AS ct WHERE ct.card_id = {row}.card_id",
    )


def _topic_review_delta(row: str, sign: str) -> str:
    """topic_days delta of one card_topics row: every review of that card, per day."""
    return _upsert(
        "topic_days",
        DAY_KEYS,
        DAY_SUMS,
        f"SELECT r.profile_id, {row}.kind, {row}.value, r.study_day, {sign}COUNT(*), "
        f"{sign}SUM({_int('r.quality >= 3')}), {sign}SUM({_int('r.moved_schedule')}), "
        f"{sign}SUM({_int('r.moved_schedule AND r.quality < 3')}), {sign}SUM(r.seconds), "
        f"{sign}SUM({_int('r.mistake IS NOT NULL')}) "
        f"FROM review_log AS r WHERE r.card_id = {row}.card_id GROUP BY r.profile_id, r.study_day",
    )


def _state_values(state: str, sign: str) -> str:
    return (
        f"COALESCE({state}.due_day, '{NO_DUE_DAY}'), {state}.suspended, {sign}1, "
        f"{sign}{_int(f'{state}.reviews > 0')}, {sign}{state}.reviews, {sign}{state}.lapses, "
        f"{sign}(CASE WHEN {state}.reviews > 0 THEN {state}.easiness_milli ELSE 0 END), "
        f"{sign}{_int(f'{state}.leech')}"
    )


def _state_delta(row: str, sign: str) -> str:
    """topic_states delta of one card_states row, if its card is not retired."""
    return _upsert(
        "topic_states",
        STATE_KEYS,
        STATE_SUMS,
        f"SELECT {row}.profile_id, ct.kind, ct.value, {_state_values(row, sign)} "
        f"FROM card_topics AS ct JOIN cards AS c ON c.id = ct.card_id "
        f"WHERE ct.card_id = {row}.card_id AND NOT c.retired",
    )


def _topic_state_delta(row: str, sign: str) -> str:
    """topic_states delta of one card_topics row: every profile's state of that card."""
    return _upsert(
        "topic_states",
        STATE_KEYS,
        STATE_SUMS,
        f"SELECT cs.profile_id, {row}.kind, {row}.value, {_state_values('cs', sign)} "
        f"FROM card_states AS cs JOIN cards AS c ON c.id = cs.card_id "
        f"WHERE cs.card_id = {row}.card_id AND NOT c.retired",
    )


def _retire_delta(sign: str) -> str:
    """topic_states delta when a card is retired (-) or revived (+)."""
    return _upsert(
        "topic_states",
        STATE_KEYS,
        STATE_SUMS,
        f"SELECT cs.profile_id, ct.kind, ct.value, {_state_values('cs', sign)} "
        f"FROM card_states AS cs JOIN card_topics AS ct ON ct.card_id = cs.card_id "
        f"WHERE cs.card_id = NEW.id",
    )


def _topic_card_delta(kind: str, value: str, card_id: str, sign: str) -> str:
    """topic_cards delta of one topic membership, if its card is not retired."""
    return _upsert(
        "topic_cards",
        ("kind", "value"),
        ("cards",),
        f"SELECT {kind}, {value}, {sign}1 FROM cards AS c WHERE c.id = {card_id} AND NOT c.retired",
    )


def _retire_card_delta(sign: str) -> str:
    return _upsert(
        "topic_cards",
        ("kind", "value"),
        ("cards",),
        f"SELECT ct.kind, ct.value, {sign}1 FROM card_topics AS ct WHERE ct.card_id = NEW.id",
    )


@dataclass(frozen=True)
class _Trigger:
    event: str  # e.g. "AFTER UPDATE OF retired ON cards"
    when: str | None  # a condition on NEW and OLD, or None
    body: str  # SQL statements, each ending in ";"


def _triggers() -> dict[str, _Trigger]:
    plus, minus = "+", "-"
    return {
        "rollup_review_insert": _Trigger(
            "AFTER INSERT ON review_log", None, _review_delta("NEW", plus)
        ),
        "rollup_review_delete": _Trigger(
            "AFTER DELETE ON review_log", None, _review_delta("OLD", minus)
        ),
        "rollup_review_update": _Trigger(
            "AFTER UPDATE ON review_log",
            None,
            _review_delta("OLD", minus) + _review_delta("NEW", plus),
        ),
        "rollup_state_insert": _Trigger(
            "AFTER INSERT ON card_states", None, _state_delta("NEW", plus)
        ),
        "rollup_state_delete": _Trigger(
            "AFTER DELETE ON card_states", None, _state_delta("OLD", minus)
        ),
        "rollup_state_update": _Trigger(
            "AFTER UPDATE ON card_states",
            None,
            _state_delta("OLD", minus) + _state_delta("NEW", plus),
        ),
        "rollup_topic_insert": _Trigger(
            "AFTER INSERT ON card_topics",
            None,
            _topic_review_delta("NEW", plus)
            + _topic_state_delta("NEW", plus)
            + _topic_card_delta("NEW.kind", "NEW.value", "NEW.card_id", plus),
        ),
        "rollup_topic_delete": _Trigger(
            "AFTER DELETE ON card_topics",
            None,
            _topic_review_delta("OLD", minus)
            + _topic_state_delta("OLD", minus)
            + _topic_card_delta("OLD.kind", "OLD.value", "OLD.card_id", minus),
        ),
        "rollup_card_retire": _Trigger(
            "AFTER UPDATE OF retired ON cards",
            "NEW.retired AND NOT OLD.retired",
            _retire_delta(minus) + _retire_card_delta(minus),
        ),
        "rollup_card_revive": _Trigger(
            "AFTER UPDATE OF retired ON cards",
            "OLD.retired AND NOT NEW.retired",
            _retire_delta(plus) + _retire_card_delta(plus),
        ),
    }


def create_triggers(connection: Connection) -> None:
    """Create the triggers in the connection's dialect (SQLite or PostgreSQL)."""
    from sqlalchemy import text

    postgresql = connection.dialect.name == "postgresql"
    for name, trigger in _triggers().items():
        if postgresql:
            # PL/pgSQL: a trigger runs a function; an AFTER trigger's return value is ignored.
            connection.execute(
                text(
                    f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS "
                    f"$$ BEGIN {trigger.body} RETURN NULL; END $$"
                )
            )
            when = f" WHEN ({trigger.when})" if trigger.when else ""
            connection.execute(
                text(
                    f"CREATE TRIGGER {name} {trigger.event} FOR EACH ROW{when} "
                    f"EXECUTE FUNCTION {name}()"
                )
            )
        else:
            when = f" WHEN {trigger.when}" if trigger.when else ""
            connection.execute(
                text(
                    f"CREATE TRIGGER IF NOT EXISTS {name} {trigger.event}{when} BEGIN {trigger.body} END"
                )
            )


def drop_triggers(connection: Connection) -> None:
    from sqlalchemy import text

    postgresql = connection.dialect.name == "postgresql"
    for name, trigger in _triggers().items():
        table = trigger.event.rsplit(" ", 1)[1]
        if postgresql:
            connection.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
            connection.execute(text(f"DROP FUNCTION IF EXISTS {name}()"))
        else:
            connection.execute(text(f"DROP TRIGGER IF EXISTS {name}"))


# The GROUP BY of each rollup's join, from a FROM clause (``rebuild``: every row; the bulk
# import: the new cards' rows). ``plus`` (SQLite's "+", or "") keeps the planner from reading
# the whole of an index in group order instead of the few rows wanted.
def _cards_select(source: str, plus: str = "", sign: str = "") -> str:
    return (
        f"SELECT ct.kind, ct.value, {sign}COUNT(*) {source} GROUP BY {plus}ct.kind, {plus}ct.value"
    )


def _days_select(source: str, sign: str = "") -> str:
    return (
        f"SELECT r.profile_id, ct.kind, ct.value, r.study_day, {sign}COUNT(*), "
        f"{sign}SUM({_int('r.quality >= 3')}), {sign}SUM({_int('r.moved_schedule')}), "
        f"{sign}SUM({_int('r.moved_schedule AND r.quality < 3')}), "
        f"{sign}SUM(r.seconds), {sign}SUM({_int('r.mistake IS NOT NULL')}) {source} "
        "GROUP BY r.profile_id, ct.kind, ct.value, r.study_day"
    )


def _states_select(source: str, sign: str = "") -> str:
    return (
        f"SELECT cs.profile_id, ct.kind, ct.value, COALESCE(cs.due_day, '{NO_DUE_DAY}'), "
        f"cs.suspended, {sign}COUNT(*), {sign}SUM({_int('cs.reviews > 0')}), "
        f"{sign}SUM(cs.reviews), {sign}SUM(cs.lapses), "
        f"{sign}SUM(CASE WHEN cs.reviews > 0 THEN cs.easiness_milli ELSE 0 END), "
        f"{sign}SUM({_int('cs.leech')}) {source} "
        f"GROUP BY cs.profile_id, ct.kind, ct.value, COALESCE(cs.due_day, '{NO_DUE_DAY}'), "
        "cs.suspended"
    )


def rebuild(sql: Sql) -> None:
    """Recompute both rollups from scratch (after a migration or a bulk load), in the caller's
    transaction (``connection_sql`` of store/db.py gives one for a SQLAlchemy connection)."""
    for table in ("topic_days", "topic_states", "topic_cards"):
        sql.run(f"DELETE FROM {table}")
    cards = "FROM card_topics AS ct JOIN cards AS c ON c.id = ct.card_id AND NOT c.retired"
    sql.run(f"INSERT INTO topic_cards (kind, value, cards) {_cards_select(cards)}")
    days = "FROM review_log AS r JOIN card_topics AS ct ON ct.card_id = r.card_id"
    sql.run(f"INSERT INTO topic_days ({', '.join(DAY_KEYS + DAY_SUMS)}) {_days_select(days)}")
    states = (
        "FROM card_states AS cs JOIN cards AS c ON c.id = cs.card_id AND NOT c.retired "
        "JOIN card_topics AS ct ON ct.card_id = cs.card_id"
    )
    sql.run(
        f"INSERT INTO topic_states ({', '.join(STATE_KEYS + STATE_SUMS)}) {_states_select(states)}"
    )


# --- a bulk insert of new cards' topics, with the per-row trigger suspended (SQLite) -------------


class _Runner(Protocol):
    """What store/importer.py's ``Statements`` offer (no import: it imports this module)."""

    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[Any]: ...

    def run(self, sql: str, params: dict[str, Any] | None = None) -> None: ...


TOPIC_INSERT_TRIGGER = "rollup_topic_insert"
# The new cards (CROSS JOIN fixes SQLite's join order: these first, by their id range), then
# what each one has: answers by the log's card index, states by their primary key (profile,
# card), one probe per profile, never a scan of every state; their topics last.
_NEW_CARDS = "FROM cards AS c {} CROSS JOIN card_topics AS ct ON ct.card_id = c.id "
_NEW_CARDS_WHERE = "WHERE c.id >= :first_card"


# What each card's answers and states are joined by (the same for new and for listed rows).
_WITH_ANSWERS = "CROSS JOIN review_log AS r ON r.card_id = c.id"
_WITH_STATES = (
    "CROSS JOIN profiles AS p CROSS JOIN card_states AS cs "
    "ON cs.profile_id = p.id AND cs.card_id = c.id"
)


def _topic_deltas(source: str, where: str, sign: str = "", plus: str = "") -> list[str]:
    """What the per-row topic trigger adds (``sign`` "") or takes off ("-") for every
    card_topics row of ``source`` (a FROM clause with a ``{}`` where a card's answers or states
    join) that ``where`` keeps: its sums, grouped, in three upserts."""
    live = f"{where} AND NOT c.retired"
    return [
        _upsert(
            "topic_cards",
            ("kind", "value"),
            ("cards",),
            _cards_select(source.format("") + live, plus=plus, sign=sign),
        ),
        _upsert(
            "topic_days",
            DAY_KEYS,
            DAY_SUMS,
            _days_select(source.format(_WITH_ANSWERS) + where, sign),
        ),
        _upsert(
            "topic_states",
            STATE_KEYS,
            STATE_SUMS,
            _states_select(source.format(_WITH_STATES) + live, sign),
        ),
    ]


def _suspended(db: _Runner, names: tuple[str, ...], change: Callable[[], None]) -> bool:
    """Run ``change`` with these triggers dropped, then recreate each from its own stored text;
    False, and ``change`` run with the triggers as they are, when one of them is missing (a file
    without them keeps no rollups). DDL is transactional in SQLite: if ``change`` fails, the
    rollback brings the triggers back with everything else, and no other connection sees the
    gap (the import holds the write lock)."""
    texts = []
    for name in names:
        found = db.rows(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = :name",
            {"name": name},
        )
        if not found:
            change()
            return False
        texts.append(found[0][0])
    for name in names:
        db.run(f"DROP TRIGGER {name}")
    change()
    for sql in texts:
        db.run(sql)
    return True


def insert_new_topics(db: _Runner, first_card: int, insert: Callable[[], None]) -> None:
    """Run ``insert``, which adds card_topics rows for new cards (numbered ``first_card`` and
    up) and nothing else, without the per-row trigger (on SQLite, inside the import's write
    transaction), then add its sums for those rows in three grouped statements."""
    if _suspended(db, (TOPIC_INSERT_TRIGGER,), insert):
        for sql in _topic_deltas(_NEW_CARDS, _NEW_CARDS_WHERE, plus="+"):
            db.run(sql, {"first_card": first_card})


TOPIC_DELETE_TRIGGER = "rollup_topic_delete"
# card_topics rows listed as a JSON array of [card id, kind, value] (json_each: SQLite 3.38+),
# each then joined to its card, its answers and its states as the new cards' rows are.
_LISTED = (
    "WITH listed (card_id, kind, value) AS (SELECT json_extract(e.value, '$[0]'), "
    "json_extract(e.value, '$[1]'), json_extract(e.value, '$[2]') FROM json_each(:rows) AS e) "
)
_LISTED_CARDS = "FROM listed AS ct CROSS JOIN cards AS c ON c.id = ct.card_id {} "


def change_topics(
    db: _Runner,
    removed: list[tuple[int, str, str]],
    added: list[tuple[int, str, str]],
    change: Callable[[], None],
) -> None:
    """Run ``change``, which deletes the card_topics rows ``removed`` and inserts ``added``
    (of cards stored before) and nothing else, without the per-row triggers (on SQLite,
    inside the import's write transaction), then take off and add their sums in grouped
    statements: three statements in all rather than three per row (and, before schema 0009
    gave card_states an index by card, a read of every card state per row)."""
    if _suspended(db, (TOPIC_INSERT_TRIGGER, TOPIC_DELETE_TRIGGER), change):
        for sign, rows in (("-", removed), ("", added)):
            if rows:
                listed = json.dumps(rows)
                for sql in _topic_deltas(_LISTED_CARDS, "WHERE 1", sign):
                    db.run(_LISTED + sql, {"rows": listed})
