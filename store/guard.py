"""What keeps a SQLite file from being damaged or silently lost under faults.

Three guards (``Guard``), on every connection of an open database: store/sql.py's
``SqliteTransaction`` calls them, and ``Guard.install`` hooks them into SQLAlchemy's engine:

- **a quick check when the file is opened** (``check_on_open``): SQLite's ``PRAGMA
  quick_check`` on files up to ``QUICK_CHECK_MAX_BYTES``, so a damaged file is refused before
  anything is written into it. Its cost grows with the file (scripts/bench_quick_check.py),
  hence the cap, which keeps it a small part of a start. A larger file is not checked on open;
  SQLite still refuses to write through a damaged page, and that error is one line too.
- **the file's identity before every commit** (``Guard.check_identity``): a database deleted, moved
  or replaced while kvdrill runs would take every later answer with it (the open connection
  keeps writing into the unlinked file). The path's device and inode are compared with those
  seen when it was opened; a mismatch stops the commit, so nothing is confirmed that is lost.
  The write-ahead log and its index (``-wal``, ``-shm``) are checked the same way: answers
  committed since the last checkpoint live only in the log, so a log deleted or replaced would
  lose them at the next crash. The session stops, and the log this connection still holds open
  is checkpointed into the file first, so every answer confirmed before is kept.
  The three are found by name, so a change to any of them changes their folder: while the
  folder is as it was at the last full check (its identity and modification time), the commit
  goes through on that one ``stat`` (``_folder_unchanged``).
- **every SQLite error as one line** (``Guard.translate_error``): read-only file or folder, full
  disk, I/O error, damaged pages. The transaction is rolled back; answers
  committed before are kept. "database is locked" is left alone: the callers retry it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvdrill.engine.errors import DatabaseUnusable, UserError
from kvdrill.i18n import _
from kvdrill.store.sql import is_locked

if TYPE_CHECKING:  # SQLAlchemy stays unloaded for store/sqlite_import.py, which has no engine
    from sqlalchemy import Engine
    from sqlalchemy.engine import ExceptionContext

QUICK_CHECK_MAX_BYTES = 16 * 1024 * 1024
# SQLite's write-ahead log and its shared-memory index, beside the database file.
LOG_SUFFIXES = {"-wal": "write-ahead log", "-shm": "write-ahead log's index"}
# Problems quoted from quick_check's report: the first is enough to recognise the damage.
QUICK_CHECK_ROWS = 5

# SQLite's own words for a failure -> what it means for the learner. Matched in order.
_CAUSES = (
    ("readonly", "it is read-only (check the permissions of the file and of its folder)"),
    ("disk is full", "the disk is full"),
    ("disk i/o error", "the disk failed to write (disk I/O error; is it full?)"),
    ("malformed", "the file is damaged (database disk image is malformed)"),
    ("not a database", "the file is damaged or is not a SQLite database"),
    ("unable to open", "the file or its folder cannot be opened"),
)


def check_on_open(connection: sqlite3.Connection, path: Path) -> None:
    """Refuse a file that fails SQLite's quick check (files above the size cap are skipped)."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # a new in-memory or not-yet-written file: nothing to check
    if size == 0 or size > QUICK_CHECK_MAX_BYTES:
        return
    rows = connection.execute(f"PRAGMA quick_check({QUICK_CHECK_ROWS})").fetchall()
    found = [
        line
        for row in rows
        for line in str(row[0]).splitlines()
        if line.strip() and not line.startswith("***")  # "*** in database main ***"
    ]
    if found != ["ok"]:
        raise DatabaseUnusable(
            _(
                "the database {path} is damaged (SQLite's quick check: {found}); nothing was written to it: restore a backup"
            ).format(path=path, found=found[0])
        )


class Guard:
    """The guards of one open database. Errors while opening are left to ``open_database``,
    which words them for that moment; ``opened`` switches the write-time guards on."""

    def __init__(self, where: str, path: Path | None):
        """``where``: the database as messages name it; ``path``: its file, if it has one."""
        self.path = path
        self.where = str(path) if path is not None else where
        self.seen: tuple[int, int] | None = None
        # The write-ahead log and its index: suffix -> (device, inode) once seen.
        self.seen_logs: dict[str, tuple[int, int]] = {}
        self._log_paths = tuple((suffix, f"{self.where}{suffix}") for suffix in LOG_SUFFIXES)
        self.refused: str | None = None  # set by ``refuse``: no commit goes through
        self._folder = os.path.dirname(os.path.abspath(self.where))
        # The folder as the last full check left it, when that check can vouch for it.
        self._quiet_folder: tuple[int, int, int] | None = None
        self._linked = False  # the path is a symbolic link
        self._log_written = 0  # the latest write to a log seen by the last check (ns)

    def install(self, engine: Engine) -> None:
        """Guard an engine's connections too: every error worded, every commit checked."""
        from sqlalchemy import event

        def translate(context: ExceptionContext) -> None:
            connection = context.connection
            raw = connection.connection.dbapi_connection if connection is not None else None
            self.translate_error(
                context.original_exception, raw if isinstance(raw, sqlite3.Connection) else None
            )

        event.listen(engine, "handle_error", translate)
        if self.path is not None:
            event.listen(
                engine,
                "commit",
                lambda connection: self.check_identity(connection.connection.dbapi_connection),
            )

    def opened(self) -> None:
        """The file is open and migrated: remember which file it is, and start guarding."""
        if self.path is not None:
            info = os.stat(self.path)
            self.seen = (info.st_dev, info.st_ino)
            self._linked = os.path.islink(self.path)
            self.log_problem()  # remembers the logs as they are now
        else:
            self.seen = (0, 0)

    def refuse(self, reason: str) -> None:
        """Let no commit through from now on, saying ``reason`` (damage found after opening,
        by the full check of today's backup)."""
        self.refused = reason

    def check_identity(self, raw: Any) -> None:
        """Stop a commit into a file that is no longer the one at the path, or into one found
        damaged since it was opened (``raw``: the ``sqlite3`` connection about to commit)."""
        if self.refused is not None:
            raw.rollback()
            raise DatabaseUnusable(self.refused)
        if self.path is None or self.seen is None:
            return
        folder = self._folder_state()
        if folder is not None and folder == self._quiet_folder:
            return  # nothing in the folder was added, removed or renamed since the last check
        try:
            info = os.stat(self.where)  # the path as text
        except FileNotFoundError:
            _detach_log(raw)
            raise DatabaseUnusable(
                _(
                    "the database {path} was deleted or moved while kvdrill was running; this change was not saved, and nothing more will be"
                ).format(path=self.path)
            ) from None
        except OSError as exc:
            raise DatabaseUnusable(
                _(
                    "the database {path} cannot be reached ({strerror}); this change was not saved"
                ).format(path=self.path, strerror=exc.strerror)
            ) from None
        if (info.st_dev, info.st_ino) != self.seen:
            _detach_log(raw)
            raise DatabaseUnusable(
                _(
                    "the database {path} was replaced by another file while kvdrill was running; this change was not saved, and nothing more will be"
                ).format(path=self.path)
            )
        problem = self.log_problem()
        if problem:
            _detach_log(raw)
            raise DatabaseUnusable(problem)
        written = max(info.st_mtime_ns, self._log_written)
        self._quiet_folder = folder if self._vouches_for(folder, written) else None

    def _folder_state(self) -> tuple[int, int, int] | None:
        """The folder's device, inode and modification time (None: it cannot be read)."""
        try:
            info = os.stat(self._folder)
        except OSError:
            return None
        return info.st_dev, info.st_ino, info.st_mtime_ns

    def _vouches_for(self, folder: tuple[int, int, int] | None, written: int) -> bool:
        """Whether the folder read before a full check that passed may stand for it at the
        next commits. A file system's clock ticks coarsely, so a folder changed again within
        the tick of its last change would keep its time: the check vouches only when the file
        or a log was written (``written``) in a later tick than the folder's last change (any
        change after then carries a later time), and never through a symbolic link (its
        target's folder is elsewhere)."""
        return folder is not None and not self._linked and written > folder[2]

    def log_problem(self) -> str | None:
        """What happened to the write-ahead log or its index since they were first seen (a
        log not there yet is remembered once it is); None when nothing did."""
        if self.path is None or self.seen is None:
            return None
        self._log_written = 0
        for suffix, log in self._log_paths:
            try:
                info = os.stat(log)
            except FileNotFoundError:
                info = None
            except OSError:
                continue  # unreachable: the database's own check words that
            if info is not None:
                self._log_written = max(self._log_written, info.st_mtime_ns)
            seen = self.seen_logs.get(suffix)
            if info is not None and seen is None:
                self.seen_logs[suffix] = (info.st_dev, info.st_ino)
            elif seen is not None and (info is None or (info.st_dev, info.st_ino) != seen):
                return (
                    f"{Path(log).name}, the {LOG_SUFFIXES[suffix]} of the database {self.path}, was "
                    "deleted or replaced while kvdrill was running; this change was not saved, "
                    "and nothing more will be (every answer confirmed before is kept)"
                )
        return None

    def translate_error(
        self, original: BaseException, raw: sqlite3.Connection | None = None
    ) -> None:
        """Raise a one-line ``DatabaseUnusable`` for a SQLite failure (not for a busy lock,
        which the writer retries: store/sql.py ``retrying``); ``raw``: the ``sqlite3``
        connection it came from, when known."""
        if self.seen is None or not isinstance(original, sqlite3.Error):
            return
        if is_locked(original):
            return
        problem = self.log_problem()
        if problem:  # SQLite's own words for a missing log are "disk I/O error": not the disk
            if isinstance(raw, sqlite3.Connection):
                _detach_log(raw)
            raise DatabaseUnusable(problem) from None
        if isinstance(original, sqlite3.IntegrityError):
            # A constraint refused this change (a race with another process, say): the
            # database itself is fine, so the session may go on.
            raise UserError(
                _("the database {where} refused a change ({original}); it was not saved").format(
                    where=self.where, original=original
                )
            ) from None
        raise DatabaseUnusable(
            _(
                "cannot use the database {where}: {reason}; the change in progress was not saved"
            ).format(where=self.where, reason=describe(original))
        ) from None


def _detach_log(raw: sqlite3.Connection) -> None:
    """Roll back, then move the write-ahead log into the file this connection has open.

    The log is found by name (``<path>-wal``), so after a delete, move or replace it sits
    beside a file it does not belong to, and SQLite would replay it into whatever is opened
    there next. Checkpointing through the old connection writes the committed answers into
    the file they belong to (a moved file comes out complete) and empties the log."""
    try:
        raw.rollback()
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.Error:
        pass  # the error raised next says what matters; the log then stays as it is


def describe(error: BaseException) -> str:
    """What a SQLite error means for the learner, in a few words."""
    text = str(error).lower()
    return next((meaning for words, meaning in _CAUSES if words in text), str(error))
