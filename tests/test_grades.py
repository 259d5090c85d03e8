"""One grade scheme for both modes: 1-4 labelled, g then 0-5 exact."""

from __future__ import annotations

import pytest

from kvdrill.engine.study.grades import (
    LABELLED_GRADES,
    grade_keys_help,
    parse_grade,
)
from kvdrill.engine.study.sm2 import SESSION_REPEAT_BELOW


def test_keys_one_to_four_are_again_hard_good_easy() -> None:
    assert [parse_grade(k) for k in "1234"] == [1, 3, 4, 5]
    assert [parse_grade(w) for w in ("again", "Hard", " good ", "EASY")] == [1, 3, 4, 5]


def test_exact_qualities_sit_behind_the_g_prefix() -> None:
    assert [parse_grade(f"g{q}") for q in range(6)] == [0, 1, 2, 3, 4, 5]
    assert parse_grade("G 3") == 3


@pytest.mark.parametrize("typed", ["0", "5", "6", "g6", "g", "gg", "great", "", "12"])
def test_anything_else_is_no_grade(typed: str) -> None:
    assert parse_grade(typed) is None


def test_the_help_line_names_every_key_and_the_prefix() -> None:
    for key, (label, _) in LABELLED_GRADES.items():
        assert f"{key} {label}" in grade_keys_help()
    assert "g then 0-5" in grade_keys_help()


def test_the_note_on_hard_is_true_of_the_queue() -> None:
    """The drill flow's note at the first reveal, in the TUI and plain mode alike."""
    from kvdrill.app.services.drill_flow import HARD_COMES_BACK

    for key, (label, quality) in LABELLED_GRADES.items():
        assert f"{key} {label}" in HARD_COMES_BACK
        comes_back = HARD_COMES_BACK.index(f"{key} {label}") < HARD_COMES_BACK.index("back later")
        assert comes_back == (quality < SESSION_REPEAT_BELOW)
