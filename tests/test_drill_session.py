"""The drill session service on the fixture pack: order, step-7 repeats, days, undo, actions."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timedelta

import pytest
from drill_helpers import keys_until_done
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from kvdrill.app.services.drill import DrillSession, InvalidAnswer, UndoRefused, WrongCardKind
from kvdrill.engine.errors import UserError
from kvdrill.store.db import open_database
from kvdrill.store.models import CardState, ReviewLog

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server

DAY1 = datetime(2026, 3, 10, 9, 0)
DAY2 = datetime(2026, 3, 11, 9, 0)
DAY3 = datetime(2026, 3, 12, 9, 0)


@pytest.fixture
def db(fixture_pack_db):
    return fixture_pack_db


def open_session(db, now: datetime = DAY1, **options) -> DrillSession:
    return DrillSession.open(db, now=now, pack="sm2-fixture", **options)


def test_a_new_user_meets_each_kind_in_turn_with_the_follow_up_after_its_parent(db) -> None:
    session = open_session(db)
    first = session.current
    assert (first.title, first.is_new, first.kind) == ("First recall card", True, "recall")
    assert first.prompt.startswith("Alpha prompt")
    assert first.key_numbers == ["alpha key number: 4"]
    assert first.tip.startswith("Alpha tip")
    assert session.remaining == 5
    session.grade(4, 2.0)
    follow_up = session.current
    assert follow_up.kind == "followup" and follow_up.parent_title == "First recall card"
    # New cards come from each kind in turn: the choice card before the second recall card.
    assert keys_until_done(session, {}) == ["alpha/follow-up", "gamma", "beta", "delta"]
    assert session.done == 5


def test_a_missed_card_comes_back_after_three_others_until_it_is_good(db) -> None:
    session = open_session(db)
    shown = keys_until_done(session, {"alpha": [1, 3, 4]})
    assert shown == [
        "alpha",
        "alpha/follow-up",
        "gamma",
        "beta",
        "alpha",  # missed: back after three others
        "delta",
        "alpha",  # graded 3: still below 4, back again
    ]
    with db.session() as s:
        moved = s.scalars(
            select(ReviewLog.moved_schedule).where(ReviewLog.card_id == 1).order_by(ReviewLog.id)
        ).all()
    assert moved == [True, False, False]  # only the first grade of the day moves the schedule


def test_the_missed_card_comes_back_the_next_day_and_more_often(db) -> None:
    keys_until_done(open_session(db), {"beta": [1, 4]})
    day2 = open_session(db, DAY2)
    assert day2.remaining == 5  # every card was seen once: all due after one day
    keys_until_done(day2, {})
    # Day 2 good answers: the cards learned on day 1 are now 6 days out; the card missed
    # on day 1 restarted its repetitions, so it is due again on day 3.
    day3 = open_session(db, DAY3)
    assert [day3.current.key, day3.remaining] == ["beta", 1]


def test_reopening_the_same_day_owes_the_repeat_of_a_miss_but_no_new_cards_twice(db) -> None:
    session = open_session(db)
    session.grade(1, 1.0)  # alpha missed
    session.grade(4, 1.0)  # its follow-up
    again = open_session(db, DAY1.replace(hour=20))
    shown = keys_until_done(again, {})
    assert shown[0] == "alpha"
    assert again.done == 4  # alpha's repeat plus the three cards not yet seen


def test_the_new_card_limit_and_the_session_limit(db) -> None:
    assert open_session(db, new_limit=2).remaining == 2  # alpha and its held follow-up
    assert open_session(db, limit=1).remaining == 1
    with pytest.raises(UserError):
        open_session(db, limit=-1)
    with pytest.raises(UserError, match="--limit must be a whole number 1 or more"):
        open_session(db, limit=0)  # an empty session that new cards wait behind


def test_undo_puts_the_card_back_with_its_schedule_and_log(db) -> None:
    session = open_session(db)
    session.grade(5, 1.0)
    session.grade(1, 1.0)  # the follow-up, missed
    assert session.undo()
    card = session.current
    assert card.kind == "followup" and session.done == 1
    assert session.remaining == 4  # no owed repeat after the undo
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(ReviewLog)) == 1
    assert session.undo()
    assert session.current.title == "First recall card" and session.current.is_new
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(ReviewLog)) == 0
    assert not session.undo()


def test_suspend_and_bury_take_the_card_out_and_undo_brings_it_back(db) -> None:
    session = open_session(db)
    session.suspend()  # alpha: its follow-up goes too
    assert session.current.title == "A choice card" and session.remaining == 3
    session.bury()
    assert session.current.title == "Second recall card"
    assert session.undo()
    assert session.current.title == "A choice card"
    assert open_session(db).remaining == 3  # gamma back, alpha suspended
    assert open_session(db, DAY2).remaining == 3  # suspension lasts across days


def test_a_buried_card_is_back_the_next_day(db) -> None:
    session = open_session(db)
    session.grade(4, 1.0)
    session.grade(4, 1.0)
    session.bury()  # gamma
    assert "gamma" not in keys_until_done(open_session(db), {})
    assert "gamma" in keys_until_done(open_session(db, DAY2), {})


def test_multiple_choice_grades_itself_and_refuses_unreadable_letters(db) -> None:
    session = open_session(db)
    for _ in range(2):  # alpha and its follow-up
        session.grade(4, 1.0)
    card = session.current
    assert [c.letter for c in card.choices] == ["A", "B", "C"]
    # In the pack, B is right; the letters shown are shuffled.
    right = next(c.letter for c in card.choices if c.pack_letter == "B")
    wrong = next(c.letter for c in card.choices if c.pack_letter == "C")
    assert card.correct_letters == right
    with pytest.raises(InvalidAnswer):
        session.answer_choice("z", 1.0)
    with pytest.raises(WrongCardKind):
        session.grade(4, 1.0)
    result = session.answer_choice(wrong.lower(), 1.0)
    assert (result.correct, result.quality, result.chosen, result.correct_letters) == (
        False,
        1,
        wrong,
        right,
    )
    assert "Four is even" in result.explanation


def test_notes_stay_with_the_card_and_the_profile(db) -> None:
    session = open_session(db)
    session.set_note("carry the one")
    assert session.note() == "carry the one" and session.current.note == "carry the one"
    assert open_session(db).current.note == "carry the one"
    assert DrillSession.open(db, profile="other", now=DAY1, pack="sm2-fixture").current.note == ""


def test_profiles_keep_separate_schedules(db) -> None:
    keys_until_done(open_session(db), {})
    assert open_session(db).remaining == 0
    other = DrillSession.open(db, profile="ana", now=DAY1, pack="sm2-fixture")
    assert other.remaining == 5


def test_two_sessions_on_one_card_move_the_schedule_once(db) -> None:
    first, second = open_session(db), open_session(db)
    first.grade(4, 1.0)
    second.grade(1, 1.0)
    with db.session() as s:
        rows = s.execute(select(ReviewLog.quality, ReviewLog.moved_schedule)).all()
    assert rows == [(4, True), (1, False)]


def test_unknown_pack_or_tag_is_a_one_line_error(db) -> None:
    with pytest.raises(UserError, match="no pack 'nope'.*sm2-fixture"):
        DrillSession.open(db, now=DAY1, pack="nope")
    with pytest.raises(UserError, match="tag 'nope'"):
        DrillSession.open(db, now=DAY1, tag="nope")


def test_the_tag_option_narrows_the_session(db) -> None:
    session = DrillSession.open(db, now=DAY1, tag="choices")
    assert [session.current.title, session.remaining] == ["A choice card", 1]


def test_summary_counts_cards_accuracy_time_due_and_missed_topics(db) -> None:
    session = open_session(db)
    keys_until_done(session, {"beta": [2, 4], "gamma": [1, 4]})
    summary = session.summary()
    assert (summary.cards_done, summary.answers) == (5, 7)
    assert summary.first_try_right == 3 and summary.accuracy == pytest.approx(0.6)
    assert summary.answer_seconds == pytest.approx(21.0)
    assert summary.due_tomorrow == 5
    assert dict(summary.topics_missed) == {"arith": 1, "choices": 1, "fixture": 2}


def test_the_summary_reports_real_session_time_not_only_time_before_each_answer(db) -> None:
    """Four minutes of wall time with 3 s of answering per card reads as four minutes."""
    moments = iter(DAY1 + timedelta(seconds=s) for s in range(0, 10_000, 40))
    session = open_session(db, now=lambda: next(moments))
    keys_until_done(session, {})
    summary = session.summary()
    assert summary.answer_seconds == pytest.approx(3.0 * summary.answers)
    assert summary.seconds >= 40 * summary.answers > summary.answer_seconds


def test_review_log_keeps_time_to_reveal_and_time_to_grade(db) -> None:
    session = open_session(db)
    session.grade(4, 2.5, reveal_seconds=7.25, grade_seconds=1.5)
    with db.session() as s:
        row = s.execute(
            select(ReviewLog.seconds, ReviewLog.reveal_seconds, ReviewLog.grade_seconds)
        ).one()
    assert tuple(row) == (2.5, 7.25, 1.5)


def test_back_tomorrow_counts_this_sessions_cards_and_the_others_apart(db, collection) -> None:
    database = db
    with database.session() as s:
        collection.add_pack(s, "other", collection.recall_cards(4))
    first = DrillSession.open(database, now=DAY1, pack="other")
    while first.current is not None:
        first.grade(4, 1.0)  # four cards of another pack, due again on day 2
    narrow = DrillSession.open(database, now=DAY1, pack="sm2-fixture", limit=2)
    narrow.grade(1, 1.0)  # missed: owed again today, then due tomorrow
    while narrow.current is not None:
        narrow.grade(4, 1.0)
    summary = narrow.summary()
    assert summary.cards_done == 2
    assert summary.session_due_tomorrow == 2
    assert summary.others_due_tomorrow == summary.due_tomorrow - 2 >= 4


def test_due_reviews_come_before_new_cards(db_url: str, collection) -> None:
    database = open_database(db_url)
    with database.session() as s:
        collection.add_pack(s, "later", collection.recall_cards(3))
    session = DrillSession.open(database, now=DAY1, pack="later", new_limit=1)
    session.grade(4, 1.0)
    day2 = DrillSession.open(database, now=DAY2, pack="later", new_limit=1)
    assert [day2.current.is_new, day2.current.title, day2.remaining] == [False, "Card 1", 2]
    database.close()


def answer_text(card) -> str:
    return f"{card.variant.expected_value:g} {card.variant.unit}"


def test_a_problem_is_generated_checked_logged_and_drawn_afresh_when_it_comes_back(db) -> None:
    session = DrillSession.open(db, now=DAY1, pack="sm2-problems")
    assert session.current.key == "between"  # one problem, one other card: spread, other first
    session.grade(4, 1.0)
    card = session.current
    assert card.kind == "problem" and card.variant is not None
    assert card.prompt == card.variant.prompt and "kv_bytes_per_token" in card.prompt
    unreadable = session.answer_problem("banana", 5.0)
    assert unreadable.unreadable and session.current is card and session.done == 1
    verdict = session.give_up(9.0)
    assert verdict.worked_solution and session.done == 2
    again = session.current
    assert again.key == "kv-drawn" and again.is_repeat
    assert again.variant.seed != card.variant.seed  # a fresh draw, not the same numbers
    right = session.answer_problem(answer_text(again), 20.0)
    assert right.correct and right.quality >= 4 and session.current is None
    with db.session() as s:
        rows = s.execute(
            select(
                ReviewLog.quality,
                ReviewLog.graded_by,
                ReviewLog.template_id,
                ReviewLog.seed,
                ReviewLog.expected,
                ReviewLog.typed_answer,
            )
            .where(ReviewLog.template_id.is_not(None))
            .order_by(ReviewLog.id)
        ).all()
    assert [(q, who, tid) for q, who, tid, *_ in rows] == [
        (0, "auto", "sm2-problems/kv-drawn"),
        (right.quality, "auto", "sm2-problems/kv-drawn"),
    ]
    assert rows[0].seed == card.variant.seed and rows[0].expected == verdict.expected_text
    assert rows[1].typed_answer == answer_text(again)


def test_problem_calls_on_a_recall_card_are_refused(db) -> None:
    session = open_session(db)
    with pytest.raises(WrongCardKind):
        session.answer_problem("128 KiB", 1.0)


def locked_error() -> OperationalError:
    return OperationalError("BEGIN IMMEDIATE", None, sqlite3.OperationalError("database is locked"))


def log_rows(db) -> int:
    with db.session() as s:
        return s.scalar(select(func.count()).select_from(ReviewLog))


def fail_to_begin(monkeypatch, failures: list[Exception] | None) -> None:
    """Every write transaction begins with ``failures.pop()`` raised while there is one (None:
    always), on either path: an ORM session's ``begin_write``, SQLite's ``SqliteTransaction``."""
    from kvdrill import store

    real_begin, real_sqlite = store.db.begin_write, store.sql.SqliteTransaction

    def fail() -> None:
        if failures is None:
            raise locked_error()
        if failures:
            raise failures.pop()

    def flaky_begin(session, *args) -> None:
        fail()
        real_begin(session, *args)

    @contextmanager
    def flaky_sqlite(*args, **options):
        fail()
        with real_sqlite(*args, **options) as sql:
            yield sql

    monkeypatch.setattr(store.db, "begin_write", flaky_begin)
    monkeypatch.setattr(store.sql, "SqliteTransaction", flaky_sqlite)


def test_each_answer_reaches_the_store_with_every_field_of_its_record(db, monkeypatch) -> None:
    """The session builds its ``GivenAnswer`` without the dataclass's ``__init__``: a field
    left out (one added to the record later, say) would be missing, not defaulted."""
    from dataclasses import fields

    from kvdrill.store import reviews

    given: list[reviews.GivenAnswer] = []
    real_commit = reviews.commit_answer

    def spy(database, answer, locked_message):
        given.append(answer)
        return real_commit(database, answer, locked_message)

    monkeypatch.setattr(reviews, "commit_answer", spy)
    session = open_session(db)
    keys_until_done(session, {})  # recall, choice and follow-up cards
    assert len(given) >= 3
    for answer in given:
        assert list(vars(answer)) == [field.name for field in fields(reviews.GivenAnswer)]
        assert answer == reviews.GivenAnswer(**vars(answer))  # checked as the record checks it


def test_a_locked_database_is_retried_once(db, monkeypatch) -> None:
    fail_to_begin(monkeypatch, [locked_error()])
    session = open_session(db)
    session.grade(4, 1.0)
    assert log_rows(db) == 1 and session.current.key == "alpha/follow-up"


def test_a_database_that_stays_locked_is_one_line_and_keeps_the_card(db, monkeypatch) -> None:
    session = open_session(db)
    fail_to_begin(monkeypatch, None)
    with pytest.raises(UserError, match="locked by another kvdrill process"):
        session.grade(4, 1.0)
    assert log_rows(db) == 0 and session.current.key == "alpha" and session.done == 0


@pytest.mark.sqlite_only
def test_an_answer_waits_for_another_writer_to_finish(db, db_url: str) -> None:
    session = open_session(db)
    other = sqlite3.connect(db_url.removeprefix("sqlite:///"), check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock for a moment
    release = threading.Timer(0.3, other.commit)
    release.start()
    session.grade(4, 1.0)
    release.join()
    other.close()
    assert log_rows(db) == 1


def state_and_log(db, card_id: int) -> tuple[tuple, int]:
    with db.session() as session:
        state = session.execute(
            select(CardState.reviews, CardState.suspended).where(CardState.card_id == card_id)
        ).one_or_none()
        logged = session.scalar(
            select(func.count()).select_from(ReviewLog).where(ReviewLog.card_id == card_id)
        )
    return (tuple(state) if state is not None else None), logged


@pytest.mark.parametrize("first", ["suspend", "grade"])
def test_undo_never_throws_away_what_another_kvdrill_did_since(
    db_url: str, first: str, collection
) -> None:
    """A and B drill one profile. A suspends (or grades) a card, B then grades (or suspends)
    it, A presses undo: B's action stands, and A is told nothing was undone."""
    setup = open_database(db_url)
    collection.import_fixture_pack(setup)
    setup.close()
    a_db, b_db = open_database(db_url), open_database(db_url)
    try:
        a, b = open_session(a_db), open_session(b_db)
        card = a.current.card_id
        assert b.current.card_id == card
        if first == "suspend":
            a.suspend()
            b.grade(4)
        else:
            a.grade(4)
            b.suspend()
        with pytest.raises(UndoRefused, match="changed in another kvdrill since"):
            a.undo()
        assert state_and_log(a_db, card) == ((1, True), 1)
        assert a.undo() is False  # the refused entry is gone; nothing else to undo
    finally:
        a_db.close()
        b_db.close()


def test_undo_still_works_when_nothing_changed_since(db) -> None:
    session = open_session(db)
    card = session.current.card_id
    session.suspend()
    session.answer_choice(session.current.correct_letters)  # the next card, multiple choice
    assert session.undo() and session.undo()
    assert state_and_log(db, card) == (None, 0)  # new again, as before the suspend


def test_choices_are_shuffled_per_showing_and_the_log_keeps_what_was_seen(db) -> None:
    from kvdrill.engine.packs.card_view import choice_views

    session = open_session(db)
    for _ in range(2):  # alpha and its follow-up
        session.grade(4, 1.0)
    orders = []
    for _ in range(6):  # missed each time: the card comes back with a fresh order
        card = session.current
        while card.kind != "choice":
            session.grade(4, 1.0)
            card = session.current
        orders.append(card.choice_order)
        wrong = next(c.letter for c in card.choices if not c.correct)
        session.answer_choice(wrong, 1.0)
    assert len(set(orders)) > 1, orders
    with db.session() as s:
        logged = s.execute(
            select(ReviewLog.typed_answer, ReviewLog.choice_seed, ReviewLog.choice_order).where(
                ReviewLog.choice_seed.is_not(None)
            )
        ).all()
    assert [order for _, _, order in logged] == orders
    stored = [{"text": "3", "correct": False}, {"text": "4", "correct": True}, {"text": "5"}]
    for typed, seed, order in logged:
        # The seed rebuilds the order shown, and the typed letter reads back as a wrong choice.
        views = choice_views(stored, seed)
        assert "".join(v.pack_letter for v in views) == order
        assert not next(v for v in views if v.letter == typed).correct
