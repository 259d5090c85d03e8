"""A profile's settings of each pack's own: read by pack key, and stored.

What they mean and how a value is checked: engine/study/settings.py ``PackSettings``. The queue
reads them by pack id with the day's counts (store/queries_sql.py ``read_day_counts``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from kvdrill.engine.study.settings import PackSettings, pack_setting_names
from kvdrill.store.day_queue import check_filters
from kvdrill.store.models import Pack, PackSetting


def studied_pack(session: Session, key: str) -> Pack:
    """The pack whose cards are studied under ``key``: the pack, or the original of an edition
    (an edition's cards are its original's); a UserError names the packs when none is."""
    check_filters(session, key, None)
    pack = session.scalars(select(Pack).where(Pack.key == key)).one()
    if pack.edition_of is not None:
        original = session.scalars(select(Pack).where(Pack.key == pack.edition_of)).one_or_none()
        if original is not None:
            return original
    return pack


def pack_settings_by_key(session: Session, profile_id: int) -> dict[str, PackSettings]:
    """The packs with a setting of their own for the profile, by pack key, in key order."""
    rows = session.execute(
        select(Pack.key, PackSetting)
        .join(PackSetting, PackSetting.pack_id == Pack.id)
        .where(PackSetting.profile_id == profile_id)
        .order_by(Pack.key)
    )
    return {key: _settings(row) for key, row in rows}


def set_pack_settings(
    session: Session, profile_id: int, pack: Pack, changes: dict[str, Any]
) -> PackSettings:
    """Store already-checked changes (None: no setting of the pack's own) for ``pack``; a row
    left with no setting goes. The caller's session commits."""
    row = session.get(PackSetting, (profile_id, pack.id))
    if row is None:
        row = PackSetting(profile_id=profile_id, pack_id=pack.id)
        session.add(row)
    for name, value in changes.items():
        setattr(row, name, value)
    settings = _settings(row)
    if settings == PackSettings():
        if row in session.new:
            session.expunge(row)
        else:
            session.delete(row)
    session.flush()
    return settings


def _settings(row: PackSetting) -> PackSettings:
    return PackSettings.from_values({name: getattr(row, name) for name in pack_setting_names()})
