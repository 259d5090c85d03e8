"""Persistence: SQLAlchemy 2 models and queries, schema migrations, database location."""
