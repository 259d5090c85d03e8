"""The CLI shell: help lists every command, and piping into `head` ends quietly."""

from __future__ import annotations

import io
import os
import sys

import pytest

from kvdrill.app.cli import main
from kvdrill.app.commands import COMMAND_MODULES


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for name in ("drill", "check", "import", "calc", "models", "gpus", "stats"):
        assert f"    {name} " in out
    assert len(COMMAND_MODULES) >= 6


def test_output_cut_short_by_a_closed_pipe_is_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (say, `head`) has gone
    closed_pipe = io.TextIOWrapper(io.FileIO(write_end, "w"), write_through=True)
    monkeypatch.setattr(sys, "stdout", closed_pipe)
    assert main(["models"]) == 0


def test_a_hostile_file_name_in_an_error_reaches_the_terminal_escaped(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = tmp_path / "evil\x1b[2J.md"
    assert main(["--db", f"sqlite:///{tmp_path / 'x.db'}", "import", str(hostile)]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "evil\\x1b[2J.md" in err


@pytest.mark.parametrize("argv", [[], ["drill"]])
def test_without_a_terminal_the_app_points_to_plain_mode_instead_of_hanging(
    tmp_path, argv: list[str]
) -> None:
    import subprocess

    command = [sys.executable, "-m", "app", "--db", f"sqlite:///{tmp_path / 'x.db'}", *argv]
    result = subprocess.run(
        command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert "--plain" in result.stderr and "Traceback" not in result.stderr


def test_a_command_parsed_alone_reads_and_helps_as_among_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``kvdrill drill`` builds only the drill parser (fast start); every command's help and
    arguments come out as with the parser of all of them."""
    from kvdrill.app.cli import build_parser, named_command

    def commands(parser):
        return next(a for a in parser._actions if a.dest == "command").choices

    full = build_parser()
    for name, command_parser in commands(full).items():
        assert commands(build_parser(name))[name].format_help() == command_parser.format_help()
    assert list(commands(build_parser("drill"))) == ["drill"]
    assert list(commands(build_parser("import"))) == ["import"]
    argv = ["--db", "sqlite:///x.db", "--profile=ana", "drill", "--new", "3"]
    assert named_command(argv) == "drill"
    assert vars(build_parser("drill").parse_args(argv)) == vars(full.parse_args(argv))
    assert named_command(["--version", "drill"]) is None  # another option first: all commands
    with pytest.raises(SystemExit):
        build_parser("dril").parse_args(["dril"])
    assert "did you mean 'drill'" in capsys.readouterr().err
