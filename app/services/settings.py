"""A profile's settings and theme: read, and changed all at once or not at all."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from kvdrill.engine.study.settings import ProfileSettings, check_setting_changes

if TYPE_CHECKING:
    from kvdrill.store.db import Database

THEMES = ("dark", "light")


def load_settings(database: Database, profile_name: str, now: datetime) -> ProfileSettings:
    from kvdrill.store.profiles import get_or_create_profile, profile_settings

    with database.session() as session:
        return profile_settings(get_or_create_profile(session, profile_name, now))


def change_settings(
    database: Database, profile_name: str, now: datetime, **changes: int
) -> ProfileSettings:
    """Change some settings by name; an unknown name or a value out of bounds is a UserError
    (engine/study/settings.py) and then nothing changes."""
    from kvdrill.store.db import begin_write
    from kvdrill.store.profiles import get_or_create_profile, set_settings

    checked = check_setting_changes(changes)
    with database.session() as session:
        begin_write(session)
        return set_settings(get_or_create_profile(session, profile_name, now), checked)


def saved_theme(database: Database, profile_name: str, now: datetime) -> str:
    """The profile's theme, ``"light"`` or ``"dark"``."""
    from kvdrill.store.profiles import get_or_create_profile

    with database.session() as session:
        return get_or_create_profile(session, profile_name, now).theme


def save_theme(database: Database, profile_name: str, now: datetime, theme: str) -> None:
    """Keep ``theme`` (``"light"`` or ``"dark"``) on the profile for the next start."""
    from kvdrill.store.db import begin_write
    from kvdrill.store.profiles import get_or_create_profile

    if theme not in THEMES:
        raise ValueError(f"a theme is one of {THEMES}, got {theme!r}")
    with database.session() as session:
        begin_write(session)
        get_or_create_profile(session, profile_name, now).theme = theme
