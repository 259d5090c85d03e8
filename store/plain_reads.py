"""Small reads through an ``Sql`` alone (store/sql.py), for use cases that need no ORM session:
whether any pack is stored yet, and a profile's settings by its name. Importing this loads
neither SQLAlchemy's ORM nor the models."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kvdrill.engine.capacity.units import shorten
from kvdrill.engine.errors import UserError
from kvdrill.engine.study.settings import ProfileSettings
from kvdrill.store.queries_sql import PROFILE_SQL, stored_settings

if TYPE_CHECKING:
    from kvdrill.store.sql import Sql

HAS_PACKS_SQL = "SELECT 1 FROM packs LIMIT 1"
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def check_profile_name(name: str) -> str:
    if not PROFILE_NAME.fullmatch(name):
        raise UserError(
            f"{shorten(name, 70)!r} is not a usable profile name: "
            "use up to 64 letters, digits, '.', '_' or '-'"
        )
    return name


def has_packs(sql: Sql) -> bool:
    return sql.first(HAS_PACKS_SQL) is not None


def settings_of(sql: Sql, profile_name: str) -> ProfileSettings:
    """The settings of the profile ``profile_name``; the defaults when it is not stored (a
    command that only reads never creates a learner)."""
    row = sql.first_named(PROFILE_SQL, {"name": check_profile_name(profile_name)})
    return stored_settings(row) if row is not None else ProfileSettings()
