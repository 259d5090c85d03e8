"""Alembic migrations of the kvdrill schema; store/db.py runs them to head on open."""
