"""A card's schedule for one profile: the one shape it has from the rules to the store. Pure.

The store keeps it as a ``card_states`` row and, in the review log, as the JSON of the state
before an answer (``to_dict``), so undo puts back exactly what was there (``from_dict``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date, datetime
from fractions import Fraction
from typing import Any, TypedDict, cast

NEW_CARD_EASINESS_MILLI = 2500


class ScheduleJson(TypedDict):
    """``Schedule.to_dict``: a schedule as the review log keeps it (``prev_state``)."""

    repetitions: int
    easiness_milli: int
    interval_days: int
    due_day: str | None
    lapses: int
    reviews: int
    last_review_at: str | None
    suspended: bool
    buried_until: str | None
    leech: bool
    fsrs: dict[str, Any] | None


@dataclass(frozen=True)
class Schedule:
    """Repetitions in a row, easiness in thousandths, interval in days, and the card's status."""

    repetitions: int = 0
    easiness_milli: int = NEW_CARD_EASINESS_MILLI
    interval_days: int = 0
    due_day: date | None = None
    lapses: int = 0
    reviews: int = 0
    last_review_at: datetime | None = None
    suspended: bool = False
    buried_until: date | None = None
    leech: bool = False
    # The FSRS memory state (engine/study/fsrs_memory.py) while the profile schedules with FSRS;
    # None under SM-2. Plain JSON values, stored as they are.
    fsrs: dict[str, Any] | None = None

    @property
    def easiness(self) -> Fraction:
        """The easiness factor as an exact fraction (2500 thousandths is 5/2)."""
        return Fraction(self.easiness_milli, 1000)

    @property
    def is_new(self) -> bool:
        """Never answered yet."""
        return not self.reviews

    def columns(self) -> dict[str, Any]:
        """Field name -> value, as the store's columns take them."""
        # Every field is a plain value: no deep copy (``asdict``) needed on the answer path.
        return {name: getattr(self, name) for name in _FIELDS}

    def to_dict(self) -> ScheduleJson:
        """Plain JSON values (dates as ISO text), in field order."""
        # Every answer logs one (the state it replaced): a copy of the fields, then the dates.
        values = dict(vars(self))
        for name in _DATED:
            if values[name] is not None:
                values[name] = values[name].isoformat()
        return cast(ScheduleJson, values)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Schedule:
        """The inverse of ``to_dict``; dates may also come as date objects."""
        return cls(
            repetitions=data["repetitions"],
            easiness_milli=data["easiness_milli"],
            interval_days=data["interval_days"],
            due_day=_day(data["due_day"]),
            lapses=data["lapses"],
            reviews=data["reviews"],
            last_review_at=_moment(data["last_review_at"]),
            suspended=bool(data["suspended"]),
            buried_until=_day(data["buried_until"]),
            leech=bool(data["leech"]),
            fsrs=data.get("fsrs"),  # log rows written before FSRS have none
        )

    @classmethod
    def from_row(cls, row: Any) -> Schedule | None:
        """The schedule in a stored row (anything with these attributes); None for no row."""
        if row is None:
            return None
        return cls(**{name: getattr(row, name) for name in _FIELDS})


_FIELDS = tuple(field.name for field in fields(Schedule))
_DATED = ("due_day", "last_review_at", "buried_until")  # ISO text in ``to_dict``


def _day(value: date | str | None) -> date | None:
    return date.fromisoformat(value) if isinstance(value, str) and value else value or None


def _moment(value: datetime | str | None) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) and value else value or None
