"""Flags: a colour per card and profile (kvdrill flag, drill --flag), in a table of its own.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "card_flags",
        sa.Column("profile_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("colour", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["cards.id"], name="fk_card_flags_card_id_cards"),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name="fk_card_flags_profile_id_profiles"
        ),
        sa.PrimaryKeyConstraint("profile_id", "card_id", name="pk_card_flags"),
    )


def downgrade() -> None:
    op.drop_table("card_flags")
