"""Where the database lives, how it is opened, and the ways in: sessions and ``Sql``.

``open_database`` is the one way in: it takes the URL the app chose, opens a SQLite file through
store/sqlite_file.py's ``open_at_head`` (pragmas, quick check, revision), and brings an older
schema to ``HEAD_REVISION`` (store/migrate.py, a backup copy first). An up-to-date file is
opened without loading Alembic at all.

``Database.write`` and ``Database.read`` run ``Sql`` actions (store/sql.py): on SQLite on one
``sqlite3`` connection the database keeps, with no ORM session to set up (the answer, the next
card, the stats), on PostgreSQL on a SQLAlchemy connection's driver cursor (``AlchemySql``)
in a Core transaction. ``write_transaction`` runs an ORM action;
both retry through store/sql.py's ``retrying`` and are guarded by store/guard.py.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import InitVar, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DatabaseError,
    DBAPIError,
    NoSuchModuleError,
    OperationalError,
)

from kvdrill.engine.capacity.units import shorten
from kvdrill.engine.errors import DatabaseUnusable, UserError
from kvdrill.i18n import _
from kvdrill.store.guard import Guard, describe
from kvdrill.store.location import HEAD_REVISION, mask_password, sqlite_file
from kvdrill.store.pg_sql import PsycopgSql
from kvdrill.store.sql import Sql, SqliteFile, SqliteSql, retrying
from kvdrill.store.sqlite_file import connect, open_at_head, prepare_sqlite_file, set_pragmas

if TYPE_CHECKING:  # the ORM loads with the first session: Sql reads never need it
    from sqlalchemy.orm import Session, sessionmaker

T = TypeVar("T")
# A PostgreSQL advisory lock key (any 64-bit number no other kvdrill lock uses).
WRITE_LOCK = 0x6B76_6472_696C_6C02  # "kvdrill" 02
# A database server gone (stopped, restarted, the network down): the write is tried again after
# each wait, about two minutes in all, then given up with one line. Nothing was committed.
RECONNECT_WAITS_S = (0.2, 0.5, 1, 2, 3, 5, 5, 8, 10, 10, 15, 15, 15, 15)
# PostgreSQL's "connection exception" class and its shutdown states (admin, crash, starting).
_SERVER_GONE_SQLSTATES = ("57P01", "57P02", "57P03")


@dataclass
class Database:
    """An open, migrated database: the engine and a session factory, and on SQLite the kept
    connection ``write`` and ``read`` use (store/sql.py ``SqliteFile``)."""

    url: str
    engine: Engine
    path: Path | None  # the SQLite file, when there is one
    guard: Guard | None = None  # see store/guard.py
    # Told, once per outage, that the database server is unreachable and the write waits for
    # it (plain mode prints it; the store never prints).
    on_server_lost: Callable[[str], None] | None = None
    kept: InitVar[sqlite3.Connection | None] = None  # SQLite: the connection it was opened on
    sqlite: SqliteFile | None = field(default=None, repr=False, init=False)
    _pooled: Any = field(default=None, repr=False)  # in-memory SQLite: the pool's one connection

    def __post_init__(self, kept: sqlite3.Connection | None) -> None:
        if self.dialect == "sqlite":
            self.sqlite = SqliteFile(kept or self._sqlite_connection, self.guard)

    @property
    def dialect(self) -> str:
        return str(self.engine.dialect.name)

    @cached_property
    def sessionmaker(self) -> sessionmaker[Session]:
        from sqlalchemy.orm import sessionmaker

        return sessionmaker(self.engine, expire_on_commit=False)

    def _sqlite_connection(self) -> sqlite3.Connection:
        if self.path is not None:
            return connect(self.path)
        self._pooled = self.engine.raw_connection()  # in-memory: the one every session shares
        connection: sqlite3.Connection = self._pooled.dbapi_connection
        return connection

    def write(
        self, action: Callable[[Sql], T], locked_message: str, *, whole_database: bool = False
    ) -> T:
        """Run ``action`` in one write transaction, committed before this returns; run again if
        another process held the lock or won a conflict; still failing, a UserError with
        ``locked_message``, nothing written. ``whole_database``: see ``begin_write``."""
        if self.sqlite is not None:
            return self.sqlite.write(action, locked_message)

        # A Core transaction: the ORM session's own bookkeeping is not needed around SQL text.
        @contextmanager
        def transaction() -> Iterator[Sql]:
            with self.engine.begin() as connection:
                begin_write(connection, whole_database)
                yield AlchemySql(connection)

        return _through_outages(self, lambda: retrying(transaction, action, locked_message))

    def read(self, action: Callable[[Sql], T]) -> T:
        """Run ``action``'s reads, outside any write transaction."""
        if self.sqlite is not None:
            return self.sqlite.read(action)
        # Each statement its own transaction, as READ COMMITTED reads are inside one anyway:
        # no BEGIN and ROLLBACK round trips around a read (under load each waits its turn).
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            return action(AlchemySql(connection))

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits when the block ends normally and rolls back on an error."""
        session = self.sessionmaker()
        try:
            yield session
            session.commit()
        except sqlite3.Error as exc:  # from ``session_sql``'s statements on the same connection
            session.rollback()
            if self.guard is not None:
                self.guard.translate_error(exc)
            raise
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def close(self) -> None:
        if self.sqlite is not None:
            connection = self.sqlite.detach()
            if self._pooled is not None:
                self._pooled.close()
            elif connection is not None:
                connection.close()
            self._pooled = None
        self.engine.dispose()


class AlchemySql(PsycopgSql):
    """``Sql`` on a SQLAlchemy connection: the store's statement text on PostgreSQL, run by
    store/pg_sql.py's executor on the connection's own psycopg connection, in its transaction.
    SQLAlchemy's text clause and result layer cost more Python per statement than the
    statement's round trip (an answer runs eight); the driver's errors are raised as
    SQLAlchemy's execute raises them (wrapped, a cut connection invalidated), as ``retrying``
    and ``write_transaction`` expect (the guard's ``handle_error`` words SQLite's errors only)."""

    def __init__(self, connection: Connection):
        self.connection = connection
        self.dialect = str(connection.dialect.name)
        self._cursor = None

    def driver_cursor(self) -> Any:
        """The driver's cursor, inside the connection's transaction (begun as SQLAlchemy's own
        execute begins one)."""
        if not self.connection.in_transaction():
            self.connection.begin()
        if self._cursor is None:
            self._cursor = self.connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        return self._cursor

    def raise_error(self, exc: Exception, sql: str, params: Any) -> NoReturn:
        dialect = self.connection.dialect
        if not isinstance(exc, dialect.loaded_dbapi.Error):
            raise exc
        gone = dialect.is_disconnect(exc, self.connection.connection.dbapi_connection, self._cursor)
        if gone:  # so the pool reconnects
            self.connection.invalidate(exc)
        raise DBAPIError.instance(
            sql,
            params,
            exc,
            dialect.loaded_dbapi.Error,
            connection_invalidated=gone,
            dialect=dialect,
        ) from exc


def session_sql(session: Session) -> Sql:
    """``Sql`` inside the session's transaction: on SQLite its ``sqlite3`` connection (objects
    the session holds are flushed first), elsewhere its SQLAlchemy connection."""
    session.flush()
    return connection_sql(session.connection())


def connection_sql(connection: Connection) -> Sql:
    """``Sql`` inside a SQLAlchemy connection's transaction (a migration's, say): on SQLite its
    ``sqlite3`` connection, elsewhere the SQLAlchemy connection itself."""
    if connection.dialect.name == "sqlite":
        dbapi = connection.connection.dbapi_connection
        assert isinstance(dbapi, sqlite3.Connection)
        return SqliteSql(dbapi)
    return AlchemySql(connection)


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
            _("{resolved}{source} is not a database URL (try sqlite:///path/to/file.db)").format(
                resolved=repr(mask_password(shorten(resolved, 200))), source=source
            )
        ) from None
    path = sqlite_file(resolved)
    options: dict[str, Any] = {}
    if sa_url.get_backend_name() == "sqlite" and path is None:
        # One in-memory database shared by every thread (the TUI works in worker threads).
        from sqlalchemy.pool import StaticPool

        options = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
    try:
        engine = create_engine(sa_url, **options)
    except ImportError as exc:
        if sa_url.get_backend_name() == "postgresql":
            raise UserError(
                _(
                    "a PostgreSQL database needs its driver ({error}): pip install 'kvdrill[postgres]'"
                ).format(error=exc)
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
        event.listen(
            engine, "connect", lambda dbapi_connection, _record: set_pragmas(dbapi_connection)
        )
    if path is not None:
        prepare_sqlite_file(path, create_folder)
    guard = Guard(engine.url.render_as_string(), path)
    guard.install(engine)
    raw = None
    try:
        if path is not None:
            raw, revision = open_at_head(path, check=check)
            if revision != HEAD_REVISION:
                raw.close()
                raw = None
        if raw is None:
            _migrate_to_head(engine, path)
        guard.opened()
    except UserError:
        _close_all(engine, raw)
        raise
    except (DatabaseError, sqlite3.Error, OSError) as exc:
        _close_all(engine, raw)
        where = str(path) if path is not None else resolved
        reason = getattr(exc, "orig", None) or exc
        if "not a database" in str(reason):
            raise UserError(_("{where} is not a SQLite database").format(where=where)) from None
        if "malformed" in str(reason):
            raise DatabaseUnusable(
                _("the database {where} is damaged ({reason}); nothing was written to it").format(
                    where=where, reason=reason
                )
            ) from None
        raise UserError(
            mask_password(f"cannot open the database {where}: {describe(reason)}")
        ) from None
    return Database(
        url=resolved,
        engine=engine,
        path=path,
        guard=guard,
        kept=raw,
    )


def _close_all(engine: Engine, raw: sqlite3.Connection | None) -> None:
    if raw is not None:
        raw.close()
    engine.dispose()


def _migrate_to_head(engine: Engine, path: Path | None) -> None:
    from kvdrill.store.migrate import current_revision

    with engine.connect() as connection:
        if current_revision(connection) == HEAD_REVISION:
            return
    from kvdrill.store.migrate import migrate

    migrate(engine, path)


def begin_write(target: Session | Connection, whole_database: bool = False) -> None:
    """Take the write lock now, so a read-check-write sequence cannot race another process.

    Call it first thing in a fresh session (or Core transaction); the lock is held until it
    commits. SQLite has one lock: every writer waits for the one before. On PostgreSQL,
    ``whole_database`` writers (imports, which retire and re-tag cards) take an advisory lock
    alone, and the others (answers, notes, settings) share it, serializing only per card
    (``Sql.lock_card``): an import never interleaves with an answer, and two learners never
    wait for each other.
    """
    connection = target if isinstance(target, Connection) else target.connection()
    if connection.dialect.name == "postgresql":
        shared = "" if whole_database else "_shared"
        AlchemySql(connection).run(
            f"SELECT pg_advisory_xact_lock{shared}(:key)", {"key": WRITE_LOCK}
        )
    elif connection.dialect.name == "sqlite":
        dbapi = connection.connection.dbapi_connection
        if isinstance(dbapi, sqlite3.Connection) and not dbapi.in_transaction:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


def write_transaction(
    database: Database,
    action: Callable[[Session], T],
    locked_message: str,
    *,
    whole_database: bool = False,
) -> T:
    """Run ``action`` in one write transaction of an ORM session; run it again as
    ``Database.write`` does (store/sql.py ``retrying``, ``_through_outages``)."""

    @contextmanager
    def transaction() -> Iterator[Session]:
        with database.session() as session:
            begin_write(session, whole_database)
            yield session

    return _through_outages(database, lambda: retrying(transaction, action, locked_message))


def _through_outages(database: Database, attempt: Callable[[], T]) -> T:
    """``attempt()``, a write transaction; a database server that went away is waited for
    (``RECONNECT_WAITS_S``; the pool reconnects) and the transaction run again once it is
    back: nothing was committed, so nothing doubles."""
    outage = 0
    while True:
        try:
            return attempt()
        except OperationalError as exc:
            if not server_gone(database, exc):
                raise
            if outage == len(RECONNECT_WAITS_S):
                raise DatabaseUnusable(
                    mask_password(
                        f"the database server of {database.url} has not come back "
                        f"({describe(exc.orig or exc)}); this answer was not saved, every one "
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


def lock_card(session: Session, profile_id: int, card_id: int) -> None:
    """``Sql.lock_card`` in the session's transaction."""
    session_sql(session).lock_card(profile_id, card_id)
