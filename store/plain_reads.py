"""Small reads through an ``Sql`` alone (store/sql.py), for use cases that need no ORM session:
whether any pack is stored yet, a profile's settings by its name, the problem templates.
Importing this loads neither SQLAlchemy nor the models: ``read_sqlite_file`` runs a read on a
SQLite file with ``sqlite3`` alone, as ``kvdrill stats`` does (store/fast_stats.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kvdrill.engine.capacity.units import shorten
from kvdrill.engine.errors import UserError
from kvdrill.engine.study.settings import COURSE_LANGUAGE, ProfileSettings
from kvdrill.i18n import _
from kvdrill.store.queries_sql import (
    PROFILE_SQL,
    problem_templates_statement,
    stored_json,
    stored_settings,
)
from kvdrill.store.sqlite_file import read_current

if TYPE_CHECKING:
    from kvdrill.store.sql import Sql

T = TypeVar("T")

HAS_PACKS_SQL = "SELECT 1 FROM packs LIMIT 1"
UNSTORED_PROFILE_ID = 0  # stored ids start at 1
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def check_profile_name(name: str) -> str:
    if not PROFILE_NAME.fullmatch(name):
        raise UserError(
            _(
                "{name} is not a usable profile name: use up to 64 letters, digits, '.', '_' or '-'"
            ).format(name=repr(shorten(name, 70)))
        )
    return name


def has_packs(sql: Sql) -> bool:
    return sql.first(HAS_PACKS_SQL) is not None


def settings_of(sql: Sql, profile_name: str) -> ProfileSettings:
    """The settings of the profile ``profile_name``; the defaults when it is not stored (a
    command that only reads never creates a learner)."""
    return profile_of(sql, profile_name)[1]


def profile_of(sql: Sql, profile_name: str) -> tuple[int, ProfileSettings]:
    """The id and settings of the profile ``profile_name``; ``UNSTORED_PROFILE_ID`` (no row
    has it) and the defaults when it is not stored."""
    row = sql.first_named(PROFILE_SQL, {"name": check_profile_name(profile_name)})
    if row is None:
        return UNSTORED_PROFILE_ID, ProfileSettings()
    return row["id"], stored_settings(row)


def problem_templates(
    sql: Sql, lang: str = COURSE_LANGUAGE, offered_only: bool = True
) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Every live problem card (of the packs offered in ``lang`` unless not ``offered_only``)
    as (pack key, card key, title, template), its text in ``lang`` where an edition has it, in
    pack order."""
    statement, params = problem_templates_statement(lang, offered_only)
    return [
        (pack, key, title, stored_json(problem) or {})
        for pack, key, title, problem in sql.rows(statement, params)
    ]


def read_sqlite_file(database_url: str, action: Callable[[Sql], T]) -> T | None:
    """``action`` on the SQLite file of ``database_url`` (store/sqlite_file.py
    ``read_current``: opened read-only and quick-checked as the store opens it); None when the
    store must open it instead, and when no pack is stored yet (the bundled decks go in
    first)."""
    return read_current(database_url, lambda sql: action(sql) if has_packs(sql) else None)
