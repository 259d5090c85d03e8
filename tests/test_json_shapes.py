"""The TypedDicts that type the JSON kvdrill writes are the shapes ``to_dict`` really returns.

mypy checks the dictionaries built field by field (``DrillState``, ``PackPlan``); the ones
copied from a dataclass (``CardView`` and ``ChoiceView`` by ``asdict``, ``Schedule`` by its
fields) are held to their TypedDict here, so a field added to one and not the other fails.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import date, datetime

import pytest

from kvdrill.engine.packs.card_view import (
    CardJson,
    CardView,
    ChoiceJson,
    ChoiceView,
    DrillState,
    DrillStateJson,
)
from kvdrill.engine.study.schedule import Schedule, ScheduleJson
from kvdrill.store.import_plan import PackChanges, PackPlan

CARD = CardView(
    card_id=1,
    key="k",
    kind="choice",
    pack_key="p",
    pack_title="P",
    title="T",
    prompt="Q?",
    choices=[ChoiceView("A", "yes", True, "B")],
)


@pytest.mark.parametrize(
    ("shape", "record"),
    [(CardJson, CardView), (ChoiceJson, ChoiceView), (ScheduleJson, Schedule)],
)
def test_each_copied_shape_names_every_field_of_its_record(shape: type, record: type) -> None:
    assert list(shape.__annotations__) == [item.name for item in fields(record)]


def test_to_dict_returns_exactly_the_keys_of_its_shape() -> None:
    state = DrillState(CARD, remaining=3, done=1, answer_seconds=60)
    data = state.to_dict()
    assert set(data) == set(DrillStateJson.__annotations__)
    assert data["card"] is not None and set(data["card"]) == set(CardJson.__annotations__)
    assert set(data["card"]["choices"][0]) == set(ChoiceJson.__annotations__)
    assert DrillState.from_dict(data) == state
    schedule = Schedule(due_day=date(2026, 12, 1), last_review_at=datetime(2026, 11, 30, 9))
    assert set(schedule.to_dict()) == set(ScheduleJson.__annotations__)
    assert schedule.to_dict()["due_day"] == "2026-12-01"
    plan = PackPlan(pack_key="p", path="p.md", added=["a"], titles={"a": "A"})
    assert set(plan.to_dict()) == set(PackChanges.__annotations__)
