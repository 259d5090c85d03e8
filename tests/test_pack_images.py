"""Images in a hand-written pack: a reference is a path relative to the pack file; one that
leaves the pack's folder is refused by check and import with ``file:line: message``; plain mode
shows a placeholder line with the file's path; only a real image in the pack's folder opens.

A converted pack's ``PACK.media/`` images are proven with Anki's library in
tests/test_anki_history.py, and so is the export of a hand-written pack's images to Anki; the
browser app's sending of a hand-written pack's image in tests/test_serve_browser.py.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.app.services.media import linked_image, media_link

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082"
)


def pack_text(prompt: str) -> str:
    return f"""---
pack: plots
title: Plots
version: 1
---

## The roofline {{#roofline}}

### Prompt
{prompt}

### Answer
Memory bound.
"""


@pytest.fixture(autouse=True)
def no_bundled_decks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("../x.png", "image '../x.png' leaves the pack's folder"),
        ("figures/../../x.png", "image 'figures/../../x.png' leaves the pack's folder"),
        ("/etc/x.png", "image '/etc/x.png' is not a file in the pack's folder"),
        (
            "https://example.org/x.png",
            "image 'https://example.org/x.png' is not a file in the pack's",
        ),
        ("figures/..", "image 'figures/..' names the pack's folder, not a file"),
    ],
)
def test_an_image_outside_the_packs_folder_is_refused_with_its_line(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str], target: str, why: str
) -> None:
    pack = tmp_path / "plots" / "plots.md"
    pack.parent.mkdir()
    (tmp_path / "x.png").write_bytes(PNG)  # the file is there: the path alone is refused
    pack.write_text(pack_text(f"Where is decode?\n\n![the plot]({target})"), encoding="utf-8")
    for command in (["check", str(pack)], ["--db", db_url, "import", str(pack)]):
        assert main(command) == 1
        said = "".join(capsys.readouterr())  # check reports on stdout, import on stderr
        assert f"{pack}:12: {why}" in said and "Traceback" not in said
    assert not Path(db_url.removeprefix("sqlite:///")).exists()  # nothing written


def test_an_image_beside_the_pack_or_below_it_shows_as_a_line_and_opens(
    tmp_path: Path,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pack = tmp_path / "plots.md"
    (tmp_path / "figures").mkdir()
    (tmp_path / "plots.media").mkdir()
    chart, plot = tmp_path / "figures" / "chart.png", tmp_path / "plots.media" / "plot.png"
    chart.write_bytes(PNG)
    plot.write_bytes(PNG)
    prompt = (
        "Where is decode? ![the chart](figures/chart.png) ![](./plots.media/../plots.media/"
        "plot.png)"
    )
    pack.write_text(pack_text(prompt), encoding="utf-8")
    assert main(["check", str(pack)]) == 0
    assert main(["--db", db_url, "import", str(pack)]) == 0
    capsys.readouterr()

    monkeypatch.setenv("COLUMNS", "200")  # a path is long
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ngood\n"))
    assert main(["--db", db_url, "drill", "--plain", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert f"[image: the chart: {chart}]" in out and f"[image: {plot}]" in out

    # The placeholder's link opens the image; no other file of the pack's folder, no file
    # outside it, and no symlink out of it.
    assert linked_image(media_link(str(pack), chart)).path == chart.resolve()
    assert linked_image(media_link(str(pack), pack)) is None  # not an image
    (tmp_path.parent / "x.png").write_bytes(PNG)
    assert linked_image(media_link(str(pack), tmp_path.parent / "x.png")) is None
    escape = tmp_path / "figures" / "escape.png"
    escape.symlink_to(tmp_path.parent / "elsewhere.png")
    (tmp_path.parent / "elsewhere.png").write_bytes(PNG)
    assert linked_image(media_link(str(pack), escape)) is None
    assert linked_image(media_link(str(tmp_path / "gone.md"), chart)) is None  # no such pack
