"""Reads of single cards for a running session: the card view's row, and what is due by a day."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import NoResultFound
from sqlalchemy.orm import Session

from kvdrill.store.db import Database
from kvdrill.store.models import Card, CardState
from kvdrill.store.queries_sql import (
    CARD_VIEW_SQL,
    card_view_params,
)


def card_view_row(database: Database, card_id: int, profile_id: int, lang: str) -> dict[str, Any]:
    """The ``CARD_VIEW_SQL`` row of one card for a profile, its text in ``lang`` where an
    edition has it (store/card_rows.py reads it): one plain read, no ORM session, as this sits
    between an answer and the next card."""
    params = card_view_params(card_id, profile_id, lang)
    row = database.read(lambda sql: sql.first_named(CARD_VIEW_SQL, params))
    if row is None:
        raise NoResultFound(f"no card {card_id}")
    return row


def due_on(profile_id: int, day: date) -> tuple[Any, ...]:
    """The conditions on a card state joined to its card: seen, live, unsuspended, due on
    ``day`` or before."""
    return (
        CardState.profile_id == profile_id,
        CardState.reviews > 0,
        CardState.suspended.is_(False),
        CardState.due_day <= day,
        Card.retired.is_(False),
    )


def due_by(
    session: Session, profile_id: int, day: date, card_ids: Sequence[int] | None = None
) -> int:
    """Seen, live, unsuspended cards due on ``day`` or before (only ``card_ids`` if given)."""
    statement = (
        select(func.count())
        .select_from(CardState)
        .join(Card, Card.id == CardState.card_id)
        .where(*due_on(profile_id, day))
    )
    if card_ids is not None:
        statement = statement.where(CardState.card_id.in_(card_ids))
    return int(session.scalar(statement) or 0)
