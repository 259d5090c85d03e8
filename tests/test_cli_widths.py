"""Every command's text fits an 80-column terminal: no line of its output is wider than 80.

Run on the bundled decks (their long topic names) over the hand-built review log of
tests/stats_helpers.py (its mistakes), as a learner's terminal of 80 columns shows them.
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from kvdrill.app.cli import main
from kvdrill.app.commands import COMMAND_MODULES

pytestmark = pytest.mark.store

WIDTH = 80

COMMANDS = [
    "stats",
    "stats --group",
    "calc --list",
    "models",
    "gpus",
    "settings",
    "problem --list",
    "cards",
    "cards --state new --sort due",
    "due",
    "--help",
]


@pytest.fixture
def bundled_stats_db(stats_db: str, monkeypatch: pytest.MonkeyPatch) -> str:
    from kvdrill.app.services.backend import Services

    monkeypatch.setenv("COLUMNS", str(WIDTH))
    services = Services(stats_db, "default", bundled=True)
    services.overview()  # the first open brings the bundled decks in
    services.close()
    return stats_db


def output_of(
    argv: list[str], db_url: str, capsys: pytest.CaptureFixture[str]
) -> tuple[str, list[str]]:
    try:
        main(["--db", db_url, *argv])
    except SystemExit:  # --help
        pass
    captured = capsys.readouterr()
    return captured.out, (captured.out + captured.err).splitlines()


def too_wide(lines: list[str]) -> list[str]:
    return [f"{cell_len(line)}: {line}" for line in lines if cell_len(line) > WIDTH]


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_fits_80_columns(
    command: str, bundled_stats_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out, lines = output_of(command.split(), bundled_stats_db, capsys)
    assert lines
    assert too_wide(lines) == []


def test_stats_wraps_long_topics_and_mistakes_rather_than_cut_them(
    bundled_stats_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = output_of(["stats"], bundled_stats_db, capsys)
    flat = " ".join(out.split())
    assert "GB and GiB mixed up in 1 of your last" in flat
    assert "revs: recent reviews" in flat
    assert "due7d: due in the next 7 days" in flat


def test_every_commands_help_fits_80_columns(
    bundled_stats_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from kvdrill.app.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert len(commands) >= len(COMMAND_MODULES)
    wide = {}
    for name in commands:
        _, lines = output_of([name, "--help"], bundled_stats_db, capsys)
        if too_wide(lines):
            wide[name] = too_wide(lines)
    assert wide == {}


def test_the_catalogs_keep_every_fact_on_lines_under_the_row(
    bundled_stats_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = output_of(["models"], bundled_stats_db, capsys)
    flat = " ".join(out.split())
    assert "671 B" in flat and "37 B active" in flat and "MLA latent 512 + rope 64" in flat
    out, _ = output_of(["gpus"], bundled_stats_db, capsys)
    flat = " ".join(out.split())
    assert "CUDA sees 79.22 GiB; aka h100, h100-80gb, h100-sxm5" in flat
