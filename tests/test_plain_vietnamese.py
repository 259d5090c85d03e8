"""Plain mode for a profile set to Vietnamese: the language comes from the profile's setting
(read before the command runs), and the prompts, grades and summary are Vietnamese."""

from __future__ import annotations

import io
import sys

import pytest

from kvdrill.app.cli import main
from kvdrill.store.db import open_database

pytestmark = pytest.mark.store


@pytest.fixture
def fixture_db(db_url: str, collection) -> str:
    database = open_database(db_url)
    collection.import_fixture_pack(database)
    database.close()
    return db_url


def test_a_profile_in_vietnamese_drills_in_vietnamese(
    fixture_db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-02T09:00:00")
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    assert main(["--db", fixture_db, "settings", "language", "vi"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n3\n\n1\nq\n"))
    code = main(["--db", fixture_db, "drill", "--plain", "--pack", "sm2-fixture", "--limit", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "[Enter] xem đáp án · u hoàn tác" in out
    assert "Chấm điểm: 1 Lại · 2 Khó · 3 Tốt · 4 Dễ" in out
    assert "Hết phiên:" in out
    for english in ("[Enter] show the answer", "Grade:", "Session over", "Back tomorrow"):
        assert english not in out, english
