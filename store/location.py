"""The file behind a database URL, and the schema revision this kvdrill expects.
Standard library only.

Shared by store/db.py and the fast-start reader (store/fast_start.py), which reads the first card
before SQLAlchemy is imported. Which URL to open is the caller's choice (app/services/environment.py
reads ``--db`` and ``$KVDRILL_DB``).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from kvdrill.engine.errors import UserError
from kvdrill.i18n import _

# The newest migration in store/migrations/versions. tests/test_db.py fails if it falls behind.
HEAD_REVISION = "0014"

# The parts of a database URL that say where a SQLite file is, read as SQLAlchemy's make_url reads
# them: ``dialect[+driver]://[user[:password]@][host][:port][/database][?query]``.
_URL = re.compile(r"(?P<scheme>[\w+]+)://(?P<authority>[^/]*)(?:/(?P<database>[^?]*))?(?:\?.*)?")


# ``scheme://user:password@``: the password runs to the last ``@`` before a space or a slash.
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-zA-Z][\w+.-]*://[^:/@\s]*):[^\s/]*@")


def mask_password(text: str) -> str:
    """``text`` with the password of every database URL in it replaced by ``***``.

    Every message that can quote a database URL, or a driver's error about one, goes through it.
    """
    return _URL_PASSWORD.sub(r"\g<head>:***@", text)


def sqlite_file(url: str) -> Path | None:
    """The file behind a SQLite URL; None for in-memory SQLite, another database or no URL."""
    match = _URL.fullmatch(url)
    if match is None or match["scheme"].split("+")[0] != "sqlite":
        return None
    database = unquote(match["database"] or "")
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return _expand_home(Path(database), "the database path")


def _expand_home(path: Path, what: str) -> Path:
    """``~`` and ``~user`` expanded; a user with no home directory is a ``UserError``."""
    try:
        return path.expanduser()
    except RuntimeError:  # ~nosuchuser
        raise UserError(
            _("{what} {path} starts with a ~user that has no home directory").format(
                what=what, path=repr(str(path)[:80])
            )
        ) from None
