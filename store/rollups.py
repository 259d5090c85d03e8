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
the identity. The triggers are SQLite's; on another database the stats fall back to the joins.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

NO_DUE_DAY = "9999-12-31"  # stands for "not scheduled" in topic_states' key

DAY_KEYS = ("profile_id", "kind", "value", "study_day")
DAY_SUMS = ("reviews", "passed", "firsts", "failed_firsts", "seconds", "diagnosed")
STATE_KEYS = ("profile_id", "kind", "value", "due_day", "suspended")
STATE_SUMS = ("cards", "seen", "reviews", "lapses", "easiness_sum", "leeches")


def _upsert(table: str, keys: tuple[str, ...], sums: tuple[str, ...], select: str) -> str:
    updates = ", ".join(f"{c} = {c} + excluded.{c}" for c in sums)
    return (
        f"INSERT INTO {table} ({', '.join(keys + sums)}) {select} "
        f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates};"
    )


def _review_delta(row: str, sign: str) -> str:
    """topic_days delta of one review-log row (``NEW`` or ``OLD``)."""
    return _upsert(
        "topic_days",
        DAY_KEYS,
        DAY_SUMS,
        f"SELECT {row}.profile_id, ct.kind, ct.value, {row}.study_day, {sign}1, "
        f"{sign}({row}.quality >= 3), {sign}({row}.moved_schedule), "
        f"{sign}({row}.moved_schedule AND {row}.quality < 3), {sign}{row}.seconds, "
        f"{sign}({row}.mistake IS NOT NULL) "
        f"FROM card_topics AS ct WHERE ct.card_id = {row}.card_id",
    )


def _topic_review_delta(row: str, sign: str) -> str:
    """topic_days delta of one card_topics row: every review of that card, per day."""
    return _upsert(
        "topic_days",
        DAY_KEYS,
        DAY_SUMS,
        f"SELECT r.profile_id, {row}.kind, {row}.value, r.study_day, {sign}COUNT(*), "
        f"{sign}SUM(r.quality >= 3), {sign}SUM(r.moved_schedule), "
        f"{sign}SUM(r.moved_schedule AND r.quality < 3), {sign}SUM(r.seconds), "
        f"{sign}SUM(r.mistake IS NOT NULL) "
        f"FROM review_log AS r WHERE r.card_id = {row}.card_id GROUP BY r.profile_id, r.study_day",
    )


def _state_values(state: str, sign: str) -> str:
    return (
        f"COALESCE({state}.due_day, '{NO_DUE_DAY}'), {state}.suspended, {sign}1, "
        f"{sign}({state}.reviews > 0), {sign}{state}.reviews, {sign}{state}.lapses, "
        f"{sign}(CASE WHEN {state}.reviews > 0 THEN {state}.easiness_milli ELSE 0 END), "
        f"{sign}{state}.leech"
    )


def _state_delta(row: str, sign: str) -> str:
    """topic_states delta of one card_states row, if its card is not retired."""
    return _upsert(
        "topic_states",
        STATE_KEYS,
        STATE_SUMS,
        f"SELECT {row}.profile_id, ct.kind, ct.value, {_state_values(row, sign)} "
        f"FROM card_topics AS ct JOIN cards AS c ON c.id = ct.card_id "
        f"WHERE ct.card_id = {row}.card_id AND c.retired = 0",
    )


def _topic_state_delta(row: str, sign: str) -> str:
    """topic_states delta of one card_topics row: every profile's state of that card."""
    return _upsert(
        "topic_states",
        STATE_KEYS,
        STATE_SUMS,
        f"SELECT cs.profile_id, {row}.kind, {row}.value, {_state_values('cs', sign)} "
        f"FROM card_states AS cs JOIN cards AS c ON c.id = cs.card_id "
        f"WHERE cs.card_id = {row}.card_id AND c.retired = 0",
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
        f"SELECT {kind}, {value}, {sign}1 FROM cards AS c WHERE c.id = {card_id} AND c.retired = 0",
    )


def _retire_card_delta(sign: str) -> str:
    return _upsert(
        "topic_cards",
        ("kind", "value"),
        ("cards",),
        f"SELECT ct.kind, ct.value, {sign}1 FROM card_topics AS ct WHERE ct.card_id = NEW.id",
    )


def _triggers() -> dict[str, str]:
    plus, minus = "+", "-"
    return {
        "rollup_review_insert": "AFTER INSERT ON review_log BEGIN " + _review_delta("NEW", plus),
        "rollup_review_delete": "AFTER DELETE ON review_log BEGIN " + _review_delta("OLD", minus),
        "rollup_review_update": "AFTER UPDATE ON review_log BEGIN "
        + _review_delta("OLD", minus)
        + _review_delta("NEW", plus),
        "rollup_state_insert": "AFTER INSERT ON card_states BEGIN " + _state_delta("NEW", plus),
        "rollup_state_delete": "AFTER DELETE ON card_states BEGIN " + _state_delta("OLD", minus),
        "rollup_state_update": "AFTER UPDATE ON card_states BEGIN "
        + _state_delta("OLD", minus)
        + _state_delta("NEW", plus),
        "rollup_topic_insert": "AFTER INSERT ON card_topics BEGIN "
        + _topic_review_delta("NEW", plus)
        + _topic_state_delta("NEW", plus)
        + _topic_card_delta("NEW.kind", "NEW.value", "NEW.card_id", plus),
        "rollup_topic_delete": "AFTER DELETE ON card_topics BEGIN "
        + _topic_review_delta("OLD", minus)
        + _topic_state_delta("OLD", minus)
        + _topic_card_delta("OLD.kind", "OLD.value", "OLD.card_id", minus),
        "rollup_card_retire": "AFTER UPDATE OF retired ON cards "
        "WHEN NEW.retired != 0 AND OLD.retired = 0 BEGIN "
        + _retire_delta(minus)
        + _retire_card_delta(minus),
        "rollup_card_revive": "AFTER UPDATE OF retired ON cards "
        "WHEN NEW.retired = 0 AND OLD.retired != 0 BEGIN "
        + _retire_delta(plus)
        + _retire_card_delta(plus),
    }


def create_triggers(connection: Connection) -> None:
    for name, body in _triggers().items():
        connection.execute(text(f"CREATE TRIGGER IF NOT EXISTS {name} {body} END"))


def drop_triggers(connection: Connection) -> None:
    for name in _triggers():
        connection.execute(text(f"DROP TRIGGER IF EXISTS {name}"))


def rebuild(connection: Connection) -> None:
    """Recompute both rollups from scratch (after a migration or a bulk load)."""
    connection.execute(text("DELETE FROM topic_days"))
    connection.execute(text("DELETE FROM topic_states"))
    connection.execute(text("DELETE FROM topic_cards"))
    connection.execute(
        text(
            "INSERT INTO topic_cards (kind, value, cards) SELECT ct.kind, ct.value, COUNT(*) "
            "FROM card_topics AS ct JOIN cards AS c ON c.id = ct.card_id AND c.retired = 0 "
            "GROUP BY ct.kind, ct.value"
        )
    )
    connection.execute(
        text(
            f"INSERT INTO topic_days ({', '.join(DAY_KEYS + DAY_SUMS)}) "
            "SELECT r.profile_id, ct.kind, ct.value, r.study_day, COUNT(*), "
            "SUM(r.quality >= 3), SUM(r.moved_schedule), SUM(r.moved_schedule AND r.quality < 3), "
            "SUM(r.seconds), SUM(r.mistake IS NOT NULL) "
            "FROM review_log AS r JOIN card_topics AS ct ON ct.card_id = r.card_id "
            "GROUP BY r.profile_id, ct.kind, ct.value, r.study_day"
        )
    )
    connection.execute(
        text(
            f"INSERT INTO topic_states ({', '.join(STATE_KEYS + STATE_SUMS)}) "
            f"SELECT cs.profile_id, ct.kind, ct.value, COALESCE(cs.due_day, '{NO_DUE_DAY}'), "
            "cs.suspended, COUNT(*), SUM(cs.reviews > 0), SUM(cs.reviews), SUM(cs.lapses), "
            "SUM(CASE WHEN cs.reviews > 0 THEN cs.easiness_milli ELSE 0 END), SUM(cs.leech) "
            "FROM card_states AS cs JOIN cards AS c ON c.id = cs.card_id AND c.retired = 0 "
            "JOIN card_topics AS ct ON ct.card_id = cs.card_id "
            "GROUP BY cs.profile_id, ct.kind, ct.value, COALESCE(cs.due_day, "
            f"'{NO_DUE_DAY}'), cs.suspended"
        )
    )
