"""card_states gets an index by card alone.

The stats triggers that run when a card is retired or revived, or when a topic row of a card
with a history is added or removed, look up that card's states in every profile
(``WHERE cs.card_id = ...``); the primary key starts with the profile, so each lookup scanned
the whole table, once per card retired. The answer path does not pay for it: an answer updates a state, never its card id.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_card_states_card", "card_states", ["card_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_card_states_card", table_name="card_states")
