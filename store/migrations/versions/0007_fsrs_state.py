"""The FSRS memory state of a card (engine/study/fsrs_memory.py) in one JSON column of
``card_states``; NULL while the profile schedules with SM-2.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("card_states") as batch:
        batch.add_column(sa.Column("fsrs", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("card_states") as batch:
        batch.drop_column("fsrs")
