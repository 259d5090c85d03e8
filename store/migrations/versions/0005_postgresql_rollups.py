"""Stats rollups on PostgreSQL: the triggers of store/rollups.py as PL/pgSQL functions, the rollup
tables rebuilt from the joins, and the mistakes index made partial as on SQLite. Nothing changes
on SQLite (0003 keeps its rollups there).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from kvdrill.store import rollups
from kvdrill.store.db import connection_sql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

MISTAKES_INDEX = ("ix_review_log_mistakes", "review_log", ["profile_id", "study_day", "mistake"])


def upgrade() -> None:
    connection = op.get_bind()
    if connection.dialect.name != "postgresql":
        return
    name, table, columns = MISTAKES_INDEX
    op.drop_index(name, table_name=table)
    op.create_index(name, table, columns, postgresql_where=sa.text("mistake IS NOT NULL"))
    # A database that 0003 migrated on PostgreSQL has rollup tables nothing kept: rebuild them,
    # in this migration's transaction, before the triggers take over.
    rollups.rebuild(connection_sql(connection))
    rollups.create_triggers(connection)


def downgrade() -> None:
    connection = op.get_bind()
    if connection.dialect.name != "postgresql":
        return
    rollups.drop_triggers(connection)
    name, table, columns = MISTAKES_INDEX
    op.drop_index(name, table_name=table)
    op.create_index(name, table, columns)
