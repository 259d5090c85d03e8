"""The review log keeps a multiple-choice answer's shuffle: its seed and the order shown.

Plain ADD COLUMN (no table rebuild), so the stats triggers on review_log stay as they are.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("review_log", sa.Column("choice_seed", sa.Integer(), nullable=True))
    op.add_column("review_log", sa.Column("choice_order", sa.String(length=8), nullable=True))


def downgrade() -> None:
    # Plain DROP COLUMN too (SQLite 3.35+): a batch rebuild would lose the stats triggers.
    op.execute("ALTER TABLE review_log DROP COLUMN choice_order")
    op.execute("ALTER TABLE review_log DROP COLUMN choice_seed")
