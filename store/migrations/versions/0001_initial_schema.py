"""The first schema: profiles, packs, cards, topics, SM-2 states, review log, notes.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "packs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("title", sa.String(length=256), nullable=False),
        sa.Column("version", sa.String(length=32), nullable=False),
        sa.Column("lang", sa.String(length=16), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("lessons", sa.JSON(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("source_path", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("bundled", sa.Boolean(), nullable=False),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_packs"),
        sa.UniqueConstraint("key", name="uq_packs_key"),
    )
    op.create_table(
        "profiles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("new_per_day", sa.Integer(), nullable=False),
        sa.Column("reviews_per_day", sa.Integer(), nullable=False),
        sa.Column("rollover_hour", sa.Integer(), nullable=False),
        sa.Column("answer_seconds", sa.Integer(), nullable=False),
        sa.Column("theme", sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_profiles"),
        sa.UniqueConstraint("name", name="uq_profiles_name"),
    )
    op.create_table(
        "cards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pack_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=160), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=True),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("key_numbers", sa.JSON(), nullable=False),
        sa.Column("tip", sa.Text(), nullable=False),
        sa.Column("choices", sa.JSON(), nullable=False),
        sa.Column("explanation", sa.Text(), nullable=False),
        sa.Column("related", sa.JSON(), nullable=False),
        sa.Column("problem", sa.JSON(), nullable=True),
        sa.Column("problem_line", sa.Integer(), nullable=True),
        sa.Column("source_line", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("parent_id", sa.Integer(), nullable=True),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("lessons", sa.JSON(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("retired", sa.Boolean(), nullable=False),
        sa.Column("retired_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["pack_id"], ["packs.id"], name="fk_cards_pack_id_packs"),
        sa.ForeignKeyConstraint(["parent_id"], ["cards.id"], name="fk_cards_parent_id_cards"),
        sa.PrimaryKeyConstraint("id", name="pk_cards"),
        sa.UniqueConstraint("pack_id", "key", name="uq_cards_pack_id_key"),
    )
    op.create_index("ix_cards_retired", "cards", ["retired"], unique=False)

    op.create_table(
        "card_states",
        sa.Column("profile_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("repetitions", sa.Integer(), nullable=False),
        sa.Column("easiness_milli", sa.Integer(), nullable=False),
        sa.Column("interval_days", sa.Integer(), nullable=False),
        sa.Column("due_day", sa.Date(), nullable=True),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("last_review_at", sa.DateTime(), nullable=True),
        sa.Column("suspended", sa.Boolean(), nullable=False),
        sa.Column("buried_until", sa.Date(), nullable=True),
        sa.Column("leech", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["cards.id"], name="fk_card_states_card_id_cards"),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name="fk_card_states_profile_id_profiles"
        ),
        sa.PrimaryKeyConstraint("profile_id", "card_id", name="pk_card_states"),
    )
    op.create_index("ix_card_states_due", "card_states", ["profile_id", "due_day"], unique=False)

    op.create_table(
        "card_topics",
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["cards.id"], name="fk_card_topics_card_id_cards"),
        sa.PrimaryKeyConstraint("card_id", "kind", "value", name="pk_card_topics"),
    )
    op.create_index("ix_card_topics_topic", "card_topics", ["kind", "value"], unique=False)

    op.create_table(
        "notes",
        sa.Column("profile_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["cards.id"], name="fk_notes_card_id_cards"),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name="fk_notes_profile_id_profiles"
        ),
        sa.PrimaryKeyConstraint("profile_id", "card_id", name="pk_notes"),
    )
    op.create_table(
        "review_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("profile_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("reviewed_at", sa.DateTime(), nullable=False),
        sa.Column("study_day", sa.Date(), nullable=False),
        sa.Column("quality", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("graded_by", sa.String(length=8), nullable=False),
        sa.Column("moved_schedule", sa.Boolean(), nullable=False),
        sa.Column("typed_answer", sa.Text(), nullable=True),
        sa.Column("template_id", sa.String(length=160), nullable=True),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("params", sa.JSON(), nullable=True),
        sa.Column("expected", sa.Text(), nullable=True),
        sa.Column("diagnosis", sa.Text(), nullable=True),
        sa.Column("mistake", sa.String(length=32), nullable=True),
        sa.Column("prev_state", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["card_id"], ["cards.id"], name="fk_review_log_card_id_cards"),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name="fk_review_log_profile_id_profiles"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_review_log"),
    )
    op.create_index("ix_review_log_card", "review_log", ["card_id"], unique=False)
    op.create_index(
        "ix_review_log_profile_day", "review_log", ["profile_id", "study_day"], unique=False
    )
    op.create_index(
        "ix_review_log_profile_time", "review_log", ["profile_id", "reviewed_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_review_log_profile_time", table_name="review_log")
    op.drop_index("ix_review_log_profile_day", table_name="review_log")
    op.drop_index("ix_review_log_card", table_name="review_log")
    op.drop_table("review_log")
    op.drop_table("notes")
    op.drop_index("ix_card_topics_topic", table_name="card_topics")
    op.drop_table("card_topics")
    op.drop_index("ix_card_states_due", table_name="card_states")
    op.drop_table("card_states")
    op.drop_index("ix_cards_retired", table_name="cards")
    op.drop_table("cards")
    op.drop_table("profiles")
    op.drop_table("packs")
