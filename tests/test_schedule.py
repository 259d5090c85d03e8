"""The one schedule type and the one card view type survive their trips, and the answer rules."""

from __future__ import annotations

import json
from datetime import date, datetime

from kvdrill.engine.packs.card_view import (
    CHOICE_LETTERS,
    MAX_CHOICES,
    CardView,
    DrillState,
    choice_views,
)
from kvdrill.engine.problems.types import Variant
from kvdrill.engine.study.rules import LEECH_LAPSES, answer_schedule
from kvdrill.engine.study.schedule import Schedule

MORNING = datetime(2026, 3, 10, 9, 0)
EVENING = datetime(2026, 3, 10, 21, 0)
NEXT_MORNING = datetime(2026, 3, 11, 9, 0)


def test_a_schedule_goes_through_json_and_back_unchanged() -> None:
    schedule = Schedule(3, 2360, 15, date(2026, 3, 25), 1, 4, MORNING, True, date(2026, 3, 11))
    assert Schedule.from_dict(json.loads(json.dumps(schedule.to_dict()))) == schedule
    assert Schedule.from_dict(Schedule().to_dict()) == Schedule()


def test_only_the_first_answer_of_a_study_day_moves_the_schedule() -> None:
    first = answer_schedule(None, 4, MORNING, rollover_hour=4)
    again = answer_schedule(first.schedule, 1, EVENING, rollover_hour=4)
    assert (first.moved_schedule, again.moved_schedule) == (True, False)
    assert again.schedule.interval_days == first.schedule.interval_days == 1
    assert again.schedule.reviews == 2
    assert answer_schedule(again.schedule, 4, NEXT_MORNING, rollover_hour=4).moved_schedule


def test_a_lapse_needs_a_learned_card_and_the_eighth_makes_a_leech() -> None:
    new_card_missed = answer_schedule(None, 1, MORNING, rollover_hour=4)
    assert not new_card_missed.lapsed
    learned = Schedule(repetitions=2, interval_days=6, lapses=LEECH_LAPSES - 1, reviews=9)
    missed = answer_schedule(learned, 1, MORNING, rollover_hour=4)
    assert (missed.lapsed, missed.became_leech) == (True, True)
    assert (missed.schedule.lapses, missed.schedule.leech) == (LEECH_LAPSES, True)
    learned_again = Schedule(repetitions=1, interval_days=1, lapses=LEECH_LAPSES, leech=True)
    assert not answer_schedule(learned_again, 0, MORNING, rollover_hour=4).became_leech


def test_a_card_view_goes_through_json_and_back_unchanged() -> None:
    variant = Variant("p/q", 7, "How many?", {"n": "8"}, 64.0, "KiB", context={"name": "kv"})
    card = CardView(
        card_id=3,
        key="q",
        kind="problem",
        pack_key="p",
        pack_title="Pack",
        title="Q",
        prompt="How many?",
        choices=choice_views([{"text": "yes", "correct": True}, {"text": "no"}]),
        key_numbers=["2 bytes"],
        variant=variant,
        tags=["kv"],
        is_new=True,
    )
    state = DrillState(card, remaining=4, done=1, answer_seconds=60)
    assert DrillState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    assert card.correct_letters == "A"


def test_every_possible_choice_has_a_letter() -> None:
    assert len(CHOICE_LETTERS) == MAX_CHOICES
    views = choice_views([{"text": str(i)} for i in range(MAX_CHOICES)])
    assert [view.letter for view in views] == list(CHOICE_LETTERS)
