"""Today's due and new cards for one profile, fast enough for a shell prompt (``kvdrill due``).

A SQLite file is read with ``sqlite3`` alone (store/due_counts.py); any other database, or a
file the fast reader leaves to the store, through the store's session. Reads only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvdrill.app.services import environment
from kvdrill.engine.errors import UserError
from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.store.due_counts import DueCount


def due_count(database_url: str | None, profile_name: str) -> DueCount:
    """The profile's cards due today and new today, as ``kvdrill drill`` would bring them now."""
    from kvdrill.store.due_counts import count_in_file
    from kvdrill.store.location import sqlite_file

    url = environment.database_url(database_url)
    now = environment.now()
    path = sqlite_file(url)
    if path is not None:
        if not path.is_file():
            raise UserError(
                _("there is no kvdrill database at {path} yet: run kvdrill to create it").format(
                    path=path
                )
            )
        count = count_in_file(path, profile_name, now)
        if count is not None:
            return count
    from kvdrill.app.services.backend import Services
    from kvdrill.store.due_counts import count_in_session

    services = Services(database_url, profile_name, bundled=False)
    try:
        with services.database.session() as session:
            return count_in_session(session, profile_name, now)
    finally:
        services.close()
