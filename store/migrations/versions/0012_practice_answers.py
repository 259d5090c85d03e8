"""The review log marks practice answers (``kvdrill drill --cram``): logged, but they move no
schedule, count against no daily limit, and a scheduler switch or an FSRS fit leaves them out.

Plain ADD COLUMN with a default (no table rebuild), so the stats triggers on review_log stay.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "review_log",
        sa.Column("practice", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    # Plain DROP COLUMN too (SQLite 3.35+): a batch rebuild would lose the stats triggers.
    op.execute("ALTER TABLE review_log DROP COLUMN practice")
