"""A Vietnamese pack, end to end: check, import, a plain drill through a pipe, stats, the TUI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

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


def test_vietnamese_pack_checks_imports_drills_and_shows_in_stats(db_url: str, collection) -> None:
    from kvdrill.store.db import open_database

    database = open_database(db_url)  # the first start here: the processes import the pack only
    collection.import_bundled(database)
    database.close()
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


async def test_the_drill_shows_an_editions_text_on_the_english_card(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At ``language vi`` the English pack's card is drilled in its Vietnamese edition's words,
    and answering it schedules the English card."""
    from tui_helpers import make_app, settle, text_of

    from kvdrill.store.db import open_database
    from kvdrill.store.reviews import find_card

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    pair = []
    for name in ("memory-and-capacity", "memory-and-capacity-vi"):  # under ids of their own
        text_of_pack = (ROOT / "decks" / f"{name}.md").read_text(encoding="utf-8")
        text_of_pack = text_of_pack.replace("pack: memory-and-capacity", "pack: mine")
        text_of_pack = text_of_pack.replace("edition_of: memory-and-capacity", "edition_of: mine")
        pair.append(tmp_path / f"{name}.md")
        pair[-1].write_text(text_of_pack, encoding="utf-8")
    assert main(["--db", db_url, "import", *map(str, pair)]) == 0
    assert main(["--db", db_url, "settings", "language", "vi"]) == 0
    app = make_app(db_url, pack="mine")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        prompt = text_of(app, "#drill-prompt")
        # The pack's priority card comes first: Q2, in the edition's words.
        assert "Hãy phân tích tham số của Llama 3.1 8B nằm ở đâu" in prompt, prompt
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
    database = open_database(db_url)
    try:
        with database.session() as session:
            english = find_card(session, "mine/params-and-moe-memory")
            edition = find_card(session, "mine-vi/params-and-moe-memory")
            reviewed = (
                session.execute(text("SELECT card_id FROM review_log ORDER BY id")).scalars().all()
            )
    finally:
        database.close()
    assert edition.id == english.id and reviewed == [english.id]
