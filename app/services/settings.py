"""A profile's settings (theme and pack language included): read, and changed all at once or
not at all."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from kvdrill.engine.study.settings import (
    ProfileSettings,
    check_setting_changes,
    parse_setting,
)

if TYPE_CHECKING:
    from kvdrill.store.db import Database


def load_settings(database: Database, profile_name: str, now: datetime) -> ProfileSettings:
    from kvdrill.store.profiles import get_or_create_profile, profile_settings

    with database.session() as session:
        return profile_settings(get_or_create_profile(session, profile_name, now))


def change_settings(
    database: Database, profile_name: str, now: datetime, **changes: Any
) -> ProfileSettings:
    """Change some settings by name; an unknown name or a value not allowed is a UserError
    (engine/study/settings.py) and then nothing changes."""
    from kvdrill.store.db import begin_write
    from kvdrill.store.profiles import get_or_create_profile, set_settings

    checked = check_setting_changes(changes)
    with database.session() as session:
        begin_write(session)
        return set_settings(get_or_create_profile(session, profile_name, now), checked)


def change_setting_text(
    database: Database, profile_name: str, now: datetime, name: str, text: str
) -> ProfileSettings:
    """Change one setting to the value typed as ``text`` (the CLI and the settings screen)."""
    return change_settings(database, profile_name, now, **{name: parse_setting(name, text)})


def saved_theme(database: Database, profile_name: str, now: datetime) -> str:
    """The profile's theme, ``"light"`` or ``"dark"``."""
    return load_settings(database, profile_name, now).theme


def save_theme(database: Database, profile_name: str, now: datetime, theme: str) -> None:
    """Keep ``theme`` (``"light"`` or ``"dark"``) on the profile for the next start."""
    change_settings(database, profile_name, now, theme=theme)
