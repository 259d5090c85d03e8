"""The review log marks answers imported from another tool, and keeps what that tool logged.

``imported_id`` is the answer's identity in its source (``anki:<revlog id>`` for an answer from
an Anki package): NULL for an answer given in kvdrill, and what keeps a second import of the same
package from adding the answer again. ``interval_days`` and ``easiness_milli`` are the interval and
ease factor the source gave after the answer (kvdrill's own answers leave them NULL: the schedule
after an answer is the next row's ``prev_state``, or the card's state).

Plain ADD COLUMN (no table rebuild), so the stats triggers on review_log stay as they are.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("review_log", sa.Column("imported_id", sa.String(length=64), nullable=True))
    op.add_column("review_log", sa.Column("interval_days", sa.Integer(), nullable=True))
    op.add_column("review_log", sa.Column("easiness_milli", sa.Integer(), nullable=True))
    op.create_index(
        "ix_review_log_imported",
        "review_log",
        ["profile_id", "imported_id"],
        unique=False,
        sqlite_where=sa.text("imported_id IS NOT NULL"),
        postgresql_where=sa.text("imported_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_review_log_imported", table_name="review_log")
    # Plain DROP COLUMN too (SQLite 3.35+): a batch rebuild would lose the stats triggers.
    op.execute("ALTER TABLE review_log DROP COLUMN easiness_milli")
    op.execute("ALTER TABLE review_log DROP COLUMN interval_days")
    op.execute("ALTER TABLE review_log DROP COLUMN imported_id")
