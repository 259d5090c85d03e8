"""Each review logs the time to reveal the answer and the time to grade it, in real seconds.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("review_log") as batch:
        batch.add_column(sa.Column("reveal_seconds", sa.Float(), nullable=True))
        batch.add_column(sa.Column("grade_seconds", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("review_log") as batch:
        batch.drop_column("grade_seconds")
        batch.drop_column("reveal_seconds")
