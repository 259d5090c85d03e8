"""A profile's settings: their defaults, their bounds and how a change is checked. Pure.

The store keeps one row of these per profile (store/models.py takes its column defaults from
here); the queue policy, the drill session and the countdown read them from here too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from kvdrill.engine.errors import UserError

DEFAULT_NEW_PER_DAY = 10
DEFAULT_REVIEWS_PER_DAY = 200
DEFAULT_ROLLOVER_HOUR = 4  # a study day starts at 04:00 local time
DEFAULT_ANSWER_SECONDS = 60


@dataclass(frozen=True)
class ProfileSettings:
    new_per_day: int = DEFAULT_NEW_PER_DAY
    reviews_per_day: int = DEFAULT_REVIEWS_PER_DAY
    rollover_hour: int = DEFAULT_ROLLOVER_HOUR
    answer_seconds: int = DEFAULT_ANSWER_SECONDS

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_row(cls, row: object) -> ProfileSettings:
        """The settings of a stored profile (anything with these attributes)."""
        return cls(**{field.name: getattr(row, field.name) for field in fields(cls)})


# Inclusive bounds of each setting, and what it means, for a one-line error.
SETTING_BOUNDS: dict[str, tuple[int, int, str]] = {
    "new_per_day": (0, 1000, "new cards per day"),
    "reviews_per_day": (0, 100_000, "reviews per day"),
    "rollover_hour": (0, 23, "the hour a study day starts"),
    "answer_seconds": (5, 3600, "seconds to answer"),
}


def check_setting_changes(changes: dict[str, object]) -> dict[str, int]:
    """``changes`` when every name is a setting and every value in its bounds; else a UserError
    naming the first wrong one (so a caller changes all or nothing)."""
    for name, value in changes.items():
        if name not in SETTING_BOUNDS:
            known = ", ".join(SETTING_BOUNDS)
            raise UserError(f"there is no profile setting '{name}' (settings: {known})")
        low, high, meaning = SETTING_BOUNDS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise UserError(f"{name} ({meaning}) must be a whole number from {low} to {high}")
    return dict(changes)  # type: ignore[arg-type]
