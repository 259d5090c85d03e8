"""Study days, and reading a timestamp that sets the clock. Pure: the caller supplies the time.

A study day starts at a local hour (04:00 by default), so a session at 01:30 still counts for the
evening before. Due dates are whole study days. All datetimes here are naive local time.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from kvdrill.engine.errors import UserError
from kvdrill.engine.study.settings import DEFAULT_ROLLOVER_HOUR

# Day arithmetic (rollover, intervals, stats windows) runs off either end of the calendar near
# years 1 and 9999, so the clock is held to years no learner will study in anyway.
EARLIEST_YEAR = 1970
LATEST_YEAR = 9000


def study_day(moment: datetime, rollover_hour: int = DEFAULT_ROLLOVER_HOUR) -> date:
    """The study day ``moment`` belongs to: the calendar day, minus one before the rollover."""
    # An answer asks three times: the rollover's timedelta made once (making one costs more
    # than the subtraction).
    if type(rollover_hour) is int and 0 <= rollover_hour < len(_ROLLOVERS):
        return (moment - _ROLLOVERS[rollover_hour]).date()
    return (moment - timedelta(hours=rollover_hour)).date()


_ROLLOVERS = tuple(timedelta(hours=hour) for hour in range(24))


def parse_now(text: str, source: str) -> datetime:
    """An ISO timestamp as naive local time; an aware one is converted to local time."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(
            f"{source} must be an ISO timestamp such as 2026-03-01T09:30, got {text!r}"
        ) from None
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
        raise UserError(
            f"{source} must be a time between the years {EARLIEST_YEAR} and "
            f"{LATEST_YEAR}, got {text.strip()!r}"
        )
    if moment.tzinfo is not None:
        moment = moment.astimezone().replace(tzinfo=None)
    return moment
