"""The commit guard's one-stat path (store/guard.py): while the database's folder is as the last
full check left it, a commit goes through on one ``stat`` of the folder; any change to the file
or its logs changes the folder, and the next commit is checked in full."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from kvdrill.engine.errors import DatabaseUnusable
from kvdrill.store.guard import Guard

pytestmark = pytest.mark.store


def guarded(tmp_path: Path) -> tuple[sqlite3.Connection, Guard]:
    path = tmp_path / "k.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=wal")
    connection.execute("CREATE TABLE t (x)")
    guard = Guard(str(path), path)
    guard.opened()
    time.sleep(0.05)  # a later tick of the file system's clock than the logs' creation
    connection.execute("INSERT INTO t VALUES (1)")
    return connection, guard


@pytest.mark.parametrize("change", ["delete -wal", "replace -shm", "move the file"])
def test_a_change_after_quiet_commits_is_still_caught(tmp_path: Path, change: str) -> None:
    connection, guard = guarded(tmp_path)
    guard.check_identity(connection)  # full: the folder is vouched for
    guard.check_identity(connection)  # and this one is on the folder's stat alone
    path = tmp_path / "k.db"
    if change == "delete -wal":
        Path(f"{path}-wal").unlink()
    elif change == "replace -shm":
        other = tmp_path / "other"
        other.write_bytes(Path(f"{path}-shm").read_bytes())
        os.replace(other, f"{path}-shm")
    else:
        os.rename(path, tmp_path / "elsewhere.db")
    with pytest.raises(DatabaseUnusable, match="while kvdrill was running"):
        guard.check_identity(connection)
    connection.close()
