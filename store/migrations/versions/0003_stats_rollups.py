"""Stats rollups: topic_days, topic_states and topic_cards, kept by SQLite triggers (store/rollups.py),
and a partial index on diagnosed answers for the mistake stats.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from kvdrill.store import rollups
from kvdrill.store.db import connection_sql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "topic_days",
        sa.Column("profile_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("study_day", sa.Date(), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("firsts", sa.Integer(), nullable=False),
        sa.Column("failed_firsts", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("diagnosed", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("profile_id", "kind", "value", "study_day", name="pk_topic_days"),
    )
    op.create_table(
        "topic_states",
        sa.Column("profile_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("due_day", sa.Date(), nullable=False),
        sa.Column("suspended", sa.Boolean(), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.Column("seen", sa.Integer(), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.Column("easiness_sum", sa.Integer(), nullable=False),
        sa.Column("leeches", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "profile_id", "kind", "value", "due_day", "suspended", name="pk_topic_states"
        ),
    )
    op.create_table(
        "topic_cards",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("kind", "value", name="pk_topic_cards"),
    )
    op.create_index(
        "ix_review_log_mistakes",
        "review_log",
        ["profile_id", "study_day", "mistake"],
        sqlite_where=sa.text("mistake IS NOT NULL"),
    )
    connection = op.get_bind()
    if connection.dialect.name == "sqlite":
        rollups.rebuild(connection_sql(connection))
        rollups.create_triggers(connection)


def downgrade() -> None:
    connection = op.get_bind()
    if connection.dialect.name == "sqlite":
        rollups.drop_triggers(connection)
    op.drop_index("ix_review_log_mistakes", table_name="review_log")
    op.drop_table("topic_cards")
    op.drop_table("topic_states")
    op.drop_table("topic_days")
