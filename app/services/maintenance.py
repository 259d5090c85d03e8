"""Looking after the database: the daily backup, ``kvdrill backup``, ``restore`` and ``doctor``.

The store does the work (store/backup.py, store/doctor.py); this module picks the database
(app/services/environment.py), the day and the file names.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvdrill.app.services import environment
from kvdrill.engine.errors import UserError
from kvdrill.i18n import _, ngettext

if TYPE_CHECKING:
    from kvdrill.store.backup import BackupInfo as BackupInfo  # re-exported to the commands
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
        raise UserError(_("an in-memory or server database has no file to back up or restore"))
    return database


def daily_backup_written(database_path: Path, now: datetime) -> bool:
    """Whether today's automatic backup of the SQLite file ``database_path`` exists."""
    from kvdrill.store.backup import daily_backup_file

    return daily_backup_file(database_path, now.date()).exists()


def daily_backup(database: Database, now: datetime) -> str | None:
    """Today's automatic backup (store/backup.py), if not written yet; a one-line warning when
    it cannot be written (the drill goes on: a missing backup puts no answer at risk)."""
    from kvdrill.engine.errors import DatabaseUnusable
    from kvdrill.store.backup import daily_backup as write_daily

    try:
        write_daily(database, now.date())
    except DatabaseUnusable as exc:
        # The database itself is damaged: nothing may be written into it, from now on either.
        if database.guard is not None:
            database.guard.refuse(str(exc))
        raise
    except UserError as exc:
        return f"today's backup was not written: {exc}"
    return None


def backup(
    cli_url: str | None, path: str | None, keep: int | None
) -> tuple[list[str], BackupInfo | None]:
    """``kvdrill backup``: a copy now (to ``path``, else backups/ beside the database), and/or
    the number of daily backups to keep; the lines to print about the keeping, and the copy
    written (None when only ``keep`` was given)."""
    from kvdrill.store.backup import (
        backup_folder,
        prune_daily_backups,
        set_backup_keep,
        write_backup,
    )
    from kvdrill.store.db import begin_write

    if path is not None and not path.strip():
        raise UserError(_("an empty PATH was given (an unset shell variable?); nothing written"))
    database = open_for_maintenance(cli_url)
    lines = []
    try:
        assert database.path is not None
        if keep is not None:
            with database.session() as session:
                begin_write(session)
                set_backup_keep(session, keep)
            removed = prune_daily_backups(database.path, keep)
            lines.append(
                ngettext(
                    "Keeping the newest {count} daily backup",
                    "Keeping the newest {count} daily backups",
                    keep,
                ).format(count=keep)
                + (
                    ngettext(
                        " (removed {count} older one).", " (removed {count} older ones).", removed
                    ).format(count=removed)
                    if removed
                    else "."
                )
            )
            if path is None:
                return lines, None
        if path is not None:
            target = Path(path).expanduser()
        else:
            folder = backup_folder(database.path)
            folder.mkdir(exist_ok=True)
            target = folder / f"{database.path.stem}-{_stamp()}.db"
        info = write_backup(database, target)
    finally:
        database.close()
    return lines, info


def restore(cli_url: str | None, path: str, keep_as: str | None = None) -> tuple[BackupInfo, Path]:
    """``kvdrill restore``: check ``path``, keep the current database (in ``keep_as``, else a
    new name in backups/), copy the backup in. What was restored, and where the database that
    was there is kept."""
    from kvdrill.store.backup import backup_folder, restore_backup

    if not path.strip() or (keep_as is not None and not keep_as.strip()):
        raise UserError(_("an empty PATH was given (an unset shell variable?); nothing restored"))
    # Not quick-checked on open: restoring is the way out of a damaged database.
    database = open_for_maintenance(cli_url, check=False)
    try:
        assert database.path is not None
        if keep_as is not None:
            safety = Path(keep_as).expanduser()
        else:
            safety = _free_name(
                backup_folder(database.path), f"{database.path.stem}-before-restore"
            )
        info = restore_backup(database, Path(path).expanduser(), safety)
    finally:
        database.close()
    # An older backup is brought up to date now, not on the next start.
    open_for_maintenance(cli_url).close()
    return info, safety


def doctor(cli_url: str | None) -> Any:
    """``kvdrill doctor``: the ``DoctorReport`` of a full check and repair; a checked copy is
    written to backups/ before any repair."""
    from kvdrill.store.backup import backup_folder, newest_sound_backup
    from kvdrill.store.doctor import examine

    database = open_for_maintenance(cli_url, check=False)
    try:
        assert database.path is not None
        folder = backup_folder(database.path)
        with contextlib.suppress(OSError):
            folder.mkdir(exist_ok=True)
        newest = newest_sound_backup(database.path)
        return examine(
            database,
            backup_to=_free_name(folder, f"{database.path.stem}-before-doctor"),
            newest_backup=str(newest) if newest else None,
            now=environment.now(),
        )
    finally:
        database.close()


def _free_name(folder: Path, prefix: str) -> Path:
    """``folder/prefix-STAMP.db``, or ``-2``, ``-3``... after it when that name is taken (two
    runs in the same second)."""
    stamp = _stamp()
    candidate = folder / f"{prefix}-{stamp}.db"
    number = 1
    while candidate.exists() or candidate.is_symlink():
        number += 1
        candidate = folder / f"{prefix}-{stamp}-{number}.db"
    return candidate


def _stamp() -> str:
    return environment.now().strftime("%Y%m%dT%H%M%S")
