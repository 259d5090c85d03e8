"""A pack's own settings per profile (``kvdrill settings --pack PACK KEY VALUE``): its new
cards per day and the order of its new cards, in a table of their own; NULL is no setting of
the pack's own (the profile's rule applies).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pack_settings",
        sa.Column("profile_id", sa.Integer(), nullable=False),
        sa.Column("pack_id", sa.Integer(), nullable=False),
        sa.Column("new_per_day", sa.Integer(), nullable=True),
        sa.Column("new_order", sa.String(length=16), nullable=True),
        sa.ForeignKeyConstraint(["pack_id"], ["packs.id"], name="fk_pack_settings_pack_id_packs"),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name="fk_pack_settings_profile_id_profiles"
        ),
        sa.PrimaryKeyConstraint("profile_id", "pack_id", name="pk_pack_settings"),
    )


def downgrade() -> None:
    op.drop_table("pack_settings")
