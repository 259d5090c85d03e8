"""Where the database lives, how it is opened, and keeping its schema at the current revision.

``open_database`` is the one way in: it takes the URL the app chose, sets SQLite's pragmas on every
connection (WAL, foreign keys, busy timeout), and brings the schema to ``HEAD_REVISION`` with
Alembic, writing a backup copy of an older database first. An up-to-date database is opened
without loading Alembic at all: one ``SELECT`` on ``alembic_version``.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from kvdrill.engine.capacity.units import shorten
from kvdrill.engine.errors import DatabaseUnusable, UserError
from kvdrill.store.guard import Guard, check_on_open, describe
from kvdrill.store.location import HEAD_REVISION, mask_password, sqlite_file

# The pragmas and the file checks live in store/sqlite_file.py (standard library only, so
# ``kvdrill import`` uses them without SQLAlchemy). SQLITE_PRAGMAS is read through this module's
# name on every connection, so a benchmark may set ``db.SQLITE_PRAGMAS``.
from kvdrill.store.sqlite_file import (  # noqa: F401
    SQLITE_HEADER,
    SQLITE_PRAGMAS,
    prepare_sqlite_file,
    set_pragmas,
)

T = TypeVar("T")
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# PostgreSQL advisory lock keys (any 64-bit numbers no other kvdrill lock uses).
MIGRATION_LOCK = 0x6B76_6472_696C_6C01  # "kvdrill" 01
WRITE_LOCK = 0x6B76_6472_696C_6C02
# Errors after which a write transaction is simply run again: SQLite's lock held too long, and
# PostgreSQL's serialization failure and deadlock (SQLSTATE 40001, 40P01).
_RETRYABLE_SQLSTATES = ("40001", "40P01")
WRITE_ATTEMPTS = 3
# A database server gone (stopped, restarted, the network down): the write is tried again after
# each wait, about two minutes in all, then given up with one line. Nothing was committed.
RECONNECT_WAITS_S = (0.2, 0.5, 1, 2, 3, 5, 5, 8, 10, 10, 15, 15, 15, 15)
# PostgreSQL's "connection exception" class and its shutdown states (admin, crash, starting).
_SERVER_GONE_SQLSTATES = ("57P01", "57P02", "57P03")
_MIGRATION_LOCK = threading.Lock()


@dataclass
class Database:
    """An open, migrated database: the engine and a session factory."""

    url: str
    engine: Engine
    sessionmaker: sessionmaker[Session]
    path: Path | None  # the SQLite file, when there is one
    guard: Guard | None = None  # see store/guard.py
    # Told, once per outage, that the database server is unreachable and the write waits for
    # it (plain mode prints it; the store never prints).
    on_server_lost: Callable[[str], None] | None = None
    # The answer path's own DB-API connection (SQLite only), opened on first use; see
    # ``raw_connection``.
    _raw: Any = field(default=None, repr=False)
    raw_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def answers_raw(self) -> bool:
        """True when answers go through ``raw_connection`` (SQLite); PostgreSQL keeps the
        session and Core statements (its advisory locks, store/db.py ``lock_card``)."""
        return self.engine.dialect.name == "sqlite"

    def raw_connection(self) -> sqlite3.Connection:
        """One SQLite DB-API connection kept for the answer path, with the pool's pragmas.

        An answer's few statements cost less than an ORM session's setup and a pool checkout
        each time (scripts/bench_vs_anki.py); the connection runs in autocommit between
        transactions, so it holds no snapshot. Use it only while holding ``raw_lock``."""
        if self._raw is None:
            self._raw = self.engine.raw_connection()
        return self._raw.dbapi_connection

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits when the block ends normally and rolls back on an error."""
        session = self.sessionmaker()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def close(self) -> None:
        with self.raw_lock:
            if self._raw is not None:
                self._raw.close()
                self._raw = None
        self.engine.dispose()


def open_database(
    url: str, url_source: str = "", create_folder: bool = False, check: bool = True
) -> Database:
    """Open (creating if needed) the database at ``url`` and migrate it to the current schema.

    ``url_source`` says where the URL came from (``$KVDRILL_DB``, say), for error messages.
    ``create_folder``: the file's folder may be created (kvdrill's own data folder); a folder
    named in --db or $KVDRILL_DB must exist, so a typo does not leave new folders about.
    ``check=False`` skips the quick check on open, for ``kvdrill doctor``, which checks in full
    and reports a damaged file rather than refusing to look at it."""
    resolved = url
    # A bad URL from the environment is a mystery unless the message says where it came from.
    source = f" (from {url_source})" if url_source else ""
    try:
        sa_url = make_url(resolved)
    except ArgumentError:
        raise UserError(
            f"{mask_password(shorten(resolved, 200))!r}{source} is not a database URL "
            "(try sqlite:///path/to/file.db)"
        ) from None
    path = sqlite_file(resolved)
    options: dict = {}
    if sa_url.get_backend_name() == "sqlite" and path is None:
        # One in-memory database shared by every thread (the TUI works in worker threads).
        from sqlalchemy.pool import StaticPool

        options = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
    try:
        engine = create_engine(sa_url, **options)
    except ImportError as exc:
        if sa_url.get_backend_name() == "postgresql":
            raise UserError(
                f"a PostgreSQL database needs its driver ({exc}): pip install 'kvdrill[postgres]'"
            ) from None
        raise UserError(
            mask_password(f"cannot use database URL {resolved!r}{source}: {exc}")
        ) from None
    except (NoSuchModuleError, ValueError, TypeError) as exc:
        # ValueError/TypeError: a query option SQLAlchemy cannot read, such as ?timeout=abc.
        raise UserError(
            mask_password(f"cannot use database URL {resolved!r}{source}: {exc}")
        ) from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _set_sqlite_pragmas)
    if path is not None:
        prepare_sqlite_file(path, create_folder)
    guard = Guard(engine, path)
    try:
        if path is not None and check:
            with engine.connect() as connection:
                check_on_open(connection, path)
        _migrate_to_head(engine, path)
        guard.opened()
    except UserError:
        engine.dispose()
        raise
    except (DatabaseError, OSError) as exc:
        engine.dispose()
        where = str(path) if path is not None else resolved
        reason = getattr(exc, "orig", None) or exc
        if "not a database" in str(reason):
            raise UserError(f"{where} is not a SQLite database") from None
        if "malformed" in str(reason):
            raise DatabaseUnusable(
                f"the database {where} is damaged ({reason}); nothing was written to it"
            ) from None
        raise UserError(
            mask_password(f"cannot open the database {where}: {describe(reason)}")
        ) from None
    return Database(
        url=resolved,
        engine=engine,
        sessionmaker=sessionmaker(engine, expire_on_commit=False),
        path=path,
        guard=guard,
    )


def _set_sqlite_pragmas(dbapi_connection, _record) -> None:
    set_pragmas(dbapi_connection, SQLITE_PRAGMAS)


def current_revision(connection: Connection) -> str | None:
    """The schema revision recorded in the database, or None if it has none."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _migrate_to_head(engine: Engine, path: Path | None) -> None:
    with engine.connect() as connection:
        if current_revision(connection) == HEAD_REVISION:
            return
    _run_migrations(engine, path)


def _run_migrations(engine: Engine, path: Path | None) -> None:
    """Upgrade to head under a write lock, so two processes starting at once migrate once."""
    # Imported before the write lock is taken: under load an import inside it can outlast the
    # other processes' busy timeout.
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    script = ScriptDirectory.from_config(config)
    known = {rev.revision for rev in script.walk_revisions()}

    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            # Foreign keys off while tables are rebuilt (SQLite's documented procedure for schema
            # changes); checked again before commit. The pragma is a no-op inside a transaction.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        elif engine.dialect.name == "postgresql":
            # PostgreSQL's DDL is transactional: the whole upgrade is one transaction, and this
            # lock (held until it ends) makes a second process wait, then find the schema current.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        revision = current_revision(connection)
        if revision is not None and revision not in known:
            connection.rollback()
            raise UserError(
                mask_password(
                    f"the database {path or engine.url} was written by a newer kvdrill "
                    f"(schema revision {revision}); upgrade kvdrill to use it"
                )
            )
        if revision is None and _has_tables(connection):
            connection.rollback()
            raise UserError(
                mask_password(f"the database {path or engine.url} is not a kvdrill database")
            )
        if revision != HEAD_REVISION:
            if revision is not None and path is not None:
                backup_sqlite(path, revision)
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            if sqlite:
                problems = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if problems:
                    connection.rollback()
                    raise UserError(
                        f"upgrading the database {path} broke {len(problems)} references; "
                        "nothing was changed"
                    )
        connection.commit()
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")


def _has_tables(connection: Connection) -> bool:
    return bool(inspect(connection).get_table_names())


def backup_sqlite(path: Path, revision: str) -> Path:
    """Copy the database beside itself as ``<name>.bak-<revision>-<timestamp>``; return the copy.

    The timestamp is the file's own modification time: the store does not read the clock, and
    the copy is named for the database state it keeps."""
    stamp = datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.bak-{revision}-{stamp}")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.bak-{revision}-{stamp}-{counter}")
    source = sqlite3.connect(path)
    try:
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    return target


def begin_write(session: Session | sqlite3.Cursor, whole_database: bool = False) -> None:
    """Take the write lock now, so a read-check-write sequence cannot race another process.

    Call it first thing in a fresh session; the lock is held until the session commits. SQLite
    has one lock: every writer waits for the one before. On PostgreSQL, ``whole_database``
    writers (imports, which retire and re-tag cards) take an advisory lock alone, and the
    others (answers, notes, settings) share it, serializing only per card (``lock_card``):
    an import never interleaves with an answer, and two learners never wait for each other.
    A cursor of ``Database.raw_connection`` (SQLite) begins its transaction the same way.
    """
    if isinstance(session, sqlite3.Cursor):
        session.execute("BEGIN IMMEDIATE")
        return
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        shared = "" if whole_database else "_shared"
        connection.execute(text(f"SELECT pg_advisory_xact_lock{shared}(:key)"), {"key": WRITE_LOCK})
    elif (
        connection.dialect.name == "sqlite"
        and not connection.connection.dbapi_connection.in_transaction
    ):
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def write_transaction(database: Database, action: Callable[[Session], T], locked_message: str) -> T:
    """Run ``action`` in one write transaction; run it again if another process held the lock
    (SQLite) or won a conflict (PostgreSQL's deadlock or serialization failure).

    Still failing after ``WRITE_ATTEMPTS``: a UserError with ``locked_message``, nothing written.
    A database server that went away is waited for (``RECONNECT_WAITS_S``; the pool reconnects)
    and the transaction run again once it is back: nothing was committed, so nothing doubles."""
    attempt, outage = 1, 0
    while True:
        try:
            with database.session() as session:
                begin_write(session)
                return action(session)
        except OperationalError as exc:
            if server_gone(database, exc):
                if outage == len(RECONNECT_WAITS_S):
                    raise DatabaseUnusable(
                        mask_password(
                            f"the database server of {database.url} has not come back "
                            f"({describe(exc.orig)}); this answer was not saved, every one "
                            "confirmed before is kept"
                        )
                    ) from None
                if outage == 0 and database.on_server_lost is not None:
                    database.on_server_lost(
                        "the database server went away (stopped, restarted or unreachable); "
                        "waiting for it to save this answer"
                    )
                time.sleep(RECONNECT_WAITS_S[outage])
                outage += 1
                continue
            if not is_retryable(exc):
                raise
            if attempt == WRITE_ATTEMPTS:
                raise UserError(locked_message) from None
            attempt += 1


def server_gone(database: Database, exc: OperationalError) -> bool:
    """True when a PostgreSQL write failed because the server cannot be reached: the
    connection was cut, or none could be made."""
    if database.engine.dialect.name != "postgresql":
        return False
    sqlstate = getattr(exc.orig, "sqlstate", None)
    return (
        exc.connection_invalidated
        or sqlstate is None
        or sqlstate.startswith("08")
        or sqlstate in _SERVER_GONE_SQLSTATES
    )


def raw_write_transaction(
    database: Database, action: Callable[[sqlite3.Cursor], T], locked_message: str
) -> T:
    """``write_transaction`` on SQLite through ``Database.raw_connection``: ``action`` gets a
    cursor inside ``BEGIN IMMEDIATE``; the file's identity is checked before the commit and
    SQLite's errors read as the guard words them (store/guard.py), as on the session path."""
    guard = database.guard
    with database.raw_lock:
        connection = database.raw_connection()
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            cursor = connection.cursor()
            try:
                begin_write(cursor)
                result = action(cursor)
                if guard is not None:
                    guard.check_identity_raw(connection)
                # Not ``connection.commit()``, which prepares its COMMIT anew every time: the
                # cursor's comes from the statement cache.
                cursor.execute("COMMIT")
                return result
            except (sqlite3.Error, OperationalError) as exc:
                connection.rollback()
                if _locked(str(exc)):
                    if attempt == WRITE_ATTEMPTS:
                        raise UserError(locked_message) from None
                    continue
                if guard is not None:
                    guard.translate_raw_error(getattr(exc, "orig", exc), connection)
                raise
            except BaseException:
                if connection.in_transaction:
                    connection.rollback()
                raise
            finally:
                cursor.close()
    raise AssertionError("unreachable")


def raw_read_row(database: Database, sql: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The first row of one read on ``Database.raw_connection`` (SQLite), column -> value."""
    with database.raw_lock:
        cursor = database.raw_connection().cursor()
        try:
            row = cursor.execute(sql, params).fetchone()
            names = _ROW_NAMES.get(sql)
            if names is None:
                names = _ROW_NAMES[sql] = tuple(column[0] for column in cursor.description)
        except sqlite3.Error as exc:
            if database.guard is not None:
                database.guard.translate_raw_error(exc)
            raise
        finally:
            cursor.close()
    # A plain dict: looking a column up in a ``sqlite3.Row`` compares the names one by one.
    return None if row is None else dict(zip(names, row, strict=True))


# The column names of each statement ``raw_read_row`` has run (a few fixed texts).
_ROW_NAMES: dict[str, tuple[str, ...]] = {}


def lock_card(session: Session, profile_id: int, card_id: int) -> None:
    """Serialize the writers of one card's schedule for one profile until the transaction ends.

    Every read-then-write of a card state (an answer, undo, suspend, bury, a note) calls it
    first, so two machines answering the same card cannot both read the old state: the second
    waits, then reads the first one's answer (PostgreSQL's READ COMMITTED gives each statement
    a fresh snapshot). On PostgreSQL it is a transaction-scoped advisory lock on the pair,
    which also covers a card that has no state row yet, where ``SELECT ... FOR UPDATE`` would
    lock nothing. Call it after ``begin_write``, which on SQLite already holds the database's
    write lock (on PostgreSQL, the database lock before the card's: one order, no deadlock).
    """
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.execute(
            text("SELECT pg_advisory_xact_lock(:profile, :card)"),
            {"profile": profile_id, "card": card_id},
        )


def is_retryable(exc: OperationalError) -> bool:
    """True when the failed write transaction may be run again as it is (another writer won)."""
    sqlstate = getattr(exc.orig, "sqlstate", None)
    if sqlstate is not None:
        return sqlstate in _RETRYABLE_SQLSTATES
    return _locked(str(exc))


def _locked(message: str) -> bool:
    """SQLite's words for a lock another process held past the busy timeout."""
    return "locked" in message or "busy" in message
