"""SM-2 pinned on sequences computed by hand (integer thousandths, ceil written out)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.sm2 import review


def run(grades: list[int], state: Schedule | None = None) -> list[tuple[int, int, int]]:
    state = state or Schedule()
    seen = []
    for quality in grades:
        state = review(state, quality)
        seen.append((state.repetitions, state.easiness_milli, state.interval_days))
    return seen


def test_a_new_card_is_zero_repetitions_easiness_two_and_a_half_no_interval() -> None:
    assert Schedule() == Schedule(0, 2500, 0)
    assert Schedule().easiness == Fraction(5, 2)


def test_all_fours_keep_easiness_and_multiply_by_two_and_a_half() -> None:
    # 6 * 2.5 = 15; 15 * 2.5 = 37.5 -> 38; 38 * 2.5 = 95; 95 * 2.5 = 237.5 -> 238
    assert run([4] * 6) == [
        (1, 2500, 1),
        (2, 2500, 6),
        (3, 2500, 15),
        (4, 2500, 38),
        (5, 2500, 95),
        (6, 2500, 238),
    ]


def test_all_fives_raise_easiness_and_use_the_updated_value() -> None:
    # EF 2.6, 2.7, 2.8, ...; 6 * 2.8 = 16.8 -> 17; 17 * 2.9 = 49.3 -> 50; 50 * 3.0 = 150
    assert run([5] * 5) == [
        (1, 2600, 1),
        (2, 2700, 6),
        (3, 2800, 17),
        (4, 2900, 50),
        (5, 3000, 150),
    ]


def test_all_threes_lower_easiness_by_0_14_down_to_the_floor() -> None:
    # 6 * 2.08 = 12.48 -> 13; 13 * 1.94 = 25.22 -> 26; 26 * 1.80 = 46.8 -> 47;
    # 47 * 1.66 = 78.02 -> 79; 79 * 1.52 = 120.08 -> 121; 121 * 1.38 = 166.98 -> 167;
    # 1.38 - 0.14 = 1.24 is floored to 1.3: 167 * 1.3 = 217.1 -> 218; 218 * 1.3 = 283.4 -> 284
    assert run([3] * 10) == [
        (1, 2360, 1),
        (2, 2220, 6),
        (3, 2080, 13),
        (4, 1940, 26),
        (5, 1800, 47),
        (6, 1660, 79),
        (7, 1520, 121),
        (8, 1380, 167),
        (9, 1300, 218),
        (10, 1300, 284),
    ]


def test_a_failure_restarts_repetitions_without_touching_easiness() -> None:
    # Three 4s reach 15 days; the 1 sends it back to 1 day, EF still 2.5;
    # then 1 day, 6 days, and a 5 raises EF to 2.6: 6 * 2.6 = 15.6 -> 16.
    assert run([4, 4, 4, 1, 4, 4, 5]) == [
        (1, 2500, 1),
        (2, 2500, 6),
        (3, 2500, 15),
        (0, 2500, 1),
        (1, 2500, 1),
        (2, 2500, 6),
        (3, 2600, 16),
    ]


@pytest.mark.parametrize("quality", [0, 1, 2])
def test_every_failing_grade_gives_one_day_and_keeps_easiness(quality: int) -> None:
    assert review(Schedule(7, 1870, 120), quality) == Schedule(0, 1870, 1)


def test_easiness_never_goes_below_1_3() -> None:
    # 1.40 - 0.14 = 1.26 -> 1.3; 100 * 1.3 = 130
    assert review(Schedule(5, 1400, 100), 3) == Schedule(6, 1300, 130)
    assert review(Schedule(5, 1300, 100), 3) == Schedule(6, 1300, 130)


def test_per_grade_easiness_changes_match_the_published_table() -> None:
    start = Schedule(3, 2000, 10)
    changes = {q: review(start, q).easiness_milli - 2000 for q in (3, 4, 5)}
    assert changes == {5: 100, 4: 0, 3: -140}


def test_a_long_run_stays_exact_where_floats_drift() -> None:
    # Integer products in thousandths: interval * EF, rounded up.
    # 50 * 3000 = 150000 -> 150 (floats give 150.00000000000003 -> 151)
    # 150 * 3100 = 465000 -> 465; 465 * 3200 = 1488000 -> 1488;
    # 1488 * 3300 = 4910400 -> 4911; 4911 * 3400 = 16697400 -> 16698;
    # 16698 * 3500 = 58443000 -> 58443; 58443 * 3600 = 210394800 -> 210395;
    # 210395 * 3700 = 778461500 -> 778462
    intervals = [interval for _, _, interval in run([5] * 12)]
    assert intervals == [1, 6, 17, 50, 150, 465, 1488, 4911, 16698, 58443, 210395, 778462]


def test_a_mixed_long_run_stays_exact() -> None:
    # 5,5,5,5,5 as above to (5, 3000, 150); 4: 150 * 3000 -> 450; 3: EF 2860, 450 * 2860
    # = 1287000 -> 1287; 5: 2960, 1287 * 2960 = 3809520 -> 3810; 5: 3060, 3810 * 3060 =
    # 11658600 -> 11659; 5: 3160, 11659 * 3160 = 36842440 -> 36843
    assert run([5, 5, 5, 5, 5, 4, 3, 5, 5, 5])[5:] == [
        (6, 3000, 450),
        (7, 2860, 1287),
        (8, 2960, 3810),
        (9, 3060, 11659),
        (10, 3160, 36843),
    ]


@pytest.mark.parametrize("bad", [-1, 6, 2.5, True])
def test_quality_outside_0_to_5_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        review(Schedule(), bad)  # type: ignore[arg-type]
