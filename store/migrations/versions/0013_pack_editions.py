"""Packs may be editions of another pack (front matter ``edition_of:``): a card and its edition
are one card for scheduling, reviews, stats, flags, notes and exports.

``packs.edition_of`` holds the original's pack id (its key, so an edition imported before its
original is tied to it once the original comes). An edition's cards keep their text only: the
history of the two Vietnamese packs kvdrill bundled before editions existed
(memory-and-capacity-vi, serving-system-design-vi) moves onto the English cards of the same id,
so a learner who studied them keeps every schedule, answer, note and flag:

- the review log moves whole;
- a schedule moves when the English card has none; when both have one, the one reviewed last
  is kept (it holds what the learner knows now);
- a note moves, or is appended to the English card's note; a flag moves unless the English card
  has one;
- the edition's cards lose their topics (pack, tags, lessons): the stats count the English card.

The stats triggers (store/rollups.py) follow each of these row changes.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

# The Vietnamese packs bundled before editions existed, and the packs they translate.
_BUNDLED_EDITIONS = {
    "memory-and-capacity-vi": "memory-and-capacity",
    "serving-system-design-vi": "serving-system-design",
}

_PAIRS_SQL = """
SELECT edition.id, original.id
FROM cards AS edition
JOIN packs AS edition_pack ON edition_pack.id = edition.pack_id
JOIN packs AS original_pack ON original_pack.key = edition_pack.edition_of
JOIN cards AS original ON original.pack_id = original_pack.id AND original.key = edition.key
ORDER BY edition.id
"""


def upgrade() -> None:
    # Plain ADD COLUMN (no table rebuild), so the stats triggers stay.
    op.add_column("packs", sa.Column("edition_of", sa.String(length=128), nullable=True))
    connection = op.get_bind()
    for edition, original in _BUNDLED_EDITIONS.items():
        connection.execute(
            sa.text(
                "UPDATE packs SET edition_of = :original WHERE key = :edition "
                "AND EXISTS (SELECT 1 FROM packs AS o WHERE o.key = :original)"
            ),
            {"edition": edition, "original": original},
        )
    for edition_card, original_card in connection.execute(sa.text(_PAIRS_SQL)).all():
        _move_history(connection, edition_card, original_card)


def _move_history(connection: sa.Connection, edition: int, original: int) -> None:
    ids = {"edition": edition, "original": original}

    def run(statement: str) -> None:
        connection.execute(sa.text(statement), ids)

    # Where both cards have a schedule, the one reviewed first goes.
    run(
        "DELETE FROM card_states WHERE card_id = :original AND profile_id IN ("
        " SELECT e.profile_id FROM card_states AS e JOIN card_states AS o"
        "  ON o.profile_id = e.profile_id AND o.card_id = :original"
        " WHERE e.card_id = :edition"
        "  AND COALESCE(e.last_review_at, '1900-01-01') > COALESCE(o.last_review_at, '1900-01-01'))"
    )
    run(
        "DELETE FROM card_states WHERE card_id = :edition AND profile_id IN ("
        " SELECT profile_id FROM card_states WHERE card_id = :original)"
    )
    run("UPDATE card_states SET card_id = :original WHERE card_id = :edition")
    run("UPDATE review_log SET card_id = :original WHERE card_id = :edition")
    connection.execute(
        sa.text(
            "UPDATE notes SET text = text || :gap || ("
            " SELECT e.text FROM notes AS e"
            " WHERE e.card_id = :edition AND e.profile_id = notes.profile_id)"
            " WHERE card_id = :original AND profile_id IN ("
            "  SELECT profile_id FROM notes WHERE card_id = :edition)"
        ),
        {**ids, "gap": "\n\n"},
    )
    for table in ("notes", "card_flags"):
        run(
            f"DELETE FROM {table} WHERE card_id = :edition AND profile_id IN ("
            f" SELECT profile_id FROM {table} WHERE card_id = :original)"
        )
        run(f"UPDATE {table} SET card_id = :original WHERE card_id = :edition")
    run("DELETE FROM card_topics WHERE card_id = :edition")


def downgrade() -> None:
    # The history stays on the English cards (where this revision put it); the column goes.
    # Plain DROP COLUMN (SQLite 3.35+): a batch rebuild would lose the stats triggers.
    op.execute("ALTER TABLE packs DROP COLUMN edition_of")
