"""Small faults a user can cause on the command line: each one clear line, exit 1, nothing
written where it should not be (issue 28's smaller ones)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kvdrill.app.cli import main

LONG = "x" * 100_000


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", LONG],
        ["import", LONG],
        ["export", "--format", "json", LONG],
        ["export", "--format", "apkg", LONG],
        ["backup", LONG],
        ["restore", LONG],
    ],
)
def test_a_path_too_long_for_the_file_system_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.startswith("kvdrill: ") and err.count("\n") == 1 and len(err) < 400, err[:300]
    assert "too long" in err


@pytest.mark.parametrize("fmt", ["json", "csv", "apkg"])
def test_an_empty_export_path_writes_nothing_here(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch, fmt: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "export", "--format", fmt, "")
    assert code == 1 and out == "" and "an empty path was given" in err
    assert list(tmp_path.iterdir()) == [] or {p.name for p in tmp_path.iterdir()} == {"data"}


def test_export_refuses_to_replace_what_is_not_a_regular_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe.apkg"
    os.mkfifo(fifo)
    code, out, err = run(capsys, "export", "--format", "apkg", str(fifo))
    assert code == 1 and out == "" and "not a regular file" in err
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # still the pipe it was


def test_a_data_export_that_fails_leaves_no_half_written_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch
) -> None:
    import kvdrill.app.services.pack_files as pack_files

    written = []

    def full_disk(path, data):
        if written:
            raise OSError(28, "No space left on device")
        written.append(path)
        Path(path).write_bytes(data)

    assert main(["settings", "new_per_day", "20"]) == 0  # a learner to export
    monkeypatch.setattr(pack_files, "write_atomically", full_disk)
    target = tmp_path / "out" / "mine"
    code, out, err = run(capsys, "export", "--format", "csv", str(target))
    assert code == 1 and "No space left on device" in err
    assert not target.exists() and not (tmp_path / "out").exists()


def test_a_postgresql_url_without_its_driver_names_the_extra(
    capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if it were not installed
    code, out, err = run(capsys, "--db", "postgresql+psycopg://ana@/kvdrill", "stats")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "pip install 'kvdrill[postgres]'" in err


def test_check_of_a_huge_folder_stops_soon_and_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch
) -> None:
    import kvdrill.app.services.pack_files as pack_files

    deep = tmp_path.joinpath(*[f"d{level}" for level in range(14)])
    deep.mkdir(parents=True)
    (deep / "pack.md").write_text("---\npack: deep\n---\n", encoding="utf-8")
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1 and "stopped looking for packs after" in out + err
    monkeypatch.setattr(pack_files, "MAX_SCAN_FOLDERS", 5)
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1 and "after 5 folders" in out + err


def test_check_refuses_a_bundled_packs_id_as_import_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pack = tmp_path / "mine.md"
    pack.write_text(
        "---\npack: capacity-problems\ntitle: Mine\nversion: 1\n---\n\n## A card {#a}\n\n"
        "### Prompt\n\nQ?\n\n### Answer\n\nA.\n",
        encoding="utf-8",
    )
    message = "pack id 'capacity-problems' belongs to a bundled pack"
    code, out, _ = run(capsys, "check", str(pack))
    assert code == 1 and message in out
    code, out, err = run(capsys, "import", str(pack))
    assert code == 1 and message in out + err
    from kvdrill.app.services.importing import BUNDLED_DECKS

    code, out, _ = run(capsys, "check", str(BUNDLED_DECKS))  # the bundled decks themselves pass
    assert code == 0, out
