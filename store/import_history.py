"""What an import remembers: the files stored before, byte for byte (an unchanged file is
not parsed again), and the bundled decks last stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

from kvdrill.store.import_plan import PackPlan
from kvdrill.store.sql import Sql

BUNDLED_HASH_KEY = "bundled_decks_hash"
# How this importer stores cards: bump it when that changes, so files stored before are stored
# again (it is part of the bundled decks' hash and of each pack's stored file hash).
IMPORT_FORMAT = "kvdrill-import-1"
RETIRE_CARD_SQL = "UPDATE cards SET retired = :retired, retired_at = :retired_at WHERE id = :id"


def stored_file_hash(content_hash: str) -> str:
    """What ``packs.content_hash`` holds: the file's sha256 under this ``IMPORT_FORMAT``."""
    return hashlib.sha256(f"{IMPORT_FORMAT}:{content_hash}".encode()).hexdigest()


def stored_unchanged(sql: Sql, digests: dict[str, str]) -> dict[str, PackPlan]:
    """The learner's packs stored from these very files: path -> a plan with every live card
    unchanged. ``digests`` maps a file's path, as the importer stores it, to the sha256 of its
    bytes; a pack stored from another path, other bytes or another ``IMPORT_FORMAT`` is not
    one of them."""
    if not digests:
        return {}
    plans = {}
    for pack_id, key, source_path, content_hash in sql.rows(
        "SELECT id, key, source_path, content_hash FROM packs WHERE NOT bundled"
    ):
        if source_path in digests and stored_file_hash(digests[source_path]) == content_hash:
            plan = PackPlan(key, source_path)
            plan.unchanged = [
                card_key
                for (card_key,) in sql.rows(
                    "SELECT key FROM cards WHERE pack_id = :pack_id AND NOT retired "
                    "ORDER BY position",
                    {"pack_id": pack_id},
                )
            ]
            plans[source_path] = plan
    return plans


def mark_reimported(sql: Sql, plans: Iterable[PackPlan], now: datetime) -> None:
    """Give packs skipped as unchanged the import time a full re-import would have given."""
    at = sql.time(now.replace(microsecond=0))
    sql.many(
        "UPDATE packs SET imported_at = :at WHERE key = :key",
        [{"key": plan.pack_key, "at": at} for plan in plans],
    )


# --- bundled decks ----------------------------------------------------------------------------


def recorded_bundled_hash(sql: Sql) -> str | None:
    """The hash of the bundled decks last stored in this database (None: never)."""
    found = sql.rows("SELECT value FROM settings WHERE key = :key", {"key": BUNDLED_HASH_KEY})
    return found[0][0] if found else None


def record_bundled_hash(sql: Sql, digest: str) -> None:
    sql.run(
        "INSERT INTO settings (key, value) VALUES (:key, :value) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        {"key": BUNDLED_HASH_KEY, "value": digest},
    )


def retire_dropped_bundled(sql: Sql, keep: set[str], now: datetime) -> list[PackPlan]:
    """Retire the cards of bundled packs a release dropped (not in ``keep``), history kept."""
    at = sql.time(now.replace(microsecond=0))
    plans = []
    for pack_id, key, source_path in sql.rows(
        "SELECT id, key, source_path FROM packs WHERE bundled ORDER BY id"
    ):
        if key in keep:
            continue
        plan = PackPlan(pack_key=key, path=source_path)
        for card_id, card_key, title in sql.rows(
            "SELECT id, key, title FROM cards WHERE pack_id = :pack_id AND NOT retired ORDER BY id",
            {"pack_id": pack_id},
        ):
            plan.retired.append(card_key)
            plan.titles[card_key] = title
            sql.run(RETIRE_CARD_SQL, {"id": card_id, "retired": True, "retired_at": at})
        plans.append(plan)
    return plans
