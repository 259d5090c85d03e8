"""A second edition of one pack in one language, imported in a later run than the first: refused
at import with a line naming both files, or, with ``--replace``, put in the first one's place
(its pack row, so the original's schedules never move)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from test_importer import give_history

from kvdrill.engine.errors import PackErrors
from kvdrill.engine.packs.model import PackMeta, ParsedCard, ParsedPack
from kvdrill.store.db import Database, open_database
from kvdrill.store.importer import apply_import, plan_import
from kvdrill.store.models import Card, CardState, Pack, ReviewLog

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server


def _pack(key: str, *cards: str, **meta: str) -> ParsedPack:
    made = [
        ParsedCard(key=card, kind="recall", title=card, prompt="?", answer="!", line=5)
        for card in cards
    ]
    return ParsedPack(
        meta=PackMeta(pack=key, title=key, version="1", **meta),
        cards=made,
        path=f"/decks/{key}.md",
        content_hash="x" * 64,
    )


ORIGINAL = _pack("kv", "a", "b")
FIRST = _pack("kv-vi", "a", "b", lang="vi", edition_of="kv")
SECOND = _pack("kv-vi2", "a", lang="vi", edition_of="kv")


@pytest.fixture
def database(db_url: str) -> Database:
    return open_database(db_url)


def _import(database: Database, *packs: ParsedPack, **options):
    with database.session() as session:
        return apply_import(session, list(packs), now=datetime(2026, 12, 1, 9), **options)


def _editions(database: Database) -> list[tuple[int, str, str]]:
    with database.session() as session:
        rows = session.execute(
            select(Pack.id, Pack.key, Pack.lang).where(Pack.edition_of == "kv").order_by(Pack.id)
        )
        return [tuple(row) for row in rows]


def test_an_edition_imported_after_another_of_its_language_is_refused_naming_both(
    database: Database,
) -> None:
    _import(database, ORIGINAL, FIRST)
    before = _editions(database)
    with pytest.raises(PackErrors) as refused:
        _import(database, SECOND)
    assert [str(problem) for problem in refused.value.problems] == [
        '/decks/kv-vi2.md:1: kv already has a "vi" edition, kv-vi from /decks/kv-vi.md: one '
        "edition per language; import this file with --replace to put it in that edition's "
        "place (the schedules are kv's cards' and stay)"
    ]
    with database.session() as session, pytest.raises(PackErrors):
        plan_import(session, [SECOND])  # the dry run says the same
    # a region of the language is the language: a profile in vi would be served both
    regional = _pack("kv-vi2", "a", lang="vi-VN", edition_of="kv")
    with pytest.raises(PackErrors, match='kv already has a "vi" edition, kv-vi from'):
        _import(database, regional)
    assert _editions(database) == before  # nothing written
    # the first edition again, and an edition in another language, are no rivals
    _import(database, FIRST, _pack("kv-fr", "a", lang="fr", edition_of="kv"))
    assert [key for _id, key, _lang in _editions(database)] == ["kv-vi", "kv-fr"]


def test_replace_puts_the_new_edition_in_the_old_ones_place_and_keeps_the_schedules(
    database: Database,
) -> None:
    _import(database, ORIGINAL, FIRST)
    give_history(database, "a", pack="kv")
    with database.session() as session:
        before = session.execute(select(CardState.card_id, CardState.due_day)).all()
    ((edition_id, _key, _lang),) = _editions(database)
    with database.session() as session:
        planned = plan_import(session, [SECOND], replace=True)
    assert planned.packs[0].retired == ["b"]
    plan = _import(database, SECOND, replace=True)
    assert _editions(database) == [(edition_id, "kv-vi2", "vi")]  # the same row, renamed
    assert (
        "kv-vi2: takes the place of kv-vi (/decks/kv-vi.md) as the edition of kv in its "
        "language; the schedules are kv's cards' and stay"
    ) in plan.summary_lines()
    with database.session() as session:
        assert session.execute(select(CardState.card_id, CardState.due_day)).all() == before
        assert session.scalars(select(ReviewLog)).one().card_id == before[0][0]
        retired = session.scalars(
            select(Card.key).where(Card.pack_id == edition_id, Card.retired)
        ).all()
        assert retired == ["b"]  # the card the new file lacks


def test_a_bundled_edition_is_never_taken_over(database: Database) -> None:
    _import(database, ORIGINAL, FIRST, bundled=True)
    with pytest.raises(PackErrors) as refused:
        _import(database, SECOND, replace=True)
    (problem,) = refused.value.problems
    assert str(problem) == (
        '/decks/kv-vi2.md:1: kv already has the bundled "vi" edition kv-vi (/decks/kv-vi.md), '
        "which kvdrill keeps up to date: keep it, or remove edition_of: from this file to "
        "import it as a pack of its own"
    )
    assert [key for _id, key, _lang in _editions(database)] == ["kv-vi"]


def test_an_edition_stored_before_a_bundled_rival_came_is_still_updated(
    database: Database,
) -> None:
    # the learner's own vi edition, then a release that bundles one (the bundled import
    # checks nothing): the learner's file, edited, still imports
    _import(database, ORIGINAL, bundled=True)
    _import(database, SECOND)
    _import(database, ORIGINAL, FIRST, bundled=True)
    edited = _pack("kv-vi2", "a", "b", lang="vi", edition_of="kv")
    assert _import(database, edited).packs[0].added == ["b"]


@pytest.mark.store
def test_kvdrill_import_refuses_the_second_edition_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kvdrill.app.cli import main

    original = tmp_path / "kv.md"
    original.write_text(
        "---\npack: kv\ntitle: KV\nversion: 1\n---\n\n## A {#a}\n\n### Prompt\nQ?\n\n"
        "### Answer\nA.\n",
        encoding="utf-8",
    )
    first, second = tmp_path / "vi" / "kv-vi.md", tmp_path / "vi2" / "kv-vi2.md"
    for path, key in ((first, "kv-vi"), (second, "kv-vi2")):
        path.parent.mkdir()
        path.write_text(
            f"---\npack: {key}\ntitle: KV\nversion: 1\nlang: vi\nedition_of: kv\n---\n\n"
            "## A {#a}\n\n### Prompt\nH?\n\n### Answer\nĐ.\n",
            encoding="utf-8",
        )
    url = f"sqlite:///{tmp_path / 'kv.db'}"
    assert main(["--db", url, "import", str(original), str(first)]) == 0
    capsys.readouterr()
    assert main(["--db", url, "import", str(original), str(second)]) == 1
    err = capsys.readouterr().err
    assert f'{second}:1: kv already has a "vi" edition, kv-vi from {first}: ' in err
    assert "Traceback" not in err
    assert main(["--db", url, "import", "--replace", str(original), str(second)]) == 0
    assert "kv-vi2: takes the place of kv-vi" in capsys.readouterr().out
