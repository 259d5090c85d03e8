"""The language a profile chose, read before the app starts: its interface language.

Read with ``sqlite3`` alone (read-only, as the store opens every SQLite file), so the command
line and the first screen are in the learner's language without SQLAlchemy being imported.
"""

from __future__ import annotations

from kvdrill.engine.study.settings import ProfileSettings
from kvdrill.store.queries_sql import stored_json
from kvdrill.store.sql import Sql
from kvdrill.store.sqlite_file import read_current

PROFILE_OPTIONS_SQL = "SELECT options FROM profiles WHERE name = :name"


def chosen_language(sql: Sql, profile_name: str) -> str | None:
    """The ``language`` the profile set; None when it set none (or does not exist yet)."""
    row = sql.first(PROFILE_OPTIONS_SQL, {"name": profile_name})
    values = (stored_json(row[0]) or {}) if row is not None else {}
    if "language" not in values:
        return None
    return ProfileSettings.from_values(values).language


def read_chosen_language(database_url: str, profile_name: str) -> str | None:
    """``chosen_language`` from a SQLite file or a PostgreSQL database; None for any other
    database, a missing file, one older than the profiles' options (0004), a server that does
    not answer, or a path the store would refuse (the command says why when it opens it). A
    file at an older revision is read too: the command about to upgrade it speaks the
    learner's language as well."""
    if database_url.split(":", 1)[0].split("+", 1)[0] == "postgresql":
        return _postgres_chosen_language(database_url, profile_name)
    # Not quick-checked: this runs before every command (the store checks the file it opens),
    # and anything unreadable is the store's to report.
    return read_current(
        database_url,
        lambda sql: chosen_language(sql, profile_name),
        check=False,
        failures=(Exception,),
        any_revision=True,
    )


def _postgres_chosen_language(database_url: str, profile_name: str) -> str | None:
    """``chosen_language`` over one connection, closed before the command opens its own (the
    command line then speaks the learner's language on PostgreSQL too): through psycopg
    alone where store/pg_sql.py reads the URL, else through SQLAlchemy."""
    from kvdrill.store.pg_sql import connect_options, read_postgresql

    if connect_options(database_url) is not None:
        try:
            found = read_postgresql(database_url, lambda sql: (chosen_language(sql, profile_name),))
        except Exception:  # noqa: BLE001 - options the store reads and reports in its own words
            return None
        return found[0] if found is not None else None
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    from kvdrill.store.db import AlchemySql

    try:
        engine = create_engine(database_url, poolclass=NullPool)
        try:
            with engine.connect() as connection:
                return chosen_language(AlchemySql(connection), profile_name)
        finally:
            engine.dispose()
    except Exception:  # noqa: BLE001 - no driver, no server, no schema yet: the store says which
        return None
