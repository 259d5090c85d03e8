"""One way to run the store's SQL, on either database. Standard library only.

A statement is written once, as text with ``:name`` parameters, and run through an ``Sql``
executor: ``SqliteSql`` runs it on SQLite through ``sqlite3``; store/db.py's ``AlchemySql`` runs
the same text on PostgreSQL through SQLAlchemy. The few statements that must differ by dialect
are written once per dialect, side by side (``DIALECT_SQL`` here, ``LOCK_CARD_SQL`` below).
Values go in as each database stores them (``Sql.time``, ``Sql.day``, ``Sql.json``): on SQLite
the text SQLAlchemy's models write, so rows written either way read back the same.

One write transaction and its retries serve every writer: ``SqliteTransaction`` (``BEGIN
IMMEDIATE``, the file's identity checked before ``COMMIT``, SQLite's errors worded by the guard)
and ``retrying`` (run again while another process holds the lock or wins a conflict, then one
clear line). Being standard library only, the fast start, ``kvdrill stats`` and ``kvdrill
import`` run through here without loading SQLAlchemy.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import date, datetime
from itertools import repeat
from operator import is_, itemgetter
from typing import TYPE_CHECKING, Any, TypeVar

from kvdrill.engine.errors import UserError

if TYPE_CHECKING:
    from kvdrill.store.guard import Guard

T = TypeVar("T")
Row = Sequence[Any]
Params = dict[str, Any]

WRITE_ATTEMPTS = 3
# PostgreSQL's serialization failure and deadlock: another writer won, run it again.
_RETRYABLE_SQLSTATES = ("40001", "40P01")
# SQLite's words for a lock another process held past the busy timeout.
_LOCKED_WORDS = ("locked", "busy")

# The statements that differ by dialect, side by side: dialect -> text.
SCHEMA_HAS_REVISION_SQL = {
    "sqlite": "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'",
    "postgresql": "SELECT 1 WHERE to_regclass('alembic_version') IS NOT NULL",
}
# Serialize the writers of one card for one profile until the transaction ends (PostgreSQL's
# advisory lock; SQLite's write transaction already holds the whole file).
LOCK_CARD_SQL = {
    "sqlite": None,
    "postgresql": "SELECT pg_advisory_xact_lock(:profile_id, :card_id)",
}
REVISION_SQL = "SELECT version_num FROM alembic_version"


class Sql:
    """Statement text run on one database connection, inside the caller's transaction."""

    dialect: str

    @property
    def sqlite(self) -> bool:
        return self.dialect == "sqlite"

    def rows(self, sql: str, params: Params | None = None) -> list[Row]:
        raise NotImplementedError

    def first(self, sql: str, params: Params | None = None) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def first_named(self, sql: str, params: Params) -> dict[str, Any] | None:
        """The first row as column -> value (None: no row)."""
        raise NotImplementedError

    def run(self, sql: str, params: Params | None = None) -> None:
        raise NotImplementedError

    def insert_id(self, sql: str, params: Params) -> int:
        """Run one ``INSERT`` into a table with an ``id`` key; the new row's id."""
        raise NotImplementedError

    def many(self, sql: str, rows: Sequence[Params]) -> None:
        raise NotImplementedError

    def insert(self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        """Insert ``rows``, each a tuple in ``columns`` order."""
        if rows:
            names = ", ".join(columns)
            marks = ", ".join(f":{column}" for column in columns)
            self.many(
                f"INSERT INTO {table} ({names}) VALUES ({marks})",
                [dict(zip(columns, row, strict=True)) for row in rows],
            )

    def in_sqlite_transaction(self) -> bool:
        """On SQLite, inside an open transaction: DDL here is part of it, rolled back with it."""
        return False

    def lock_card(self, profile_id: int, card_id: int) -> None:
        """Serialize the writers of one card's state for one profile until the transaction
        ends. Every read-then-write of a card state calls it first, so two machines answering
        the same card cannot both read the old state (PostgreSQL's READ COMMITTED gives each
        statement a fresh snapshot); an advisory lock also covers a card with no state row
        yet, where ``SELECT ... FOR UPDATE`` would lock nothing. Taken after the write lock
        (``begin_write``): one order, no deadlock."""
        sql = LOCK_CARD_SQL[self.dialect]
        if sql is not None:
            self.rows(sql, {"profile_id": profile_id, "card_id": card_id})

    # Values as the database stores them.

    @staticmethod
    def json(value: Any) -> str | None:
        if value is None:
            return None
        # Most cards have no choices, no related prompts: skip the encoder for those.
        return "[]" if value == [] else json.dumps(value)

    def time(self, value: datetime) -> datetime | str:
        """On SQLite the text SQLAlchemy's ``DateTime`` writes (its fields, no zone)."""
        if not self.sqlite:
            return value
        if value.tzinfo is not None:
            value = value.replace(tzinfo=None)
        return value.isoformat(" ", "microseconds")

    def day(self, value: date) -> date | str:
        return value.isoformat() if self.sqlite else value

    def boolean(self, value: bool) -> bool | int:
        """On SQLite 0 or 1: ``sqlite3`` binds a bool only after failing to find an adapter
        for it, several times the cost of an int."""
        return int(value) if self.sqlite else value


class SqliteSql(Sql):
    """``Sql`` on a ``sqlite3`` connection (which reads ``:name`` parameters itself)."""

    dialect = "sqlite"
    sqlite = True  # not the property's comparison: the answer path asks a dozen times

    def __init__(self, connection: sqlite3.Connection):
        self.connection = connection
        self.cursor = connection.cursor()

    # The values as SQLite stores them, by the builtins themselves (no Python call each: an
    # answer converts half a dozen): a day's ISO text, a bool's 0 or 1.
    day = staticmethod(date.isoformat)  # type: ignore[assignment]
    boolean = staticmethod(int)  # type: ignore[assignment]

    def rows(self, sql: str, params: Params | None = None) -> list[Row]:
        return self.cursor.execute(sql, params or {}).fetchall()

    def first(self, sql: str, params: Params | None = None) -> Row | None:
        row: Row | None = self.cursor.execute(sql, params or {}).fetchone()
        return row

    def first_named(self, sql: str, params: Params) -> dict[str, Any] | None:
        cursor = self.cursor
        row = cursor.execute(sql, params).fetchone()
        names = _ROW_NAMES.get(sql)
        if names is None:
            names = _ROW_NAMES[sql] = tuple(column[0] for column in cursor.description)
        # A plain dict: looking a column up in a ``sqlite3.Row`` compares the names one by one.
        return None if row is None else dict(zip(names, row, strict=True))

    def run(self, sql: str, params: Params | Sequence[Any] | None = None) -> None:
        self.cursor.execute(sql, params or {})

    def insert_id(self, sql: str, params: Params | Sequence[Any]) -> int:
        cursor = self.cursor.execute(sql, params)
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def many(self, sql: str, rows: Sequence[Params]) -> None:
        if rows:
            self.cursor.executemany(sql, rows)

    def insert(self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        # ``?`` parameters: no dict, no name lookup per value.
        if rows:
            marks = ", ".join("?" * len(columns))
            self.cursor.executemany(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows
            )

    def in_sqlite_transaction(self) -> bool:
        return self.connection.in_transaction

    def close(self) -> None:
        self.cursor.close()


# The column names of each statement ``first_named`` has run (a few fixed texts).
_ROW_NAMES: dict[str, tuple[str, ...]] = {}


class NullsInText:
    """An INSERT or UPDATE whose None values are written as NULL in its SQL text.

    ``sqlite3`` binds a None only after looking for an adapter for it, which raises and
    formats an AttributeError each time (an answer has a dozen Nones). One text per pattern
    of NULLs, made on first use (an answer meets a handful), binds the rest. The text is
    plain SQL, the same on every dialect; on SQLite its marks are ``?`` and the values go in
    their columns' order (``sqlite3`` finds a ``:name`` by making and hashing a new string)."""

    def __init__(self, columns: tuple[str, ...], text: Callable[[list[str]], str]):
        self._columns = columns
        self._text = text  # the statement, given each column's mark (``:name``, ``?``, ``NULL``)
        self._named: dict[tuple[bool, ...], str] = {}
        self._ordered: dict[tuple[bool, ...], tuple[str, Callable[[Params], Any]]] = {}

    def run(self, sql: Sql, values: Params) -> None:
        if isinstance(sql, SqliteSql):
            text, ordered = self._ordered_for(values)
            sql.run(text, ordered(values))
        else:
            sql.run(self._named_for(values), values)

    def insert_id(self, sql: Sql, values: Params) -> int:
        if isinstance(sql, SqliteSql):
            text, ordered = self._ordered_for(values)
            return sql.insert_id(text, ordered(values))
        return sql.insert_id(self._named_for(values), values)

    def _nulls(self, values: Params) -> tuple[bool, ...]:
        return tuple(map(is_, repeat(None), map(values.__getitem__, self._columns)))

    def _named_for(self, values: Params) -> str:
        nulls = self._nulls(values)
        text = self._named.get(nulls)
        if text is None:
            marks = [
                "NULL" if null else f":{name}"
                for name, null in zip(self._columns, nulls, strict=True)
            ]
            text = self._named[nulls] = self._text(marks)
        return text

    def _ordered_for(self, values: Params) -> tuple[str, Callable[[Params], Any]]:
        # ``_nulls`` written out: this runs for two statements of every answer.
        nulls = tuple(map(is_, repeat(None), map(values.__getitem__, self._columns)))
        found = self._ordered.get(nulls)
        if found is None:
            bound = [name for name, null in zip(self._columns, nulls, strict=True) if not null]
            # An itemgetter of one name gives the value itself, not a tuple of it.
            ordered = itemgetter(*bound) if len(bound) > 1 else _values_of(bound)
            text = self._text(["NULL" if null else "?" for null in nulls])
            found = self._ordered[nulls] = (text, ordered)
        return found


def _values_of(names: list[str]) -> Callable[[Params], tuple[Any, ...]]:
    return lambda values: tuple(values[name] for name in names)


def insert_statement(table: str, columns: tuple[str, ...]) -> NullsInText:
    names = ", ".join(columns)
    return NullsInText(
        columns, lambda marks: f"INSERT INTO {table} ({names}) VALUES ({', '.join(marks)})"
    )


def update_statement(table: str, columns: tuple[str, ...], key: tuple[str, ...]) -> NullsInText:
    """``UPDATE table SET columns WHERE`` each of ``key`` equals its value."""

    def text(marks: list[str]) -> str:
        sets = ", ".join(f"{name} = {mark}" for name, mark in zip(columns, marks, strict=False))
        where = " AND ".join(
            f"{name} = {mark}" for name, mark in zip(key, marks[len(columns) :], strict=True)
        )
        return f"UPDATE {table} SET {sets} WHERE {where}"

    return NullsInText((*columns, *key), text)


def schema_revision(sql: Sql) -> str | None:
    """The schema revision recorded in the database (Alembic's table); None if it has none."""
    if sql.first(SCHEMA_HAS_REVISION_SQL[sql.dialect]) is None:
        return None
    row = sql.first(REVISION_SQL)
    return None if row is None else str(row[0])


def is_locked(error: BaseException) -> bool:
    """SQLite's words for a lock another process held past the busy timeout."""
    return isinstance(error, sqlite3.OperationalError) and any(
        word in str(error) for word in _LOCKED_WORDS
    )


def is_retryable(error: BaseException) -> bool:
    """True when the failed write transaction may be run again as it is (another writer won):
    SQLite's lock, or PostgreSQL's serialization failure or deadlock. ``error`` is the
    driver's, or SQLAlchemy's wrapping it (``orig``)."""
    original = getattr(error, "orig", None) or error
    if is_locked(original):
        return True
    return getattr(original, "sqlstate", None) in _RETRYABLE_SQLSTATES


def retrying(
    transaction: Callable[[], AbstractContextManager[Any]],
    action: Callable[[Any], T],
    locked_message: str,
) -> T:
    """Run ``action`` in a write transaction from ``transaction()``; run it again in a new one
    if another process held the lock or won a conflict. Still failing after
    ``WRITE_ATTEMPTS``: a UserError with ``locked_message``, nothing written."""
    for attempt in range(1, WRITE_ATTEMPTS + 1):
        try:
            with transaction() as target:
                return action(target)
        except Exception as exc:
            if not is_retryable(exc):
                raise
            if attempt == WRITE_ATTEMPTS:
                raise UserError(locked_message) from None
    raise AssertionError("unreachable")


class SqliteTransaction:
    """One transaction on a ``sqlite3`` connection in autocommit mode, as a ``with`` block
    giving its ``SqliteSql``: committed when the block ends normally (after the guard checks
    the file is still the one opened), rolled back on any error, SQLite's errors worded by the
    guard (a busy lock is left for ``retrying``). ``write`` takes the write lock first: another
    writer waits, then sees this one's rows. A class rather than a generator-made context:
    every answer runs in one, between the grade and the next card."""

    __slots__ = ("_connection", "_guard", "_write", "_sql")

    def __init__(self, connection: sqlite3.Connection, guard: Guard | None, *, write: bool):
        self._connection = connection
        self._guard = guard
        self._write = write

    def __enter__(self) -> SqliteSql:
        sql = self._sql = SqliteSql(self._connection)
        try:
            sql.cursor.execute("BEGIN IMMEDIATE" if self._write else "BEGIN")
        except BaseException as exc:
            self._end(exc)
            raise
        return sql

    def __exit__(self, kind: object, error: BaseException | None, traceback: object) -> None:
        if error is not None:
            self._end(error)
            return
        try:
            if self._write and self._guard is not None:
                self._guard.check_identity(self._connection)
            # The cursor's COMMIT comes from the statement cache (``connection.commit()``
            # prepares its own every time).
            self._sql.cursor.execute("COMMIT")
        except BaseException as exc:
            self._end(exc)
            raise
        self._sql.close()

    def _end(self, error: BaseException) -> None:
        """After ``error``: roll back, close, and raise the guard's words for a SQLite error."""
        connection = self._connection
        try:
            if connection.in_transaction:
                connection.rollback()
            if isinstance(error, sqlite3.Error) and self._guard is not None:
                self._guard.translate_error(error, connection)
        finally:
            self._sql.close()


class SqliteFile:
    """The writes and reads of one kept ``sqlite3`` connection, one thread at a time: what
    store/db.py's ``Database`` runs ``Sql`` actions on for a SQLite file, and what ``kvdrill
    import`` writes through without SQLAlchemy (store/sqlite_import.py)."""

    def __init__(
        self,
        connection: sqlite3.Connection | Callable[[], sqlite3.Connection],
        guard: Guard | None,
    ):
        """``connection``: an open one, or what opens it on first use."""
        if isinstance(connection, sqlite3.Connection):
            self._open: Callable[[], sqlite3.Connection] | None = None
            self._connection: sqlite3.Connection | None = connection
        else:
            self._open, self._connection = connection, None
        self.guard = guard
        self.lock = threading.Lock()

    def connection(self) -> sqlite3.Connection:
        """The kept connection; use it only while holding ``lock``."""
        if self._connection is None:
            assert self._open is not None, "used after detach"
            self._connection = self._open()
        return self._connection

    def write(self, action: Callable[[SqliteSql], T], locked_message: str) -> T:
        """``action`` in one write transaction (``SqliteTransaction``), retried (``retrying``)."""
        with self.lock:
            connection = self.connection()
            return retrying(
                lambda: SqliteTransaction(connection, self.guard, write=True),
                action,
                locked_message,
            )

    def read(self, action: Callable[[SqliteSql], T]) -> T:
        """``action``'s reads, outside a transaction (each statement sees the latest commit)."""
        with self.lock:
            connection = self.connection()
            # No generator-made context here: this read sits between an answer and the next card.
            sql = SqliteSql(connection)
            try:
                return action(sql)
            except sqlite3.Error as exc:
                if self.guard is not None:
                    self.guard.translate_error(exc, connection)
                raise
            finally:
                sql.close()

    def detach(self) -> sqlite3.Connection | None:
        """Stop using the connection and hand it back (None: never opened)."""
        with self.lock:
            connection, self._connection, self._open = self._connection, None, None
            return connection
