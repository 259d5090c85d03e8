"""FSRS as a second scheduler: the rating mapping, the rules under FSRS, replaying the review
log when a profile switches (SM-2 -> FSRS -> SM-2 gives back the same state), drills through
the real session service and plain mode, and the predicted recall in the stats."""

from __future__ import annotations

import io
import json
import sys
from datetime import UTC, date, datetime, timedelta

import fsrs
import pytest
from drill_helpers import keys_until_done
from sqlalchemy import select
from textual.widgets import Input, Static
from tui_helpers import make_app, settle

from kvdrill.app.cli import main
from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.settings import change_settings, load_settings
from kvdrill.app.services.stats import load_report
from kvdrill.engine.errors import UserError
from kvdrill.engine.study.fsrs_memory import predicted_recall, rating_of
from kvdrill.engine.study.grades import LABELLED_GRADES
from kvdrill.engine.study.rules import answer_schedule, replay
from kvdrill.engine.study.schedule import Schedule
from kvdrill.store.db import open_database
from kvdrill.store.models import CardState, ReviewLog

DAY1 = datetime(2026, 3, 10, 9, 0)
NOON = datetime(2026, 3, 10, 12, 0)


# --- mapping and rules (pure) ---------------------------------------------------------------


def test_the_four_grade_keys_are_the_four_fsrs_ratings_and_raw_qualities_map_by_meaning() -> None:
    assert {label: rating_of(q) for label, q in LABELLED_GRADES.values()} == {
        "Again": 1,
        "Hard": 2,
        "Good": 3,
        "Easy": 4,
    }
    assert [rating_of(quality) for quality in range(6)] == [1, 1, 1, 2, 3, 4]
    with pytest.raises(ValueError):
        rating_of(6)


def test_under_fsrs_intervals_come_from_memory_and_the_day_rules_still_hold() -> None:
    good = answer_schedule(None, 4, DAY1, 4, "fsrs").schedule
    easy = answer_schedule(None, 5, DAY1, 4, "fsrs").schedule
    assert good.fsrs is not None and good.fsrs["stability"] > 0
    assert easy.interval_days > good.interval_days >= 1
    assert good.due_day == date(2026, 3, 10) + timedelta(days=good.interval_days)
    assert good.easiness_milli == 2500  # SM-2's easiness is not touched by FSRS

    later_today = answer_schedule(good, 1, NOON, 4, "fsrs")  # FSRS-6's short-term stability
    assert not later_today.moved_schedule  # the day's counters moved on the first answer
    assert later_today.schedule.fsrs["stability"] < good.fsrs["stability"]
    assert later_today.schedule.repetitions == good.repetitions and not later_today.lapsed

    next_review = DAY1 + timedelta(days=good.interval_days)
    missed = answer_schedule(good, 1, next_review, 4, "fsrs")
    assert missed.lapsed and missed.schedule.lapses == 1 and missed.schedule.repetitions == 0
    assert missed.schedule.fsrs["stability"] < good.fsrs["stability"]


def fsrs_package_card(answers: list[tuple[int, datetime]]) -> fsrs.Card:
    """The card the ``fsrs`` package itself gives after ``answers``, every one reviewed."""
    scheduler = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card = fsrs.Card(card_id=0)
    for quality, moment in answers:
        card, _ = scheduler.review_card(
            card, fsrs.Rating(rating_of(quality)), moment.replace(tzinfo=UTC)
        )
    return card


# A week of a card's answers with same-day repeats: missed, repeated twice the first day, a
# Hard then a Good the next, a lapse on day 9 and its repeat, then an Easy.
SAME_DAY_LOG = [
    (1, DAY1),
    (2, DAY1 + timedelta(minutes=10)),
    (4, DAY1 + timedelta(minutes=25)),
    (3, DAY1 + timedelta(days=1)),
    (4, DAY1 + timedelta(days=1, hours=2)),
    (0, DAY1 + timedelta(days=9)),
    (4, DAY1 + timedelta(days=9, minutes=12)),
    (5, DAY1 + timedelta(days=12)),
]


def test_a_card_answered_several_times_a_day_ends_in_the_state_the_fsrs_package_gives() -> None:
    expected = fsrs_package_card(SAME_DAY_LOG)
    schedule = replay(None, SAME_DAY_LOG, 4, "fsrs")[-1]
    assert schedule is not None and schedule.fsrs is not None
    assert schedule.fsrs["stability"] == expected.stability
    assert schedule.fsrs["difficulty"] == expected.difficulty
    assert schedule.fsrs["state"] == expected.state.value
    assert schedule.due_day == expected.due.date()
    # The day rules count days, not answers: two lapses would be counted per answer.
    assert (schedule.reviews, schedule.lapses) == (8, 1)


def test_a_higher_desired_retention_brings_cards_back_sooner() -> None:
    def interval_after_three_goods(retention: float) -> int:
        schedule, moment = None, DAY1
        for _ in range(3):
            schedule = answer_schedule(schedule, 4, moment, 4, "fsrs", retention).schedule
            moment += timedelta(days=schedule.interval_days)
        return schedule.interval_days

    assert interval_after_three_goods(0.97) < interval_after_three_goods(0.9)
    assert interval_after_three_goods(0.9) < interval_after_three_goods(0.75)


def test_replaying_a_log_through_sm2_gives_the_states_the_answers_gave() -> None:
    answers = [(4, DAY1), (1, NOON), (5, DAY1 + timedelta(days=1)), (2, DAY1 + timedelta(days=7))]
    live: Schedule | None = None
    befores = []
    for quality, moment in answers:
        befores.append(live)
        live = answer_schedule(live, quality, moment, 4).schedule
    assert replay(live, answers, 4) == [*befores, live]


def test_predicted_recall_falls_with_time_under_both_schedulers() -> None:
    for scheduler in ("sm2", "fsrs"):
        schedule = answer_schedule(None, 4, DAY1, 4, scheduler).schedule
        at_due = DAY1 + timedelta(days=schedule.interval_days)
        soon, due, late = (
            predicted_recall(schedule, moment)
            for moment in (NOON, at_due, at_due + timedelta(days=20))
        )
        assert 1 >= soon > due > late > 0, scheduler
        assert due == pytest.approx(0.9, abs=0.02), scheduler
    assert predicted_recall(Schedule(), DAY1) is None


# --- switching with a real database and the real drill session -------------------------------


@pytest.fixture
def db(fixture_pack_db):
    return fixture_pack_db


def drill_day(db, now: datetime, grades: dict[str, list[int]] | None = None) -> list[str]:
    """One session of the fixture pack at ``now`` (grades by card key, default Good)."""
    grades = {key: list(values) for key, values in (grades or {}).items()}
    return keys_until_done(DrillSession.open(db, now=now, pack="sm2-fixture"), grades)


def snapshot(db) -> tuple[dict, list]:
    """Every card state and every log row's saved previous state."""
    with db.session() as session:
        states = {
            row.card_id: Schedule.from_row(row).to_dict()
            for row in session.scalars(select(CardState).order_by(CardState.card_id))
        }
        logs = [row.prev_state for row in session.scalars(select(ReviewLog).order_by(ReviewLog.id))]
    return states, logs


def switch(db, now: datetime, **changes) -> None:
    change_settings(db, "default", now, **changes)


def test_sm2_to_fsrs_to_sm2_ends_in_exactly_the_sm2_state_it_started_from(db) -> None:
    drill_day(db, DAY1, {"alpha": [1, 4], "beta": [5]})
    drill_day(db, DAY1 + timedelta(days=1), {"alpha": [3]})
    drill_day(db, DAY1 + timedelta(days=2), {"alpha": [2, 4]})
    drill_day(db, DAY1 + timedelta(days=8))
    with db.session() as session:
        session.execute(
            CardState.__table__.update().where(CardState.card_id == 2), {"suspended": True}
        )
    sm2_states, sm2_logs = snapshot(db)
    assert len(sm2_logs) >= 12 and all(state["fsrs"] is None for state in sm2_states.values())

    switch(db, DAY1 + timedelta(days=9), scheduler="fsrs")
    fsrs_states, fsrs_logs = snapshot(db)
    assert fsrs_states.keys() == sm2_states.keys()
    assert all(state["fsrs"] is not None for state in fsrs_states.values() if state["reviews"])
    assert fsrs_states != sm2_states  # intervals now come from FSRS
    assert any(log and log.get("fsrs") for log in fsrs_logs)  # undo puts back FSRS states
    for card_id, state in fsrs_states.items():  # history and flags kept
        before = sm2_states[card_id]
        for kept in ("reviews", "lapses", "last_review_at", "suspended", "buried_until"):
            assert state[kept] == before[kept], kept

    switch(db, DAY1 + timedelta(days=9), scheduler="sm2")
    assert snapshot(db) == (sm2_states, sm2_logs)


def test_a_drill_under_fsrs_schedules_by_fsrs_and_undo_restores_the_fsrs_state(db) -> None:
    switch(db, DAY1, scheduler="fsrs")
    drill_day(db, DAY1, {"beta": [5]})
    states, _ = snapshot(db)
    assert states and all(state["fsrs"] is not None for state in states.values())
    by_easy = max(states.values(), key=lambda state: state["interval_days"])
    assert by_easy["interval_days"] > 1  # an Easy first answer under FSRS waits days, not 1

    later = DAY1 + timedelta(days=30)
    session = DrillSession.open(db, now=later, pack="sm2-fixture")
    before, _ = snapshot(db)
    session.grade(1, 2.0) if session.current.kind != "choice" else session.answer_choice("A")
    assert snapshot(db)[0] != before
    session.undo()
    assert snapshot(db)[0] == before


def test_a_drilled_card_under_fsrs_holds_what_the_fsrs_package_gives_on_its_whole_log(db) -> None:
    switch(db, DAY1, scheduler="fsrs")
    drill_day(db, DAY1, {"alpha": [1, 2, 4]})  # missed, repeated twice in the session
    drill_day(db, DAY1 + timedelta(days=3), {"alpha": [1, 4]})
    with db.session() as session:
        rows = session.execute(
            select(ReviewLog.card_id, ReviewLog.quality, ReviewLog.reviewed_at).order_by(
                ReviewLog.id
            )
        ).all()
        states = {row.card_id: Schedule.from_row(row) for row in session.scalars(select(CardState))}
    by_card: dict[int, list[tuple[int, datetime]]] = {}
    for card_id, quality, moment in rows:
        by_card.setdefault(card_id, []).append((quality, moment))
    assert max(len(log) for log in by_card.values()) == 5
    for card_id, log in by_card.items():
        expected = fsrs_package_card(log)
        memory = states[card_id].fsrs
        assert (memory["stability"], memory["difficulty"]) == (
            expected.stability,
            expected.difficulty,
        )


def test_changing_the_desired_retention_under_fsrs_replays_and_under_sm2_does_not(db) -> None:
    drill_day(db, DAY1)
    drill_day(db, DAY1 + timedelta(days=1))
    sm2_states, _ = snapshot(db)
    switch(db, DAY1 + timedelta(days=2), desired_retention=0.95)
    assert snapshot(db)[0] == sm2_states
    switch(db, DAY1 + timedelta(days=2), scheduler="fsrs")
    loose, _ = snapshot(db)
    switch(db, DAY1 + timedelta(days=2), desired_retention=0.8)
    tight_first, _ = snapshot(db)
    assert sum(s["interval_days"] for s in tight_first.values()) > sum(
        s["interval_days"] for s in loose.values()
    )


def test_bad_scheduler_settings_are_refused_in_one_line_and_change_nothing(db) -> None:
    with pytest.raises(UserError, match="scheduler .* must be one of sm2, fsrs"):
        switch(db, DAY1, scheduler="sm3")
    with pytest.raises(UserError, match="desired_retention .* from 0.7 to 0.99"):
        switch(db, DAY1, desired_retention=0.5)
    assert load_settings(db, "default", DAY1).scheduler == "sm2"


# --- the CLI, plain mode, stats and the settings screen --------------------------------------


def test_plain_mode_drills_under_fsrs_after_kvdrill_settings(
    monkeypatch, capsys, db_url: str, collection
) -> None:
    database = open_database(db_url)
    collection.import_fixture_pack(database)
    database.close()
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    assert main(["--db", db_url, "settings", "scheduler", "fsrs"]) == 0
    capsys.readouterr()
    # The choice card's right answer under the letter its shuffled order shows it.
    from kvdrill.engine.packs.card_view import choice_views
    from kvdrill.engine.study.seeds import presentation_seed
    from kvdrill.store.models import Card, Profile

    database = open_database(db_url)
    with database.session() as session:
        gamma = session.scalar(select(Card).where(Card.key == "gamma"))
        profile_id = session.scalar(select(Profile.id).where(Profile.name == "default"))
        seed = presentation_seed(profile_id, gamma.id, date(2026, 3, 10), 0)
        right = next(v.letter for v in choice_views(gamma.choices, seed) if v.correct)
    database.close()
    lines = ["", "easy", "", "good", right, "", "easy", "", "good", "", "good"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    assert main(["--db", db_url, "drill", "--plain", "--pack", "sm2-fixture"]) == 0
    out = capsys.readouterr().out
    assert "Session over" in out
    database = open_database(db_url)
    states, _ = snapshot(database)
    database.close()
    assert states and all(state["fsrs"] is not None for state in states.values())
    # Good on a new card is one day under SM-2; FSRS's first Good waits longer.
    assert all(state["interval_days"] >= 2 for state in states.values())

    monkeypatch.setenv("KVDRILL_NOW", "2026-04-20T09:00")
    assert main(["--db", db_url, "stats", "--json"]) == 0
    recall = json.loads(capsys.readouterr().out)["predicted_recall"]
    assert recall["scheduler"] == "fsrs" and recall["due_cards"] == len(states)
    assert 0 < recall["mean_recall"] < 0.9  # overdue cards are below the 90% aimed for
    assert main(["--db", db_url, "stats"]) == 0
    assert "FSRS-6 retrievability" in capsys.readouterr().out


def test_stats_name_the_sm2_approximation_and_none_due(db) -> None:
    report = load_report(db, "default", DAY1)
    assert report.predicted_recall.model_dump() == {
        "scheduler": "sm2",
        "due_cards": 0,
        "mean_recall": None,
        "method": "sm2 approximation",
    }
    drill_day(db, DAY1)
    due_day = load_report(db, "default", DAY1 + timedelta(days=1)).predicted_recall
    assert due_day.due_cards > 0 and due_day.mean_recall == pytest.approx(0.9, abs=0.01)


async def test_the_settings_screen_switches_the_scheduler(db_url: str) -> None:
    app = make_app(db_url, start="home")
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        field = app.screen.query_one("#setting-scheduler", Input)
        assert field.value == "sm2"
        field.focus()
        field.value = ""
        await pilot.press(*"fsrs", "enter")
        await settle(pilot)
        assert "Saved: scheduler = fsrs" in str(
            app.screen.query_one("#settings-status", Static).render()
        )
    database = open_database(db_url)
    try:
        assert load_settings(database, "default", DAY1).scheduler == "fsrs"
    finally:
        database.close()
