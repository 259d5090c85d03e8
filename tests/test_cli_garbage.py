"""Garbage on the command line: every user-caused error is one line on stderr and a non-zero exit.

Each row is an invocation a careless or hostile user could type, and a fragment the one line
must contain, so a row fails if the error turns into a traceback, a second line, a raw control
character on the terminal, or (worse) a silent success with a nonsense figure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kvdrill.app.cli import main

DECKS = Path(__file__).resolve().parent.parent / "decks"

M = ["--model", "llama-3.1-8b"]

# (argv after the global --db, a fragment the error line contains)
CALC_DOMAIN = [
    pytest.param(["calc", "kv_bytes_per_token", *M, "--set", "tp=0"], "tp must be more than 0"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--set", "tp=-2"], "tp must be more than 0"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--set", "tp=2.5"], "tp must be a whole"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--set", "kv_heads=0"], "kv_heads must be"),
    pytest.param(["calc", "max_concurrency", *M, "--set", "pool=-5GiB"], "cannot be negative"),
    pytest.param(
        ["calc", "max_concurrency", *M, "--set", "pool=54.8GiB", "--set", "block_size=0"],
        "block_size must be more than 0",
    ),
    pytest.param(
        ["calc", "kv_pool_bytes", *M, "--gpu", "h100", "--set", "util=150%"],
        "at most 1 (100%)",
    ),
    pytest.param(
        ["calc", "kv_pool_bytes", *M, "--gpu", "h100", "--set", "util=-0.9"],
        "gpu_util must be more than 0",
    ),
    pytest.param(
        ["calc", "kv_pool_tokens", "--set", "pool=5GiB", "--set", "kv_per_token=0"],
        "divides by kv_bytes_per_token = 0",
    ),
    pytest.param(
        [
            "calc",
            "requests_that_fit",
            "--model",
            "llama-3.1-405b",
            "--gpu",
            "l4",
            "--set",
            "request_tokens=2k",
        ],
        "the weights do not fit",
    ),
    pytest.param(
        ["calc", "kv_pool_tokens", "--model", "llama-3.1-70b", "--gpu", "l4"],
        "the weights do not fit",
    ),
]

# Typed garbage calc already refused in one line before this file: kept from coming back.
CALC_INPUT = [
    pytest.param(["calc"], "name a QUANTITY"),
    pytest.param(["calc", ""], "name a QUANTITY"),
    pytest.param(["calc", "kv_pool_tokns", *M], "did you mean kv_pool_tokens"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--tp", "0"], "--tp must be at least 1"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--tp", "-3"], "--tp must be at least 1"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--set", "x="], "NAME=VALUE"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--set", "=5"], "NAME=VALUE"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--set", "pool"], "NAME=VALUE"),
    pytest.param(["calc", "kv_pool_tokens", *M, "--set", "pool=9**9**9"], "no arithmetic"),
    pytest.param(["calc", "kv_pool_tokens", *M, "--set", "pool=1e999"], "too large"),
    pytest.param(["calc", "kv_pool_tokens", *M, "--set", "pool=nan"], "not a finite number"),
    pytest.param(["calc", "kv_pool_tokens", *M, "--set", "pool=-inf GiB"], "not a finite"),
    pytest.param(["calc", "kv_pool_tokens", *M, "--set", "pool=54.8 ms"], "a time"),
    pytest.param(["calc", "kv_pool_tokens", *M, "--set", "pool=54.8KB"], "KB is ambiguous"),
    pytest.param(["calc", "kv_pool_tokens", *M, "--set", "pool=5\x1b[2J"], "control characters"),
    pytest.param(["calc", "kv_pool_tokens", *M, "--set", "pool=" + "9" * 10_000], "too long"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--unit", "ms"], "Cannot convert"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--unit", "9**9**9"], "Could not read"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--dtype", "bf61"], "did you mean bf16"),
    pytest.param(["calc", "kv_bytes_per_token"], "pick a model/GPU or set them"),
    pytest.param(["calc", "layers", *M], "layers is an input"),
    pytest.param(
        ["calc", "max_model_len", *M, "--set", "pool=54.8GiB", "--set", "max_concurrency=0"],
        "no value of max_model_len",
    ),
]

# An empty value usually comes from an unset shell variable: it must not mean "no model".
CALC_EMPTY_AND_CONTROL = [
    pytest.param(["calc", "kv_bytes_per_token", "--model", ""], "--model needs a value"),
    pytest.param(["calc", "decode_floor_time", *M, "--gpu", " "], "--gpu needs a value"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--kv-dtype", ""], "--kv-dtype needs a value"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--unit", ""], "--unit needs a value"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--unit", "\x1b[31m\x07"], "\\x1b[31m"),
    pytest.param(["calc", "kv_bytes_per_token", *M, "--unit", "KB"], "KB is ambiguous"),
]

# Long and foreign names: echoed short and escaped, with a hint rather than an 80-name list.
CALC_NAMES = [
    pytest.param(
        ["calc", "x" * 10_000], "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (none is close"
    ),
    pytest.param(["calc", "\u041a\u0412"], "kvdrill calc --list shows them all"),
    pytest.param(["calc", "kv_bytes_per_token", "--set", "zzz=1"], "unknown symbol 'zzz'"),
    pytest.param(
        ["calc", "kv_bytes_per_token", "--model", "\x1b[31m" * 100],
        "unknown model '\\x1b[31m\\x1b[31m",
    ),
    pytest.param(["calc", "decode_floor_time", *M, "--gpu", "h1000"], "did you mean h100"),
    pytest.param(["calc", "weight_bytes", *M, "--dtype", "\x07"], "unknown dtype '\\x07'"),
]

# Global options and the environment (the --db given here is overridden by a later --db).
GLOBAL = [
    pytest.param(["--profile", "\x1b[31m\x07", "stats"], "'\\x1b[31m\\x07' is not a usable"),
    pytest.param(["--profile", "a" * 5000, "stats"], "a...' is not a usable profile name"),
    pytest.param(["--profile", "", "stats"], "'' is not a usable profile name"),
    pytest.param(["--db", "\x1b[2J", "stats"], "'\\x1b[2J' is not a database URL"),
    pytest.param(["--db", "garbage", "stats"], "'garbage' is not a database URL"),
    pytest.param(
        ["--db", "postgresql+nodriver://nobody@nowhere/x", "stats"], "cannot use database URL"
    ),
    pytest.param(
        ["--db", "sqlite:///x.db?timeout=abc", "stats"],
        "cannot use database URL 'sqlite:///x.db?timeout=abc': could not convert",
    ),
    pytest.param(["--db", f"sqlite:////tmp/{'a' * 300}.db", "stats"], "File name too long"),
    pytest.param(["--db", "sqlite:///~nosuchuser/x.db", "stats"], "~user that has no home"),
    pytest.param(
        ["--db", "sqlite:////no-such-kvdrill-folder/deeper/x.db", "stats"],
        "the folder /no-such-kvdrill-folder/deeper does not exist: create it first",
    ),
]

OTHER_COMMANDS = [
    pytest.param(["stats", "--days", "0"], "--days takes a whole number"),
    pytest.param(["stats", "--days", "99999999999999999999"], "--days takes a whole number"),
    pytest.param(["drill", "--plain", "--pack", "nope"], "there is no pack 'nope'"),
    pytest.param(["drill", "--plain", "--tag", "nope"], "no card has the tag 'nope'"),
    pytest.param(["drill", "--plain", "--unsuspend", "no/card"], "there is no card 'no/card'"),
]

IMPORT = [
    # Path("") is the current directory: an unset variable must not import whatever is there.
    pytest.param(["import", ""], "an empty PATH was given"),
    pytest.param(["import", "--dry-run", " "], "an empty PATH was given"),
    pytest.param(["check", ""], "an empty PATH was given"),
    pytest.param(["check", "--add-ids", str(DECKS), ""], "an empty PATH was given"),
]

GARBAGE = [
    *CALC_INPUT,
    *CALC_DOMAIN,
    *CALC_EMPTY_AND_CONTROL,
    *CALC_NAMES,
    *GLOBAL,
    *OTHER_COMMANDS,
    *IMPORT,
]


@pytest.mark.parametrize(("argv", "fragment"), GARBAGE)
def test_garbage_gets_one_clear_line_and_a_failing_exit(
    capsys: pytest.CaptureFixture[str], db_url: str, argv: list[str], fragment: str
) -> None:
    code = main(["--db", db_url, *argv])
    out, err = capsys.readouterr()
    assert code != 0
    assert out == ""
    assert err.startswith("kvdrill: ") and err.count("\n") == 1, err
    assert fragment in err
    assert "Traceback" not in err
    # Nothing the user typed reaches the terminal as a raw control character.
    assert all(ch == "\n" or ch.isprintable() for ch in err), repr(err)
    assert len(err) < 700, "an error line echoes at most a short part of what was typed"


def test_capacity_lost_by_a_change_is_still_a_figure(capsys: pytest.CaptureFixture[str]) -> None:
    """Negative results that are real answers stay allowed: lowering utilization costs tokens."""
    argv = ["calc", "extra_kv_tokens", *M, "--gpu", "h100", "--set", "util=0.95"]
    assert main([*argv, "--set", "new_util=0.9"]) == 0
    # 0.05 x 79.22 GiB (what vLLM sees on an H100) / 128 KiB = 0.05 x 79.22 x 8192 = 32,449
    assert capsys.readouterr().out.startswith("extra_kv_tokens = -32,449 tokens")


def test_an_empty_import_path_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(DECKS)  # a directory full of good packs, which "" must not pick up
    database = tmp_path / "x.db"
    assert main(["--db", f"sqlite:///{database}", "import", str(DECKS), ""]) == 1
    assert "empty PATH" in capsys.readouterr().err
    assert not database.exists()


def assert_one_line(err: str, fragment: str) -> None:
    assert err.startswith("kvdrill: ") and err.count("\n") == 1, err
    assert fragment in err and "Traceback" not in err


@pytest.mark.parametrize(
    "now", ["garbage", "2026-13-45", "2026-01-01T00:00:00+99:00", "\x1b[31m", "１２３"]
)
@pytest.mark.parametrize("command", [["stats"], ["drill", "--plain"]])
def test_a_garbage_clock_is_one_line(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    db_url: str,
    now: str,
    command: list[str],
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", now)
    assert main(["--db", db_url, *command]) == 1
    assert_one_line(capsys.readouterr().err, "KVDRILL_NOW must be an ISO timestamp")


@pytest.mark.parametrize("now", ["9999-12-31T23:59:59", "0001-01-01T00:00"])
@pytest.mark.parametrize("command", [["stats"], ["drill", "--plain"]])
def test_a_clock_at_the_end_of_the_calendar_is_one_line(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    db_url: str,
    now: str,
    command: list[str],
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", now)
    assert main(["--db", db_url, *command]) == 1
    assert_one_line(capsys.readouterr().err, "KVDRILL_NOW")


def test_databases_that_are_not_databases(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    text = tmp_path / "notes.db"
    text.write_text("my notes, not SQLite\n")
    cases = [
        (f"sqlite:///{folder}", "is a directory, not a database file"),
        (f"sqlite:///{text}", "is not a SQLite database"),
        (f"sqlite:///{text}/inside.db", "notes.db is not a folder, so it cannot hold"),
    ]
    for url, fragment in cases:
        assert main(["--db", url, "import", str(DECKS)]) == 1
        assert_one_line(capsys.readouterr().err, fragment)
    assert text.read_text() == "my notes, not SQLite\n"  # refused before being touched


def test_file_problems_are_path_line_lines_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "binary.md").write_bytes(b"---\x00\xff\xfe")
    (tmp_path / "utf16.md").write_bytes("---\npack: x\n".encode("utf-16"))
    (tmp_path / "latin1.md").write_bytes("---\npack: café\n".encode("latin-1"))
    (tmp_path / "yaml.md").write_text("---\npack: [unclosed\n---\n")
    database = tmp_path / "x.db"
    argv = ["--db", f"sqlite:///{database}", "import", str(DECKS), str(tmp_path), "/no/such"]
    assert main(argv) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("kvdrill: nothing imported: ")
    problems = lines[:-1]
    for name in ("empty.md:1:", "binary.md:1:", "utf16.md:1:", "latin1.md:2:", "/no/such:1:"):
        assert any(name in line for line in problems), (name, problems)
    assert all(":" in line and "Traceback" not in line for line in problems)
    assert not database.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["calc", "kv_bytes_per_token", "--tp", "x"],
        ["stats", "--days", "x"],
        ["drill", "--new", "-1"],
        ["drill", "--plain", "--limit", "0"],
        ["models", "extra"],
        ["no-such-command"],
        ["import"],
    ],
)
def test_malformed_options_exit_2_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """argparse's own refusals: one line naming the problem and where help is; no usage block."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert err.startswith("kvdrill") and "--help" in err and "usage:" not in err


def test_the_real_command_keeps_stdout_clean_and_fails_in_one_line(tmp_path: Path) -> None:
    """Through the console entry in a fresh process, with the user's clock variable set badly."""
    env = {**os.environ, "KVDRILL_DATA_DIR": str(tmp_path), "KVDRILL_NOW": "tomorrow"}
    env.pop("KVDRILL_DB", None)
    done = subprocess.run(
        [sys.executable, "-m", "app", "stats"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 1 and done.stdout == ""
    assert_one_line(done.stderr, "KVDRILL_NOW must be an ISO timestamp")


def test_a_bad_url_from_the_environment_says_where_it_came_from(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDRILL_DB", "garbage")
    assert main(["stats"]) == 1
    assert_one_line(capsys.readouterr().err, "'garbage' (from $KVDRILL_DB) is not a database URL")


def test_a_data_dir_under_an_unknown_user_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDRILL_DATA_DIR", "~nosuchuser/x")
    assert main(["stats"]) == 1
    assert_one_line(
        capsys.readouterr().err,
        "$KVDRILL_DATA_DIR '~nosuchuser/x' starts with a ~user that has no home directory",
    )


def test_a_url_sqlalchemy_refuses_creates_no_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--db", "sqlite:///x.db?timeout=abc", "stats"]) == 1
    assert_one_line(capsys.readouterr().err, "could not convert string to float: 'abc'")
    assert list(tmp_path.iterdir()) == []


def test_a_database_in_a_missing_folder_is_refused_not_created(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From --db or $KVDRILL_DB a missing folder is a typo until proven otherwise; only the
    data folder kvdrill chooses itself is created."""
    missing = tmp_path / "typo" / "deeper"
    assert main(["--db", f"sqlite:///{missing / 'x.db'}", "stats"]) == 1
    assert_one_line(capsys.readouterr().err, f"the folder {missing} does not exist")
    monkeypatch.setenv("KVDRILL_DB", f"sqlite:///{missing / 'x.db'}")
    assert main(["stats"]) == 1
    assert_one_line(capsys.readouterr().err, f"the folder {missing} does not exist")
    assert not (tmp_path / "typo").exists()
    monkeypatch.delenv("KVDRILL_DB")
    monkeypatch.setenv("KVDRILL_DATA_DIR", str(tmp_path / "new" / "data"))
    assert main(["stats"]) == 0
    assert (tmp_path / "new" / "data" / "kvdrill.db").exists()


def test_an_empty_database_file_is_refused_and_left_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A 0-byte file where the database was is a loss to report, not a new start."""
    empty = tmp_path / "kvdrill.db"
    empty.write_bytes(b"")
    assert main(["--db", f"sqlite:///{empty}", "stats"]) == 1
    assert_one_line(capsys.readouterr().err, "is an empty file (0 bytes), not a kvdrill database")
    assert empty.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kvdrill.db"]
