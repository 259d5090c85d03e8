"""A Vietnamese pack, end to end: check, import, a plain drill through a pipe, stats, the TUI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kvdrill.app.cli import main

ROOT = Path(__file__).resolve().parent.parent
VI_PACK = ROOT / "tests" / "fixtures" / "packs" / "vi"
NOW = "2026-11-29T09:00:00"


def kvdrill(db_url: str, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KVDRILL_NOW": NOW, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "app", "--db", db_url, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        cwd=ROOT,
    )


def test_vietnamese_pack_checks_imports_drills_and_shows_in_stats(db_url: str) -> None:
    checked = kvdrill(db_url, "check", str(VI_PACK))
    assert checked.returncode == 0, checked.stdout + checked.stderr

    imported = kvdrill(db_url, "import", str(VI_PACK))
    assert imported.returncode == 0, imported.stderr
    assert "vi-bo-nho: 3 added" in imported.stdout  # two cards and a follow-up

    # Reveal and grade the recall card and its follow-up, then answer the multiple choice.
    session = kvdrill(db_url, "drill", "--plain", "--pack", "vi-bo-nho", stdin="\n4\n\n4\nA\n")
    assert session.returncode == 0, session.stderr
    out = " ".join(session.stdout.split())  # re-flowed to 80 columns: compare words
    assert "Bộ nhớ và dung lượng" in out
    assert "Mỗi token chiếm bao nhiêu byte trong KV cache?" in out
    assert "512 MiB, khoảng nửa gigabyte" in out  # the follow-up's answer, diacritics intact
    assert "Session over: 3 cards" in out

    stats = kvdrill(db_url, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    topics = {(t["kind"], t["topic"]): t for t in json.loads(stats.stdout)["topics"]}
    assert topics[("pack", "vi-bo-nho")]["recent_reviews"] == 3
    assert topics[("tag", "bộ-nhớ")]["recent_reviews"] == 3


async def test_the_full_screen_drill_shows_the_vietnamese_prompt(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_helpers import make_app, settle, text_of

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    assert main(["--db", db_url, "import", str(VI_PACK)]) == 0
    app = make_app(db_url, pack="vi-bo-nho")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        prompt = text_of(app, "#drill-prompt")
        assert "Mỗi token chiếm bao nhiêu byte" in prompt, prompt
