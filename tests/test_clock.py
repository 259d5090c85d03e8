"""Study days roll over at a local hour; KVDRILL_NOW sets the clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from kvdrill.app.services import environment
from kvdrill.engine.errors import UserError
from kvdrill.engine.study.clock import study_day


def now_with(value: str | None) -> datetime:
    """``environment.now()`` with KVDRILL_NOW set to ``value`` (None: unset)."""
    with pytest.MonkeyPatch.context() as patch:
        if value is None:
            patch.delenv("KVDRILL_NOW", raising=False)
        else:
            patch.setenv("KVDRILL_NOW", value)
        return environment.now()


def test_the_study_day_changes_at_the_rollover_hour_not_at_midnight() -> None:
    assert study_day(datetime(2026, 3, 10, 23, 59)) == date(2026, 3, 10)
    assert study_day(datetime(2026, 3, 11, 3, 59)) == date(2026, 3, 10)
    assert study_day(datetime(2026, 3, 11, 4, 0)) == date(2026, 3, 11)


def test_the_rollover_hour_is_configurable() -> None:
    assert study_day(datetime(2026, 3, 11, 0, 30), rollover_hour=0) == date(2026, 3, 11)
    assert study_day(datetime(2026, 3, 11, 6, 30), rollover_hour=7) == date(2026, 3, 10)


def test_kvdrill_now_sets_the_clock() -> None:
    assert now_with("2026-03-10T09:30") == datetime(2026, 3, 10, 9, 30)
    assert now_with("2026-03-10") == datetime(2026, 3, 10, 0, 0)


def test_an_aware_timestamp_becomes_local_time() -> None:
    moment = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
    expected = moment.astimezone().replace(tzinfo=None)
    assert now_with("2026-03-10T09:30+00:00") == expected


def test_without_kvdrill_now_the_clock_is_the_wall_clock() -> None:
    assert abs(now_with(None) - datetime.now()) < timedelta(seconds=5)
    assert abs(now_with("  ") - datetime.now()) < timedelta(seconds=5)


def test_a_bad_kvdrill_now_is_a_one_line_user_error() -> None:
    with pytest.raises(UserError, match="KVDRILL_NOW must be an ISO timestamp"):
        now_with("tomorrow")


@pytest.mark.parametrize(
    "text", ["9999-12-31T23:59:59", "0001-01-01T00:00", "0001-01-01T00:00+14:00", "1969-12-31"]
)
def test_a_kvdrill_now_at_the_ends_of_the_calendar_is_a_user_error(text: str) -> None:
    with pytest.raises(UserError, match="between the years 1970 and 9000"):
        now_with(text)


def test_the_first_and_last_allowed_years_set_the_clock() -> None:
    assert now_with("1970-01-01") == datetime(1970, 1, 1)
    assert now_with("9000-12-31T23:59") == datetime(9000, 12, 31, 23, 59)
