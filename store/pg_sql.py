"""The store's SQL on a psycopg connection, and a PostgreSQL read without SQLAlchemy.

``PsycopgSql`` is ``Sql`` (store/sql.py) on a psycopg cursor: each ``:name`` statement text is
turned once into psycopg's ``%(name)s`` style and run on the driver itself. store/db.py's
``AlchemySql`` is this executor on a SQLAlchemy connection's own psycopg connection, inside
its transaction, with SQLAlchemy's error wrapping; ``read_postgresql`` runs a read on a
connection of its own, so ``kvdrill stats --group`` imports neither SQLAlchemy nor Alembic.
Importing this module imports neither, nor psycopg until a connection is made.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar
from urllib.parse import parse_qs, unquote, urlsplit

from kvdrill.store.location import HEAD_REVISION
from kvdrill.store.sql import Params, Row, Sql, schema_revision

T = TypeVar("T")

# The one driver this reader speaks (the URL ``open_database`` takes for it).
PSYCOPG_SCHEME = "postgresql+psycopg"

# ``:name`` as SQLAlchemy's text clause finds it (not ``::type``, not ``\:``).
_BIND_NAME = re.compile(r"(?<![:\w\x5c]):(\w+)(?![:\w])")
_DRIVER_SQL: dict[str, str] = {}
# The column names of each statement ``first_named`` has run (a few fixed texts).
_ROW_NAMES: dict[str, tuple[str, ...]] = {}


def driver_sql(sql: str) -> str:
    """The statement in psycopg's ``%(name)s`` parameter style, made once per text."""
    found = _DRIVER_SQL.get(sql)
    if found is None:
        escaped = sql.replace("%", "%%")
        found = _DRIVER_SQL[sql] = _BIND_NAME.sub(r"%(\1)s", escaped).replace("\\:", ":")
    return found


class PsycopgSql(Sql):
    """``Sql`` on a psycopg connection, in whatever transaction it is in."""

    dialect = "postgresql"

    def __init__(self, connection: Any):
        self.driver_connection = connection
        self._cursor: Any = None

    def driver_cursor(self) -> Any:
        if self._cursor is None:
            self._cursor = self.driver_connection.cursor()
        return self._cursor

    def raise_error(self, exc: Exception, sql: str, params: Any) -> NoReturn:
        """The driver's ``exc`` from running ``sql``, as this executor's callers expect it."""
        raise exc

    def _execute(self, sql: str, params: Params | None) -> Any:
        cursor, text = self.driver_cursor(), driver_sql(sql)
        try:
            return cursor.execute(text, params or {})
        except Exception as exc:
            self.raise_error(exc, text, params)

    def rows(self, sql: str, params: Params | None = None) -> list[Row]:
        rows: list[Row] = self._execute(sql, params).fetchall()
        return rows

    def first(self, sql: str, params: Params | None = None) -> Row | None:
        row: Row | None = self._execute(sql, params).fetchone()
        return row

    def first_named(self, sql: str, params: Params) -> dict[str, Any] | None:
        cursor = self._execute(sql, params)
        row = cursor.fetchone()
        if row is None:
            return None
        names = _ROW_NAMES.get(sql)
        if names is None:  # psycopg builds the description's columns anew on every read
            names = _ROW_NAMES[sql] = tuple(column.name for column in cursor.description)
        return dict(zip(names, row, strict=True))

    def run(self, sql: str, params: Params | None = None) -> None:
        self._execute(sql, params)

    def insert_id(self, sql: str, params: Params) -> int:
        return int(self._execute(f"{sql} RETURNING id", params).fetchone()[0])

    def many(self, sql: str, rows: Sequence[Params]) -> None:
        if rows:
            cursor, text = self.driver_cursor(), driver_sql(sql)
            try:
                cursor.executemany(text, list(rows))
            except Exception as exc:
                self.raise_error(exc, text, rows)


def connect_options(database_url: str) -> dict[str, Any] | None:
    """psycopg's connection options for a ``postgresql+psycopg://`` URL, as SQLAlchemy's
    dialect passes them (user, password, host, port, database, then the query's options);
    None for any other URL, or one this plain reading might read otherwise (an escaped
    database name, a repeated option, several hosts)."""
    try:
        parts = urlsplit(database_url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != PSYCOPG_SCHEME or "%" in parts.path or "," in parts.netloc:
        return None
    query = parse_qs(parts.query, keep_blank_values=True)
    if any(len(values) != 1 for values in query.values()):
        return None
    options: dict[str, Any] = {}
    if parts.username:
        options["user"] = unquote(parts.username)
    if parts.password is not None:
        options["password"] = unquote(parts.password)
    if parts.hostname:
        options["host"] = parts.hostname
    if port is not None:
        options["port"] = port
    if parts.path.strip("/"):
        options["dbname"] = parts.path.strip("/")
    options.update((key, values[0]) for key, values in query.items())
    return options


def read_postgresql(database_url: str, action: Callable[[Sql], T]) -> T | None:
    """``action`` on the PostgreSQL database of ``database_url``, each statement its own
    transaction (as ``Database.read``); None when the store must open it instead: another
    URL, psycopg missing, a schema that is not the current one (the store migrates it), or
    any error the server or the driver gave (the store then says what is wrong)."""
    options = connect_options(database_url)
    if options is None:
        return None
    try:
        import psycopg
    except ImportError:
        return None
    try:
        with psycopg.connect(autocommit=True, **options) as connection:
            sql = PsycopgSql(connection)
            if schema_revision(sql) != HEAD_REVISION:
                return None
            return action(sql)
    except psycopg.Error:
        return None
