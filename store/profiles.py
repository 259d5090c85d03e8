"""Learner profiles and their settings (daily limits, rollover hour, answer time)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, fields

from sqlalchemy import select
from sqlalchemy.orm import Session

from kvdrill.engine.capacity.units import shorten
from kvdrill.engine.errors import UserError
from kvdrill.engine.study.clock import now_from
from kvdrill.store.models import Profile

DEFAULT_PROFILE = "default"
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class ProfileSettings:
    new_per_day: int = 10
    reviews_per_day: int = 200
    rollover_hour: int = 4
    answer_seconds: int = 60


# Inclusive bounds of each setting, and what it means, for a one-line error.
SETTING_BOUNDS: dict[str, tuple[int, int, str]] = {
    "new_per_day": (0, 1000, "new cards per day"),
    "reviews_per_day": (0, 100_000, "reviews per day"),
    "rollover_hour": (0, 23, "the hour a study day starts"),
    "answer_seconds": (5, 3600, "seconds to answer"),
}


def check_profile_name(name: str) -> str:
    if not PROFILE_NAME.fullmatch(name):
        raise UserError(
            f"{shorten(name, 70)!r} is not a usable profile name: "
            "use up to 64 letters, digits, '.', '_' or '-'"
        )
    return name


def get_profile(session: Session, name: str) -> Profile | None:
    return session.scalars(select(Profile).where(Profile.name == name)).one_or_none()


def get_or_create_profile(session: Session, name: str = DEFAULT_PROFILE) -> Profile:
    """The profile called ``name``, created with default settings if it does not exist yet."""
    check_profile_name(name)
    profile = get_profile(session, name)
    if profile is not None:
        return profile
    defaults = ProfileSettings()
    values = {
        "name": name,
        "created_at": now_from(os.environ).replace(microsecond=0),
        **{field.name: getattr(defaults, field.name) for field in fields(defaults)},
    }
    if session.get_bind().dialect.name == "sqlite":
        # Another process may create the same profile at the same moment: let its row win.
        from sqlalchemy.dialects.sqlite import insert

        session.execute(insert(Profile).values(**values).on_conflict_do_nothing())
        return session.scalars(select(Profile).where(Profile.name == name)).one()
    profile = Profile(**values)
    session.add(profile)
    session.flush()
    return profile


def profile_settings(profile: Profile) -> ProfileSettings:
    return ProfileSettings(
        new_per_day=profile.new_per_day,
        reviews_per_day=profile.reviews_per_day,
        rollover_hour=profile.rollover_hour,
        answer_seconds=profile.answer_seconds,
    )


def update_profile_settings(profile: Profile, **changes: int) -> ProfileSettings:
    """Change some settings (by name); an unknown name or a value out of range is a UserError.

    Nothing is changed unless every value is valid. The caller's session commits.
    """
    for name, value in changes.items():
        if name not in SETTING_BOUNDS:
            known = ", ".join(SETTING_BOUNDS)
            raise UserError(f"there is no profile setting '{name}' (settings: {known})")
        low, high, meaning = SETTING_BOUNDS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise UserError(f"{name} ({meaning}) must be a whole number from {low} to {high}")
    for name, value in changes.items():
        setattr(profile, name, value)
    return profile_settings(profile)
