"""``kvdrill doctor``: check a database in full and repair what can be repaired, like Anki's
"Check Database".

1. ``PRAGMA integrity_check``, every page. A damaged file is reported and left alone: writing
   repairs into it could spread the damage; the report names the newest backup to restore.
2. Rows pointing at nothing (``PRAGMA foreign_key_check``: a state, log row, note or topic of
   a card or profile that is gone). Removed.
3. Card states that disagree with their review log: a state whose review count or last review
   is not the log's, a log without a state. The log is the record of what was answered, so
   the state is rebuilt from it (``rebuild_state_from_log``), keeping suspended and buried.
4. The stats rollups (store/rollups.py), recomputed from their definition; the report says
   whether they had drifted.

Everything is one transaction: the repairs are all written or none is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from sqlalchemy import Connection, select, text
from sqlalchemy.orm import Session

from kvdrill.engine.study.rules import answer_schedule
from kvdrill.engine.study.schedule import Schedule
from kvdrill.store import reviews, rollups
from kvdrill.store.db import Database, begin_write
from kvdrill.store.models import Profile, ReviewLog

INTEGRITY_LINES = 20  # problems quoted from integrity_check

# (profile_id, card_id) pairs whose state and log disagree: a state with another review count
# or last review than its log, or a log without a state.
_STATE_LOG_MISMATCH = """
WITH logged AS (
    SELECT profile_id, card_id, COUNT(*) AS answers, MAX(reviewed_at) AS last
    FROM review_log GROUP BY profile_id, card_id
)
SELECT s.profile_id, s.card_id FROM card_states AS s
LEFT JOIN logged AS l ON l.profile_id = s.profile_id AND l.card_id = s.card_id
WHERE s.reviews != COALESCE(l.answers, 0) OR (l.answers IS NOT NULL AND s.last_review_at IS NOT l.last)
UNION
SELECT l.profile_id, l.card_id FROM logged AS l
LEFT JOIN card_states AS s ON s.profile_id = l.profile_id AND s.card_id = l.card_id
WHERE s.card_id IS NULL
"""

_ROLLUP_TABLES = ("topic_days", "topic_states", "topic_cards")


@dataclass
class DoctorReport:
    """What the check found and what the repair did."""

    database: str
    integrity: list[str]  # ["ok"] when every page is sound
    orphans: dict[str, int] = field(default_factory=dict)  # rows removed, per table
    states_rebuilt: int = 0  # card states rebuilt from their review log
    rollups_rebuilt: bool = False  # the stats rollups had drifted and were recomputed
    repaired: bool = False  # something was written
    newest_backup: str | None = None  # offered when the file is damaged

    @property
    def sound(self) -> bool:
        return self.integrity == ["ok"]

    @property
    def problems(self) -> int:
        if not self.sound:
            return len(self.integrity)
        return sum(self.orphans.values()) + self.states_rebuilt + int(self.rollups_rebuilt)

    def lines(self) -> list[str]:
        out = [f"Database: {self.database}"]
        if not self.sound:
            out.append("Integrity: the file is damaged; nothing was repaired (writing into it")
            out.append("could spread the damage). SQLite's integrity_check says:")
            out += [f"  {line}" for line in self.integrity]
            if self.newest_backup:
                out.append(f"Restore the newest backup: kvdrill restore {self.newest_backup}")
            else:
                out.append("No backup was found beside it to restore.")
            return out
        out.append("Integrity: ok (every page checked)")
        orphans = sum(self.orphans.values())
        detail = ", ".join(f"{n} in {table}" for table, n in sorted(self.orphans.items()))
        out.append(
            f"Rows pointing at nothing: {orphans}" + (f" ({detail}), removed" if orphans else "")
        )
        out.append(
            f"Card states that disagreed with their review log: {self.states_rebuilt}"
            + (", rebuilt from the log" if self.states_rebuilt else "")
        )
        out.append(
            "Stats rollups: " + ("had drifted, recomputed" if self.rollups_rebuilt else "ok")
        )
        out.append("Repaired." if self.repaired else "Nothing to repair.")
        return out

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"sound": self.sound, "problems": self.problems}


def examine(database: Database, newest_backup: str | None = None) -> DoctorReport:
    """Check ``database`` and repair it (see the module docstring); ``newest_backup`` is
    offered in the report when the file itself is damaged."""
    where = str(database.path) if database.path is not None else database.url
    with database.engine.connect() as connection:
        integrity = _integrity(connection)
    if integrity != ["ok"]:
        return DoctorReport(where, integrity, newest_backup=newest_backup)
    report = DoctorReport(where, integrity)
    with database.session() as session:
        begin_write(session)
        connection = session.connection()
        report.orphans = _remove_orphans(connection)
        mismatched = connection.execute(text(_STATE_LOG_MISMATCH)).all()
        for profile_id, card_id in mismatched:
            rebuild_state_from_log(session, profile_id, card_id)
        session.flush()
        report.states_rebuilt = len(mismatched)
        before = _rollup_rows(connection)
        rollups.rebuild(connection)
        report.rollups_rebuilt = _rollup_rows(connection) != before
        report.repaired = bool(report.problems)
        if not report.repaired:
            session.rollback()
    return report


def rebuild_state_from_log(session: Session, profile_id: int, card_id: int) -> None:
    """Put a card's state back in line with its review log: every logged answer applied again
    in order, by the rules of engine/study/rules.py; suspended and buried kept."""
    current = reviews.load_schedule(session, profile_id, card_id)
    rollover_hour = session.get(Profile, profile_id).rollover_hour
    logged = session.execute(
        select(ReviewLog.quality, ReviewLog.reviewed_at)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.card_id == card_id)
        .order_by(ReviewLog.id)
    ).all()
    schedule: Schedule | None = None
    for quality, reviewed_at in logged:
        schedule = answer_schedule(schedule, quality, reviewed_at, rollover_hour).schedule
    if current is not None and (current.suspended or current.buried_until):
        schedule = replace(
            schedule or Schedule(),
            suspended=current.suspended,
            buried_until=current.buried_until,
        )
    reviews.restore_schedule(session, profile_id, card_id, schedule)


def _integrity(connection: Connection) -> list[str]:
    rows = connection.exec_driver_sql(f"PRAGMA integrity_check({INTEGRITY_LINES})").all()
    return [
        line
        for (row,) in rows
        for line in str(row).splitlines()
        if line.strip() and not line.startswith("***")
    ]


def _remove_orphans(connection: Connection) -> dict[str, int]:
    """Delete rows whose foreign key points at nothing; how many, per table."""
    found = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    counts = Counter(table for table, _rowid, _parent, _fk in found)
    for table, rowid, _parent, _fk in found:
        if rowid is not None:
            connection.exec_driver_sql(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
    return dict(counts)


def _rollup_rows(connection: Connection) -> list[list[tuple[Any, ...]]]:
    """Every rollup row, in a stable order, to tell whether a rebuild changed anything
    (sums of seconds rounded: adding floats in another order is no drift)."""
    return [
        sorted(
            tuple(round(value, 6) if isinstance(value, float) else value for value in row)
            for row in connection.exec_driver_sql(f"SELECT * FROM {table}")
        )
        for table in _ROLLUP_TABLES
    ]
