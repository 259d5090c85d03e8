"""Garbage on the command line: every user-caused error is one line on stderr and a non-zero exit.

Each row is an invocation a careless or hostile user could type, and a fragment the one line
must contain, so a row fails if the error turns into a traceback, a second line, a raw control
character on the terminal, or (worse) a silent success with a nonsense figure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main

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
    pytest.param(["--db", "postgresql://nobody@nowhere/x", "stats"], "cannot use database URL"),
]

IMPORT = [
    # Path("") is the current directory: an unset variable must not import whatever is there.
    pytest.param(["import", ""], "an empty PATH was given"),
    pytest.param(["import", "--dry-run", " "], "an empty PATH was given"),
]

GARBAGE = [*CALC_DOMAIN, *CALC_EMPTY_AND_CONTROL, *CALC_NAMES, *GLOBAL, *IMPORT]


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
    assert capsys.readouterr().out.startswith("extra_kv_tokens = -30,518 tokens")


def test_an_empty_import_path_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(DECKS)  # a directory full of good packs, which "" must not pick up
    database = tmp_path / "x.db"
    assert main(["--db", f"sqlite:///{database}", "import", str(DECKS), ""]) == 1
    assert "empty PATH" in capsys.readouterr().err
    assert not database.exists()
