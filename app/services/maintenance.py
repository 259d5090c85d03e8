"""Looking after the database: the daily backup, ``kvdrill backup``, ``restore`` and ``doctor``.

The store does the work (store/backup.py, store/doctor.py); this module picks the database
(app/services/environment.py), the day and the file names.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvdrill.app.services import environment
from kvdrill.engine.errors import UserError

if TYPE_CHECKING:
    from kvdrill.store.db import Database


def open_for_maintenance(cli_url: str | None, check: bool = True) -> Database:
    """The database to look after; ``check=False`` opens a damaged file too (doctor, restore)."""
    from kvdrill.store.db import open_database

    database = open_database(
        environment.database_url(cli_url),
        environment.url_source(cli_url),
        create_folder=environment.is_own_folder(cli_url),
        check=check,
    )
    if database.path is None:
        database.close()
        raise UserError("an in-memory or server database has no file to back up or restore")
    return database


def daily_backup(database: Database, now: datetime) -> str | None:
    """Today's automatic backup (store/backup.py), if not written yet; a one-line warning when
    it cannot be written (the drill goes on: a missing backup puts no answer at risk)."""
    from kvdrill.store.backup import daily_backup as write_daily

    try:
        write_daily(database, now.date())
    except UserError as exc:
        return f"today's backup was not written: {exc}"
    return None


def backup(cli_url: str | None, path: str | None, keep: int | None) -> list[str]:
    """``kvdrill backup``: a copy now (to ``path``, else backups/ beside the database), and/or
    the number of daily backups to keep; the lines to print."""
    from kvdrill.store.backup import backup_folder, set_backup_keep, write_backup
    from kvdrill.store.db import begin_write

    if path is not None and not path.strip():
        raise UserError("an empty PATH was given (an unset shell variable?); nothing written")
    database = open_for_maintenance(cli_url)
    lines = []
    try:
        assert database.path is not None
        if keep is not None:
            with database.session() as session:
                begin_write(session)
                set_backup_keep(session, keep)
            lines.append(f"Keeping the newest {keep} daily backups.")
            if path is None:
                return lines
        if path is not None:
            target = Path(path).expanduser()
        else:
            folder = backup_folder(database.path)
            folder.mkdir(exist_ok=True)
            target = folder / f"{database.path.stem}-{_stamp()}.db"
        info = write_backup(database, target)
    finally:
        database.close()
    return [*lines, f"Backed up to {info.summary()}."]


def restore(cli_url: str | None, path: str) -> list[str]:
    """``kvdrill restore``: check ``path``, keep the current database, copy the backup in."""
    from kvdrill.store.backup import backup_folder, restore_backup

    if not path.strip():
        raise UserError("an empty PATH was given (an unset shell variable?); nothing restored")
    # Not quick-checked on open: restoring is the way out of a damaged database.
    database = open_for_maintenance(cli_url, check=False)
    try:
        assert database.path is not None
        safety = backup_folder(database.path) / f"{database.path.stem}-before-restore-{_stamp()}.db"
        info = restore_backup(database, Path(path).expanduser(), safety)
    finally:
        database.close()
    # An older backup is brought up to date now, not on the next start.
    open_for_maintenance(cli_url).close()
    return [f"Restored {info.summary()}.", f"What was there before is kept in {safety}."]


def doctor(cli_url: str | None) -> Any:
    """``kvdrill doctor``: the ``DoctorReport`` of a full check and repair."""
    from kvdrill.store.backup import daily_backups
    from kvdrill.store.doctor import examine

    database = open_for_maintenance(cli_url, check=False)
    try:
        assert database.path is not None
        backups = daily_backups(database.path)
        return examine(database, newest_backup=str(backups[-1]) if backups else None)
    finally:
        database.close()


def _stamp() -> str:
    return environment.now().strftime("%Y%m%dT%H%M%S")
