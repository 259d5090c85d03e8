"""Shared fixtures. Every test gets its own database and never touches the user's data dir."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "decks"


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the default database and data dir at a temp folder; clear the clock override."""
    monkeypatch.setenv("KVDRILL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("KVDRILL_DB", raising=False)
    monkeypatch.delenv("KVDRILL_NOW", raising=False)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'kvdrill.db'}"
