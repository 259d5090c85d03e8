"""Faults around a running kvdrill: the database deleted, replaced, read-only, on a full disk,
damaged or truncated. Each is one line on stderr and exit status 1, nothing half-written, and
every answer confirmed before it is kept.

Every case runs the real command in a subprocess, but for the damaged pages' stats, which run
the command in this process (one of them in a subprocess too). Running as root, permissions are enforced by
dropping the capability that lets root ignore them (``setpriv``); a full disk is a small
RLIMIT_FSIZE, the limit a real full disk imposes on the next write.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import unittest.mock
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from test_kill import CARD_HEADER, PlainProcess

from kvdrill.app.cli import main
from kvdrill.app.services.importing import import_bundled
from kvdrill.store.db import open_database

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-03-10T09:00"
ANSWER = "\n4\n"  # show the answer, grade it Good
PACK = "faults"


def kvdrill(
    db: Path,
    *argv: str,
    stdin: str = "",
    file_size_limit: int | None = None,
    as_plain_user: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``kvdrill --db <db> argv...`` in a fresh process."""
    command = [sys.executable, "-m", "app", "--db", f"sqlite:///{db}", *argv]
    if as_plain_user and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be enforced")
        command = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *command]

    def limit_file_size() -> None:
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, KVDRILL_NOW=NOW),
        timeout=120,
        preexec_fn=limit_file_size,
    )


def drill(db: Path, answers: int, **options) -> subprocess.CompletedProcess[str]:
    return kvdrill(db, "drill", "--plain", "--pack", PACK, stdin=ANSWER * answers, **options)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KVDRILL_NOW", NOW)


@pytest.fixture
def studied(collection) -> Callable[..., Path]:
    """``studied(folder, answers=3)``: see ``studied_database``."""
    return lambda folder, answers=3: studied_database(folder, collection, answers)


def studied_database(folder: Path, collection, answers: int = 3) -> Path:
    """A database with the bundled decks, a 60-card pack and ``answers`` answers to it, given
    through plain mode in this process (a subprocess would parse the bundled decks again)."""
    folder.mkdir(exist_ok=True)
    db = folder / "kvdrill.db"
    database = open_database(f"sqlite:///{db}")
    with database.session() as session:
        collection.add_pack(session, PACK, collection.recall_cards(60))
    import_bundled(database, datetime.fromisoformat(NOW))
    database.close()
    argv = ["--db", f"sqlite:///{db}", "drill", "--plain", "--pack", PACK]
    with (
        contextlib.redirect_stdout(io.StringIO()),
        unittest.mock.patch("sys.stdin", io.StringIO(ANSWER * answers)),
    ):
        assert main(argv) == 0
    assert stored_answers(db) == answers
    return db


def scalar(db: Path, sql: str, *parameters: object) -> object:
    connection = sqlite3.connect(db)
    try:
        return connection.execute(sql, parameters).fetchone()[0]
    finally:
        connection.close()


def stored_answers(db: Path) -> int:
    return int(scalar(db, "SELECT count(*) FROM review_log"))


def integrity(db: Path) -> object:
    return scalar(db, "PRAGMA integrity_check")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_one_line(stderr: str, fragment: str) -> None:
    assert stderr.startswith("kvdrill: ") and stderr.count("\n") == 1, stderr
    assert fragment in stderr and "Traceback" not in stderr


def answers_confirmed(stdout: str) -> int:
    """Card n on screen means n - 1 answers were committed before it was shown."""
    return max((int(n) for n in CARD_HEADER.findall(stdout)), default=1) - 1


# --- permissions -------------------------------------------------------------------------------


def test_a_read_only_database_file_is_one_line_and_keeps_its_answers(
    studied, tmp_path: Path
) -> None:
    db = studied(tmp_path / "ro")
    before = digest(db)
    db.chmod(0o444)
    try:
        done = drill(db, 3, as_plain_user=True)
    finally:
        db.chmod(0o644)
    assert done.returncode == 1
    assert_one_line(done.stderr, ": it is read-only")
    assert digest(db) == before
    assert stored_answers(db) == 3


def test_a_read_only_folder_is_one_line_and_keeps_the_answers(studied, tmp_path: Path) -> None:
    db = studied(tmp_path / "ro")
    before = digest(db)
    db.parent.chmod(0o555)
    try:
        done = drill(db, 3, as_plain_user=True)
    finally:
        db.parent.chmod(0o755)
    assert done.returncode == 1
    assert_one_line(done.stderr, ": it is read-only")
    assert digest(db) == before
    assert stored_answers(db) == 3


# --- a full disk ---------------------------------------------------------------------------------


def test_a_full_disk_stops_the_session_in_one_line_and_keeps_every_confirmed_answer(
    studied,
    tmp_path: Path,
) -> None:
    db = studied(tmp_path / "full")
    # The write-ahead log may grow to 48 KiB: a dozen answers, then the disk is "full".
    done = drill(db, 50, file_size_limit=48 * 1024)
    assert done.returncode == 1
    assert_one_line(done.stderr, "the change in progress was not saved")
    assert "disk" in done.stderr
    confirmed = answers_confirmed(done.stdout)
    assert 0 < confirmed < 50
    assert integrity(db) == "ok"
    assert stored_answers(db) == 3 + confirmed


# --- the file deleted or replaced while a session runs ------------------------------------------


def session_at_card(db: Path, card: int) -> PlainProcess:
    drill_process = PlainProcess(f"sqlite:///{db}", "--pack", PACK)
    drill_process.wait_for_card(1)
    drill_process.send(ANSWER * (card - 1))
    drill_process.wait_for_card(card)
    return drill_process


def finish(drill_process: PlainProcess) -> str:
    assert drill_process.process.wait(timeout=60) == 1, drill_process.output
    drill_process.reader.join(timeout=30)
    assert drill_process.process.stderr is not None
    return drill_process.process.stderr.read().decode()


def test_a_database_deleted_mid_session_stops_before_the_next_answer_is_confirmed(
    studied,
    tmp_path: Path,
) -> None:
    db = studied(tmp_path / "gone")
    drill_process = session_at_card(db, 3)  # two more answers confirmed
    db.unlink()
    drill_process.send(ANSWER * 5)
    stderr = finish(drill_process)
    assert_one_line(stderr, " was deleted or moved while kvdrill was running")
    assert drill_process.cards_shown() == 3  # no answer after the deletion was confirmed
    # Its write-ahead log, found by name, was emptied into the deleted file: a new database
    # started there later does not replay the old answers into itself.
    assert kvdrill(db, "stats").returncode == 0
    assert stored_answers(db) == 0
    assert integrity(db) == "ok"


def test_a_database_moved_mid_session_stops_and_the_moved_file_is_complete(
    studied,
    tmp_path: Path,
) -> None:
    db = studied(tmp_path / "moved")
    drill_process = session_at_card(db, 3)
    moved = tmp_path / "moved" / "elsewhere.db"
    os.rename(db, moved)
    drill_process.send(ANSWER * 5)
    stderr = finish(drill_process)
    assert_one_line(stderr, " was deleted or moved while kvdrill was running")
    assert stored_answers(moved) == 3 + 2  # everything confirmed, none after the move
    assert integrity(moved) == "ok"


def test_a_database_replaced_mid_session_stops_and_the_new_file_is_untouched(
    studied,
    tmp_path: Path,
) -> None:
    db = studied(tmp_path / "replaced")
    other = studied(tmp_path / "other", answers=1)
    drill_process = session_at_card(db, 2)
    os.replace(other, db)
    drill_process.send(ANSWER * 5)
    stderr = finish(drill_process)
    assert_one_line(stderr, " was replaced by another file while kvdrill was running")
    assert drill_process.cards_shown() == 2
    assert stored_answers(db) == 1  # the replacement, as it was
    assert integrity(db) == "ok"


@pytest.mark.parametrize("log", ["-wal", "-shm"])
def test_a_deleted_write_ahead_log_stops_the_session_and_keeps_every_confirmed_answer(
    studied, tmp_path: Path, log: str
) -> None:
    db = studied(tmp_path / "log")
    drill_process = session_at_card(db, 4)  # three more answers confirmed, in the log
    Path(f"{db}{log}").unlink()
    drill_process.send(ANSWER * 5)
    stderr = finish(drill_process)
    assert_one_line(stderr, f"{db.name}{log}, the write-ahead log")
    assert "was deleted or replaced while kvdrill was running" in stderr
    assert drill_process.cards_shown() == 4  # nothing confirmed after the deletion
    drill_process.process.wait(timeout=30)
    assert stored_answers(db) == 3 + 3  # kill -9 now or not: every confirmed answer is kept
    assert integrity(db) == "ok"


def test_a_quit_after_the_log_was_deleted_keeps_the_answers_and_blames_no_disk(
    studied, tmp_path: Path
) -> None:
    db = studied(tmp_path / "quit")
    drill_process = session_at_card(db, 3)
    Path(f"{db}-wal").unlink()
    drill_process.send("q\n")
    assert drill_process.process.wait(timeout=60) in (0, 1)
    drill_process.reader.join(timeout=30)
    assert drill_process.process.stderr is not None
    stderr = drill_process.process.stderr.read().decode()
    assert "disk" not in stderr and "Traceback" not in stderr, stderr
    assert stored_answers(db) == 3 + 2
    assert integrity(db) == "ok"


# --- damaged files --------------------------------------------------------------------------------


def page_of(db: Path, table: str) -> int:
    return int(scalar(db, "SELECT rootpage FROM sqlite_master WHERE name = ?", table))


def test_a_damaged_page_is_refused_before_anything_is_written(studied, tmp_path: Path) -> None:
    db = studied(tmp_path / "damaged")
    page = page_of(db, "card_states")
    with db.open("r+b") as handle:
        handle.seek((page - 1) * 4096 + 8)
        handle.write(bytes(range(256)) * 15)
    before = digest(db)
    done = drill(db, 3)
    assert done.returncode == 1
    assert_one_line(done.stderr, " is damaged (")
    assert digest(db) == before


def damage_page(db: Path, table: str) -> None:
    page = page_of(db, table)
    with db.open("r+b") as handle:
        handle.seek((page - 1) * 4096 + 8)
        handle.write(bytes(range(256)) * 15)


@pytest.mark.parametrize("table", ["card_states", "topic_states", "ix_card_states_due"])
@pytest.mark.parametrize("options", [["stats", "--json"], ["stats"]])
def test_stats_on_a_damaged_page_is_one_line_and_exit_1(
    studied, tmp_path: Path, table: str, options: list[str], capsys
) -> None:
    """In this process (the command's own error handling); the test below runs one case as a
    real process, down to the exit status the shell sees."""
    db = studied(tmp_path / "damaged")
    damage_page(db, table)
    capsys.readouterr()
    code = main(["--db", f"sqlite:///{db}", *options])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert_one_line(err, " is damaged (")


def test_stats_on_a_damaged_page_in_a_process_of_its_own(studied, tmp_path: Path) -> None:
    db = studied(tmp_path / "damaged")
    damage_page(db, "card_states")
    done = kvdrill(db, "stats", "--json")
    assert (done.returncode, done.stdout) == (1, "")
    assert_one_line(done.stderr, " is damaged (")


def test_a_truncated_database_is_refused_before_anything_is_written(
    studied, tmp_path: Path
) -> None:
    db = studied(tmp_path / "truncated")
    with db.open("r+b") as handle:
        handle.truncate(db.stat().st_size * 6 // 10)
    before = digest(db)
    done = drill(db, 3)
    assert done.returncode == 1
    assert_one_line(done.stderr, " is damaged (")
    assert digest(db) == before


def test_random_damaged_pages_are_refused_or_harmless(
    studied, tmp_path: Path, fault_campaign: bool
) -> None:
    """A random page of a studied database overwritten with garbage, then a session: either
    one line and the file untouched, or (a page nothing uses) a session that leaves a file
    passing integrity_check. Never answers written into a damaged file."""
    pristine = studied(tmp_path / "pristine")
    pages = pristine.stat().st_size // 4096
    rng = random.Random(14)
    outcomes = {"refused": 0, "harmless": 0}
    for run in range(48 if fault_campaign else 4):
        db = tmp_path / f"run{run}" / "kvdrill.db"
        db.parent.mkdir()
        shutil.copyfile(pristine, db)
        with db.open("r+b") as handle:
            handle.seek(rng.randrange(1, pages) * 4096)
            handle.write(rng.randbytes(4096))
        before = digest(db)
        done = drill(db, 3)
        if done.returncode == 0:
            outcomes["harmless"] += 1
            assert integrity(db) == "ok", done.stdout
        else:
            outcomes["refused"] += 1
            assert_one_line(done.stderr, "the database")
            assert digest(db) == before
    print(f"\ndamaged pages: {outcomes}")
