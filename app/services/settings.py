"""A profile's settings (theme and pack language included): read, and changed all at once or
not at all."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kvdrill.engine.study.settings import (
    PackSettings,
    ProfileSettings,
    check_setting_changes,
    parse_pack_setting,
    parse_setting,
)

if TYPE_CHECKING:
    from kvdrill.store.db import Database
    from kvdrill.store.models import Profile
    from kvdrill.store.sql import Sql


def load_settings(database: Database, profile_name: str, now: datetime) -> ProfileSettings:
    from kvdrill.store.profiles import profile_for_reading, profile_settings

    with database.session() as session:
        return profile_settings(profile_for_reading(session, profile_name, now))


def change_settings(
    database: Database, profile_name: str, now: datetime, **changes: Any
) -> ProfileSettings:
    """Change some settings by name; an unknown name or a value not allowed is a UserError
    (engine/study/settings.py) and then nothing changes.

    A new scheduler (or, under FSRS, a new desired retention) rebuilds every card schedule
    from the review log in the same transaction."""
    from kvdrill.store.db import begin_write
    from kvdrill.store.profiles import get_or_create_profile

    checked = check_setting_changes(changes)
    with database.session() as session:
        begin_write(session)
        return store_settings(session, get_or_create_profile(session, profile_name, now), checked)


def store_settings(session: Any, profile: Profile, checked: dict[str, Any]) -> ProfileSettings:
    """Store already-checked changes on ``profile`` in the caller's write transaction,
    replaying every card schedule when they move it (a scheduler switch, or under FSRS new
    weights or a new desired retention)."""
    from kvdrill.store.profiles import profile_settings, set_settings
    from kvdrill.store.scheduler_switch import replay_profile

    before = profile_settings(profile)
    after = set_settings(profile, checked)
    if _schedules_change(before, after):
        replay_profile(
            session,
            profile.id,
            after.rollover_hour,
            after.scheduler,
            after.desired_retention,
            after.fsrs_parameters,
        )
    return after


def _schedules_change(before: ProfileSettings, after: ProfileSettings) -> bool:
    """Whether going from ``before`` to ``after`` moves the card schedules (a replay)."""
    return before.scheduler != after.scheduler or (
        after.scheduler == "fsrs"
        and (before.desired_retention, before.fsrs_parameters)
        != (after.desired_retention, after.fsrs_parameters)
    )


def change_setting_text(
    database: Database, profile_name: str, now: datetime, name: str, text: str
) -> ProfileSettings:
    """Change one setting to the value typed as ``text`` (the CLI and the settings screen)."""
    return change_settings(database, profile_name, now, **{name: parse_setting(name, text)})


def load_pack_settings(
    database: Database, profile_name: str, now: datetime
) -> dict[str, PackSettings]:
    """The packs with a setting of their own for the profile, by pack key."""
    from kvdrill.store.pack_settings import pack_settings_by_key
    from kvdrill.store.profiles import profile_for_reading

    with database.session() as session:
        return pack_settings_by_key(session, profile_for_reading(session, profile_name, now).id)


def change_pack_setting_text(
    database: Database, profile_name: str, now: datetime, pack: str, name: str, text: str
) -> tuple[str, PackSettings]:
    """Set pack ``pack``'s own setting ``name`` to the value typed as ``text`` (``default``:
    the profile's rule again); the key of the pack studied (an edition's original) and its
    settings. An unknown pack, name or value is a UserError and nothing changes."""
    from kvdrill.store.db import begin_write
    from kvdrill.store.pack_settings import set_pack_settings, studied_pack
    from kvdrill.store.profiles import get_or_create_profile

    value = parse_pack_setting(name, text)
    with database.session() as session:
        begin_write(session)
        studied = studied_pack(session, pack)
        profile = get_or_create_profile(session, profile_name, now)
        return studied.key, set_pack_settings(session, profile.id, studied, {name: value})


def saved_theme(
    read: Callable[[Callable[[Sql], ProfileSettings]], ProfileSettings], profile_name: str
) -> str:
    """The profile's theme, ``"light"`` or ``"dark"``, read by ``read`` (``Services.read``: a
    SQLite file through ``sqlite3`` alone)."""
    from kvdrill.store.plain_reads import settings_of

    return read(lambda sql: settings_of(sql, profile_name)).theme


def save_theme(database: Database, profile_name: str, now: datetime, theme: str) -> None:
    """Keep ``theme`` (``"light"`` or ``"dark"``) on the profile for the next start."""
    change_settings(database, profile_name, now, theme=theme)
