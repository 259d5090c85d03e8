"""Where the database lives, and the schema revision this kvdrill expects. Standard library only.

Shared by store/db.py and the fast-start helper (app/first_card.py), which reads the first card
before SQLAlchemy is imported.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

# The newest migration in store/migrations/versions. tests/test_db.py fails if it falls behind.
HEAD_REVISION = "0003"

DB_FILENAME = "kvdrill.db"

# The parts of a database URL that say where a SQLite file is, read as SQLAlchemy's make_url reads
# them: ``dialect[+driver]://[user[:password]@][host][:port][/database][?query]``.
_URL = re.compile(r"(?P<scheme>[\w+]+)://(?P<authority>[^/]*)(?:/(?P<database>[^?]*))?(?:\?.*)?")


def data_dir() -> Path:
    """The directory for kvdrill's own files: $KVDRILL_DATA_DIR, else the platform's choice."""
    override = os.environ.get("KVDRILL_DATA_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("kvdrill", appauthor=False))


def resolve_url(cli_url: str | None) -> str:
    """The database URL: ``--db``, then $KVDRILL_DB, then a SQLite file in the data dir."""
    if cli_url:
        return cli_url
    env_url = os.environ.get("KVDRILL_DB")
    if env_url:
        return env_url
    return f"sqlite:///{data_dir() / DB_FILENAME}"


def sqlite_file(url: str) -> Path | None:
    """The file behind a SQLite URL; None for in-memory SQLite, another database or no URL."""
    match = _URL.fullmatch(url)
    if match is None or match["scheme"].split("+")[0] != "sqlite":
        return None
    database = unquote(match["database"] or "")
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database).expanduser()
