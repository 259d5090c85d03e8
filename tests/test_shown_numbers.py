"""Numbers shown for reading: English 1,234.5, Vietnamese 1.234,5 (CLDR's conventions)."""

from __future__ import annotations

import pytest

from kvdrill.app import shown_numbers

pytestmark = pytest.mark.unit


def test_english_groups_with_commas_and_marks_decimals_with_a_point() -> None:
    assert shown_numbers.count(1234567) == "1,234,567"
    assert shown_numbers.decimal(1234.5, 1) == "1,234.5"
    assert shown_numbers.decimal(0.456) == "0.46"
    assert shown_numbers.percent(0.456) == "46%"
    assert shown_numbers.percent(0.0356, 1) == "3.6%"


def test_vietnamese_groups_with_points_and_marks_decimals_with_a_comma(vietnamese) -> None:
    assert shown_numbers.count(1234567) == "1.234.567"
    assert shown_numbers.decimal(1234.5, 1) == "1.234,5"
    assert shown_numbers.decimal(0.456) == "0,46"
    assert shown_numbers.decimal(12, 0) == "12"
    assert shown_numbers.percent(0.456) == "46%"
    assert shown_numbers.percent(0.0356, 1) == "3,6%"


def test_english_is_babels_english_too() -> None:
    """The English path is Python's format for speed: it must read as CLDR's English does."""
    from babel.numbers import format_decimal, format_percent

    for value in (0, 7, 999.5, 1234.5678, 0.125, 98765432.1):
        assert shown_numbers.decimal(value, 2) == format_decimal(value, "#,##0.00", locale="en")
        assert shown_numbers.count(round(value)) == format_decimal(round(value), locale="en")
        assert shown_numbers.percent(value / 1000) == format_percent(value / 1000, locale="en")
