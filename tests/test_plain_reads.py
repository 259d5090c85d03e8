"""store/plain_reads.py: the reads without the ORM give what the ORM's store gives."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from kvdrill.store.db import open_database, session_sql
from kvdrill.store.plain_reads import settings_of
from kvdrill.store.profiles import get_or_create_profile, profile_settings, set_settings


@pytest.mark.store
def test_a_profiles_settings_read_without_the_orm_are_every_setting_it_stored(
    tmp_path: Path,
) -> None:
    database = open_database(f"sqlite:///{tmp_path / 'kvdrill.db'}")
    try:
        with database.session() as session:
            profile = get_or_create_profile(session, "ana", datetime(2026, 3, 10, 9))
            # Every setting with a column of its own, and one kept in the options.
            set_settings(
                profile,
                {
                    "new_per_day": 7,
                    "reviews_per_day": 70,
                    "rollover_hour": 5,
                    "answer_seconds": 90,
                    "theme": "light",
                    "language": "vi",
                },
            )
        with database.session() as session:
            stored = profile_settings(get_or_create_profile(session, "ana", datetime(2026, 3, 10)))
            read = settings_of(session_sql(session), "ana")
    finally:
        database.close()
    assert read == stored
    assert (read.theme, read.rollover_hour, read.language) == ("light", 5, "vi")
