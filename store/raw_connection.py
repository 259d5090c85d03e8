"""The ``sqlite3`` connection under an open SQLAlchemy one, typed (SQLAlchemy's is optional).

Standard library only at run time: the sqlite3-only paths (fast stats, fast import) load it.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from sqlalchemy import Connection


def sqlite_connection(connection: Connection) -> sqlite3.Connection:
    """The ``sqlite3`` connection under ``connection``, open, on SQLite."""
    return cast(sqlite3.Connection, connection.connection.dbapi_connection)
