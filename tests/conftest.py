"""Shared fixtures. Every test gets its own database and never touches the user's data dir."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "decks"


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Point the default database and data dir at a temp folder; clear the clock override;
    English, whatever the developer's locale (a test that wants another language asks)."""
    from kvdrill.app.services.language import use_language

    monkeypatch.setenv("KVDRILL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("KVDRILL_DB", raising=False)
    monkeypatch.delenv("KVDRILL_NOW", raising=False)
    # A UTF-8 locale that names no language (tmux and subprocesses still read UTF-8).
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    for name in ("LANG", "LC_ALL"):
        if name == "LANG" or name in os.environ:
            monkeypatch.setenv(name, "C.UTF-8")
    use_language("en")
    yield
    use_language("en")  # a command run in the test may have installed the profile's


@pytest.fixture
def vietnamese() -> Iterator[None]:
    """The interface in Vietnamese for one test (English again after it)."""
    from kvdrill.app.services.language import use_language

    use_language("vi")
    yield
    use_language("en")


# db_url (SQLite, or PostgreSQL too in modules marked both_backends) and the PostgreSQL server;
# the unit/store/e2e tiers; the xdist workers' set-up.
pytest_plugins = ["postgres_server", "tiers", "workers", "cpu_profile", "bundled_parse"]


# --- small collections, for the scheduler's and the session's tests ----------------------------

FIXTURE_PACKS = ROOT / "tests" / "fixtures" / "packs" / "sm2"

CREATED = datetime(2026, 1, 1, 9, 0)


def _add_pack(session, key: str = "sm2-test", cards: list[dict[str, Any]] | None = None) -> Any:
    from kvdrill.store.models import Card, CardTopic, Pack

    """A pack with ``cards`` (dicts of Card columns; ``key`` and ``kind`` default by position).

    A card dict may name its parent by key with ``"parent": "<key>"``.
    """
    pack = Pack(key=key, title=f"Pack {key}", version="1", imported_at=CREATED)
    session.add(pack)
    session.flush()
    by_key: dict[str, Card] = {}
    for position, values in enumerate(cards or []):
        values = dict(values)
        parent_key = values.pop("parent", None)
        card = Card(
            pack_id=pack.id,
            key=values.pop("key", f"c{position + 1}"),
            kind=values.pop("kind", "recall"),
            title=values.pop("title", f"Card {position + 1}"),
            status=None,
            position=position,
            parent_id=by_key[parent_key].id if parent_key else None,
            **values,
        )
        session.add(card)
        session.flush()
        by_key[card.key] = card
        session.add(CardTopic(card_id=card.id, kind="pack", value=key))
        for tag in card.tags or []:
            session.add(CardTopic(card_id=card.id, kind="tag", value=tag))
    session.flush()
    return pack


def _recall_cards(count: int, **extra: Any) -> list[dict[str, Any]]:
    return [
        {"prompt": f"Question {i}?", "answer": f"Answer {i}.", **extra} for i in range(1, count + 1)
    ]


def _import_fixture_pack(database) -> None:
    """Import tests/fixtures/packs/sm2 through the real parser and importer."""
    from kvdrill.app.services.pack_files import parse_paths
    from kvdrill.store.importer import apply_import

    packs, problems = parse_paths([FIXTURE_PACKS])
    assert not problems, problems
    with database.session() as session:
        apply_import(session, now=datetime.now(), packs=packs)


def _import_bundled(database, now: datetime = CREATED) -> None:
    """The bundled decks as a first start stores them, so that a ``kvdrill`` process started on
    the database later has nothing to import (each such import parses all 28 files again)."""
    from kvdrill.app.services.importing import import_bundled

    import_bundled(database, now)


class Collection:
    """Builders of small collections (the ``collection`` fixture)."""

    add_pack = staticmethod(_add_pack)
    recall_cards = staticmethod(_recall_cards)
    import_fixture_pack = staticmethod(_import_fixture_pack)
    import_bundled = staticmethod(_import_bundled)


@pytest.fixture
def collection() -> type[Collection]:
    """``collection.add_pack(session, key, cards)`` straight through the models,
    ``collection.recall_cards(n)``, ``collection.import_fixture_pack(database)`` (tests/fixtures/
    packs/sm2 through the real parser and importer), ``collection.import_bundled(database)``."""
    return Collection


@pytest.fixture
def fixture_pack_db(db_url: str) -> Iterator[Any]:
    """An open database holding tests/fixtures/packs/sm2, imported through the real importer."""
    from kvdrill.store.db import open_database

    database = open_database(db_url)
    _import_fixture_pack(database)
    yield database
    database.close()


@pytest.fixture
def stats_db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A database holding the hand-built review log of tests/stats_helpers.py, at its "now"."""
    from stats_helpers import make_stats_db

    return make_stats_db(db_url, monkeypatch)


@pytest.fixture
def group_db(db_url: str, collection) -> str:
    """Three learners on one database (tests/stats_helpers.py make_group_db)."""
    from stats_helpers import make_group_db

    return make_group_db(db_url, collection)


# --- the TUI fixture packs, clock frozen (tests/test_tui*.py) ------------------------------------


@pytest.fixture
def drill_db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The recall/choice fixture pack, with the clock frozen on a Monday morning."""
    from tui_helpers import NOW, import_fixture

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    return import_fixture(db_url, "good")


@pytest.fixture
def problem_db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """One problem template whose only variant is Llama 3.1 8B in BF16: 128 KiB per token."""
    from tui_helpers import NOW, import_fixture

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    return import_fixture(db_url, "problems")


# --- the fault-injection campaign ----------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fault-campaign",
        action="store_true",
        help="run the fault-injection tests at full size (many kills, damaged files, hostile "
        "packs and typed answers; minutes, not seconds). Also: KVDRILL_FAULT_CAMPAIGN=1",
    )
    parser.addoption(
        "--mistake-seeds",
        type=int,
        default=8,
        help="seeds per problem template for the no-known-mistake-accepted property test",
    )


@pytest.fixture
def fault_campaign(request: pytest.FixtureRequest) -> bool:
    """True when the long fault-injection campaign was asked for; tests scale up with it."""
    import os

    return bool(request.config.getoption("--fault-campaign")) or bool(
        os.environ.get("KVDRILL_FAULT_CAMPAIGN")
    )
