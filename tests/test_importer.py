"""Storing parsed packs: history kept across re-imports, retire and revive, atomicity, topics."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select

from kvdrill.app.services.importing import store_packs
from kvdrill.engine.errors import PackErrors
from kvdrill.engine.packs.model import Choice, KeyNumber, PackMeta, ParsedCard, ParsedPack
from kvdrill.store.db import Database, open_database
from kvdrill.store.importer import apply_import, plan_import
from kvdrill.store.models import Card, CardState, CardTopic, Pack, ReviewLog
from kvdrill.store.profiles import get_or_create_profile

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server


def recall(key: str, answer: str = "An answer.", **fields) -> ParsedCard:
    defaults = {"title": key.title(), "prompt": f"Question {key}?", "line": 10}
    return ParsedCard(key=key, kind="recall", answer=answer, **(defaults | fields))


def make_pack(cards: list[ParsedCard], key: str = "memory", **meta) -> ParsedPack:
    meta_fields = {"pack": key, "title": key.title(), "version": "1"} | meta
    return ParsedPack(
        meta=PackMeta(**meta_fields), cards=cards, path=f"{key}.md", content_hash="x" * 64
    )


@pytest.fixture
def database(db_url: str) -> Database:
    return open_database(db_url)


def import_packs(database: Database, *packs: ParsedPack):
    with database.session() as session:
        return apply_import(session, now=datetime.now(), packs=list(packs))


def card_row(database: Database, key: str) -> Card:
    with database.session() as session:
        return session.scalars(select(Card).where(Card.key == key)).one()


def give_history(database: Database, card_key: str, pack: str | None = None) -> None:
    """One answer and a schedule for the card (of ``pack``, where editions share its id), as a
    drill session would leave them."""
    with database.session() as session:
        profile = get_or_create_profile(session, "default", datetime.now())
        query = select(Card).where(Card.key == card_key)
        if pack is not None:
            query = query.join(Pack).where(Pack.key == pack)
        card = session.scalars(query).one()
        session.add(
            CardState(
                profile_id=profile.id,
                card_id=card.id,
                repetitions=2,
                interval_days=6,
                due_day=date(2026, 3, 7),
            )
        )
        session.add(
            ReviewLog(
                profile_id=profile.id,
                card_id=card.id,
                reviewed_at=datetime(2026, 3, 1, 9),
                study_day=date(2026, 3, 1),
                quality=4,
                graded_by="self",
            )
        )


def history_of(database: Database, card_id: int) -> tuple[int, int]:
    with database.session() as session:
        states = session.scalar(
            select(func.count()).select_from(CardState).where(CardState.card_id == card_id)
        )
        logs = session.scalar(
            select(func.count()).select_from(ReviewLog).where(ReviewLog.card_id == card_id)
        )
    return states, logs


def test_first_import_adds_every_card(database: Database) -> None:
    plan = import_packs(database, make_pack([recall("a"), recall("b")]))
    assert plan.summary_lines() == ["memory: 2 added, 0 changed, 0 retired, 0 unchanged"]
    assert card_row(database, "a").answer == "An answer."


def test_reimporting_an_edited_card_updates_text_and_keeps_its_history(
    database: Database,
) -> None:
    import_packs(database, make_pack([recall("a"), recall("b")]))
    before = card_row(database, "a")
    give_history(database, "a")

    plan = import_packs(database, make_pack([recall("a", "A better answer."), recall("b")]))

    assert plan.summary_lines() == ["memory: 0 added, 1 changed, 0 retired, 1 unchanged"]
    after = card_row(database, "a")
    assert after.id == before.id
    assert after.answer == "A better answer."
    assert history_of(database, after.id) == (1, 1)


def test_moving_a_card_down_the_file_is_not_a_change(database: Database) -> None:
    import_packs(database, make_pack([recall("a", line=10), recall("b", line=20)]))
    plan = import_packs(database, make_pack([recall("a", line=14), recall("b", line=24)]))
    assert plan.packs[0].unchanged == ["a", "b"]
    assert card_row(database, "b").source_line == 24


def test_a_card_removed_from_the_file_is_retired_and_revived_when_it_returns(
    database: Database,
) -> None:
    import_packs(database, make_pack([recall("a"), recall("b")]))
    give_history(database, "b")
    b_id = card_row(database, "b").id

    plan = import_packs(database, make_pack([recall("a")]))
    assert plan.summary_lines() == ["memory: 0 added, 0 changed, 1 retired, 1 unchanged"]
    retired = card_row(database, "b")
    assert retired.retired and retired.retired_at is not None
    assert history_of(database, b_id) == (1, 1)

    again = import_packs(database, make_pack([recall("a")]))
    assert again.packs[0].retired == []  # already retired: not counted twice

    back = import_packs(database, make_pack([recall("a"), recall("b")]))
    assert back.summary_lines() == ["memory: 0 added, 0 changed, 0 retired, 1 unchanged, 1 revived"]
    revived = card_row(database, "b")
    assert (revived.id, revived.retired, revived.retired_at) == (b_id, False, None)
    assert history_of(database, b_id) == (1, 1)


def test_plan_import_writes_nothing(database: Database) -> None:
    import_packs(database, make_pack([recall("a")]))
    with database.session() as session:
        plan = plan_import(session, [make_pack([recall("a", "new"), recall("c")])])
    assert plan.summary_lines() == ["memory: 1 added, 1 changed, 0 retired, 0 unchanged"]
    assert card_row(database, "a").answer == "An answer."
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Card)) == 1


def test_follow_up_is_linked_to_its_parent(database: Database) -> None:
    follow = ParsedCard(
        key="a/follow-up", kind="followup", title="Follow-up", parent="a", line=20, answer="x"
    )
    import_packs(database, make_pack([recall("a"), follow]))
    assert card_row(database, "a/follow-up").parent_id == card_row(database, "a").id


def test_topics_follow_pack_and_card_tags_and_lessons(database: Database) -> None:
    pack = make_pack(
        [recall("a", tags=["gqa"], lessons=["05", "7"]), recall("b")],
        tags=["memory"],
        lessons=["3"],
    )
    import_packs(database, pack)

    def topics(key: str) -> set[tuple[str, str]]:
        card_id = card_row(database, key).id
        with database.session() as session:
            rows = session.execute(
                select(CardTopic.kind, CardTopic.value).where(CardTopic.card_id == card_id)
            )
            return {tuple(row) for row in rows}

    assert topics("a") == {
        ("pack", "memory"),
        ("tag", "memory"),
        ("tag", "gqa"),
        ("lesson", "5"),
        ("lesson", "7"),
    }
    assert topics("b") == {("pack", "memory"), ("tag", "memory"), ("lesson", "3")}

    edited = make_pack([recall("a", tags=["kv-cache"]), recall("b")], tags=["memory"])
    plan = import_packs(database, edited)
    assert plan.packs[0].changed == ["a", "b"]
    assert topics("a") == {("pack", "memory"), ("tag", "memory"), ("tag", "kv-cache")}


def test_choices_and_key_numbers_are_stored(database: Database) -> None:
    card = ParsedCard(
        key="mc",
        kind="choice",
        title="Pick",
        prompt="Which?",
        choices=[Choice(text="A", correct=False), Choice(text="B", correct=True)],
        key_numbers=[KeyNumber(text="128 KiB per token", line=12)],
        line=10,
    )
    import_packs(database, make_pack([card]))
    row = card_row(database, "mc")
    assert row.choices == [{"text": "A", "correct": False}, {"text": "B", "correct": True}]
    assert row.key_numbers == [{"text": "128 KiB per token", "claim": None, "line": 12}]


def test_an_error_in_one_pack_writes_nothing_and_says_where(database: Database) -> None:
    good = make_pack([recall("a")], key="good")
    # A follow-up naming a parent that is not in its pack cannot be stored.
    bad = make_pack(
        [recall("b"), ParsedCard(key="x", kind="followup", title="X", parent="nope", line=33)],
        key="bad",
    )
    with pytest.raises(PackErrors) as caught:
        import_packs(database, good, bad)
    assert str(caught.value).startswith("bad.md:33: ")
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Pack)) == 0
        assert session.scalar(select(func.count()).select_from(Card)) == 0


def test_a_failure_while_writing_rolls_back_every_pack(database: Database) -> None:
    import_packs(database, make_pack([recall("a")], key="first"))

    def fail_after_first(done: int, total: int) -> None:
        if done == 1:
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError), database.session() as session:
        apply_import(
            session,
            [make_pack([recall("a", "changed")], key="first"), make_pack([recall("z")], "two")],
            now=datetime.now(),
            progress=fail_after_first,
        )
    assert card_row(database, "a").answer == "An answer."
    with database.session() as session:
        assert session.scalars(select(Pack.key)).all() == ["first"]


def test_progress_is_reported_per_pack(database: Database) -> None:
    seen: list[tuple[int, int]] = []
    with database.session() as session:
        apply_import(
            session,
            [make_pack([recall("a")], key="p1"), make_pack([recall("a")], key="p2")],
            now=datetime.now(),
            progress=lambda done, total: seen.append((done, total)),
        )
    assert seen == [(1, 2), (2, 2)]


def test_a_large_pack_imports_and_reimports(database: Database, tmp_path: Path) -> None:
    cards = [recall(f"c{index}", line=index * 10 + 10) for index in range(2000)]
    first = import_packs(database, make_pack(cards))
    assert first.count("added") == 2000
    cards[5] = recall("c5", "edited", line=60)
    second = import_packs(database, make_pack(cards[:-1]))
    assert (second.count("changed"), second.count("retired"), second.count("unchanged")) == (
        1,
        1,
        1998,
    )


def test_a_learners_pack_cannot_take_a_bundled_packs_id(database: Database) -> None:
    with database.session() as session:
        apply_import(
            session, now=datetime.now(), packs=[make_pack([recall("shipped")])], bundled=True
        )
    mine = make_pack([recall("mine")])  # the same pack id, "memory"
    for store_it in (
        lambda session: apply_import(session, now=datetime.now(), packs=[mine]),
        lambda session: plan_import(session, [mine]),
    ):
        with pytest.raises(PackErrors) as caught, database.session() as session:
            store_it(session)
        assert [str(p) for p in caught.value.problems] == [
            "memory.md:1: pack id 'memory' belongs to a bundled pack; give your pack its own id"
        ]
    assert not card_row(database, "shipped").retired
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Card)) == 1


def test_a_fresh_database_still_refuses_a_bundled_packs_id(database: Database) -> None:
    """Before the bundled decks were ever imported, their files say which ids they own."""
    mine = make_pack([recall("mine")], key="memory-and-capacity")
    with pytest.raises(PackErrors) as caught:
        store_packs(database, [mine], datetime.now())
    assert "belongs to a bundled pack" in str(caught.value)
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Card)) == 0


def test_the_bundled_import_still_updates_bundled_packs(database: Database) -> None:
    for answer in ("Old.", "New."):
        with database.session() as session:
            apply_import(
                session,
                now=datetime.now(),
                packs=[make_pack([recall("shipped", answer)])],
                bundled=True,
            )
    assert card_row(database, "shipped").answer == "New."
