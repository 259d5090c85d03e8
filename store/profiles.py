"""Learner profiles and their stored settings.

What the settings mean, their defaults and their bounds live in engine/study/settings.py; the
settings service (app/services/settings.py) checks a change before it reaches ``set_settings``.
A setting with a column of its own on ``profiles`` is kept there; every other one in the row's
``options`` JSON, so adding a setting needs no migration.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from kvdrill.engine.study.settings import ProfileSettings
from kvdrill.store.models import Profile
from kvdrill.store.plain_reads import UNSTORED_PROFILE_ID, check_profile_name
from kvdrill.store.queries_sql import stored_settings

DEFAULT_PROFILE = "default"


def get_profile(session: Session, name: str) -> Profile | None:
    return session.scalars(select(Profile).where(Profile.name == name)).one_or_none()


def profile_for_reading(session: Session, name: str, now: datetime) -> Profile:
    """The profile called ``name``, or one not yet stored, with default settings and an id no
    row has, when there is none: a command that only reads never creates a learner."""
    check_profile_name(name)
    profile = get_profile(session, name)
    if profile is not None:
        return profile
    return Profile(
        id=UNSTORED_PROFILE_ID,
        name=name,
        created_at=now.replace(microsecond=0),
        **_stored_values(ProfileSettings().to_dict(), {}),
    )


def get_or_create_profile(session: Session, name: str, now: datetime) -> Profile:
    """The profile called ``name``, created at ``now`` with default settings if it is new."""
    check_profile_name(name)
    profile = get_profile(session, name)
    if profile is not None:
        return profile
    values = {
        "name": name,
        "created_at": now.replace(microsecond=0),
        **_stored_values(ProfileSettings().to_dict(), {}),
    }
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        # Another process may create the same profile at the same moment: let its row win.
        insert = importlib.import_module(f"sqlalchemy.dialects.{dialect}").insert
        session.execute(insert(Profile).values(**values).on_conflict_do_nothing())
        return session.scalars(select(Profile).where(Profile.name == name)).one()
    profile = Profile(**values)
    session.add(profile)
    session.flush()
    return profile


def _has_column(name: str) -> bool:
    return name != "options" and name in Profile.__table__.columns


def profile_settings(profile: Profile) -> ProfileSettings:
    columns = Profile.__table__.columns.keys()
    return stored_settings({name: getattr(profile, name) for name in columns})


def _stored_values(changes: Mapping[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The column values of ``changes``, with the rest merged into ``options``."""
    columns = {name: value for name, value in changes.items() if _has_column(name)}
    rest = {name: value for name, value in changes.items() if not _has_column(name)}
    return {**columns, "options": {**options, **rest}}


def set_settings(profile: Profile, changes: dict[str, Any]) -> ProfileSettings:
    """Store already-checked setting changes on ``profile``; the caller's session commits."""
    for name, value in _stored_values(changes, dict(profile.options or {})).items():
        setattr(profile, name, value)
    return profile_settings(profile)
