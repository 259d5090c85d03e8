"""``kvdrill doctor``: check a database in full, repair what it can explain, and report what it
cannot, like Anki's "Check Database" but never at the cost of a learner's answers.

1. ``PRAGMA integrity_check``, every page. A damaged file is reported and left alone: writing
   repairs into it could spread the damage; the report names the newest backup that passes
   the same check.
2. What it cannot explain is reported and left as it is: values kvdrill never writes (a
   quality outside 0-5, an easiness or interval no run of answers reaches, a due day that is
   not the last review plus the interval, a ``prev_state`` that is not JSON, a log row without
   a time) and card states that count other answers than their review log holds (log rows
   deleted or wiped, or a state edited). The log and the state were written in one
   transaction, so which of them is right cannot be told: a backup can.
3. Repairs, each explained: a row a learner's rows point at that is gone (a profile, a card,
   a pack) is recreated, so no review, state or note is ever deleted to make a key hold; rows
   of the derived tables (topics, rollups) pointing at nothing are removed; a card state
   missing beside a sound log is rebuilt from it; the stats rollups are recomputed (rows that
   only hold zeros are no drift: the triggers leave them when a card's due day moves).

Before any repair a checked copy of the database is written (``backup_to``); the repairs are
one transaction, committed only after the copy is in place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

from sqlalchemy import Connection, select, text
from sqlalchemy.orm import Session

from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.rules import replay
from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI
from kvdrill.engine.study.sm2 import MIN_EASINESS_MILLI, easiness_change_milli
from kvdrill.i18n import N_, _, ngettext
from kvdrill.store import reviews, rollups
from kvdrill.store.db import Database, begin_write, session_sql
from kvdrill.store.models import Profile, ReviewLog
from kvdrill.store.profiles import profile_settings

INTEGRITY_LINES = 20  # problems quoted from integrity_check
EXAMPLES = 5  # card ids quoted per finding

# (profile_id, card_id) of card states whose review count or last review is not their log's.
_STATE_LOG_MISMATCH = """
WITH logged AS (
    SELECT profile_id, card_id, COUNT(*) AS answers, MAX(reviewed_at) AS last
    FROM review_log GROUP BY profile_id, card_id
)
SELECT s.profile_id, s.card_id FROM card_states AS s
LEFT JOIN logged AS l ON l.profile_id = s.profile_id AND l.card_id = s.card_id
WHERE s.reviews != COALESCE(l.answers, 0) OR (l.answers IS NOT NULL AND s.last_review_at IS NOT l.last)
"""
# (profile_id, card_id) of a review log without a card state.
_LOG_WITHOUT_STATE = """
SELECT DISTINCT l.profile_id, l.card_id FROM review_log AS l
LEFT JOIN card_states AS s ON s.profile_id = l.profile_id AND s.card_id = l.card_id
WHERE s.card_id IS NULL
"""
_BAD_QUALITY = (
    "SELECT id FROM review_log WHERE typeof(quality) != 'integer' OR quality NOT BETWEEN 0 AND 5"
)
_BAD_TIME = (
    "SELECT id FROM review_log WHERE julianday(reviewed_at) IS NULL OR julianday(study_day) IS NULL"
)
_BAD_PREV_STATE = (
    "SELECT id FROM review_log WHERE prev_state IS NOT NULL AND (NOT json_valid(prev_state) "
    "OR json_type(prev_state) != 'object')"
)
_STATES = (
    "SELECT profile_id, card_id, repetitions, easiness_milli, interval_days, reviews, "
    "julianday(due_day) - julianday(date(last_review_at)), fsrs IS NOT NULL FROM card_states "
    # A schedule brought from another tool (an Anki history) follows that tool's rules, not
    # kvdrill's: its bounds are not kvdrill's to check.
    "WHERE NOT EXISTS (SELECT 1 FROM review_log WHERE review_log.imported_id IS NOT NULL "
    "AND review_log.profile_id = card_states.profile_id "
    "AND review_log.card_id = card_states.card_id)"
)

# The tables kvdrill derives from the packs and the learners' rows: their strays may go.
_DERIVED_TABLES = ("card_topics", "topic_days", "topic_states", "topic_cards")
_ROLLUP_KEYS = {
    "topic_days": rollups.DAY_KEYS,
    "topic_states": rollups.STATE_KEYS,
    "topic_cards": ("kind", "value"),
}
RECOVERY_PACK = "recovered-cards"
MAX_FSRS_INTERVAL = 36500  # the fsrs package's longest interval


class DoctorReportJson(TypedDict):
    """``kvdrill doctor --json``: the report's fields, then whether it is sound and how many
    problems it counts."""

    database: str
    integrity: list[str]
    unexplained: list[str]
    recreated: dict[str, int]
    orphans: dict[str, int]
    states_rebuilt: int
    rollups_rebuilt: bool
    repaired: bool
    backup: str | None
    newest_backup: str | None
    sound: bool
    problems: int


@dataclass
class DoctorReport:
    """What the check found, what the repair did and what it left alone."""

    database: str
    integrity: list[str]  # ["ok"] when every page is sound
    unexplained: list[str] = field(default_factory=list)  # findings left as they are
    recreated: dict[str, int] = field(default_factory=dict)  # rows pointed at, per table
    orphans: dict[str, int] = field(default_factory=dict)  # derived rows removed, per table
    states_rebuilt: int = 0  # missing card states rebuilt from their review log
    rollups_rebuilt: bool = False  # the stats rollups had drifted and were recomputed
    repaired: bool = False  # something was written
    backup: str | None = None  # the checked copy written before the repairs
    newest_backup: str | None = None  # the newest backup that passes the full check

    @property
    def sound(self) -> bool:
        return self.integrity == ["ok"] and not self.unexplained

    @property
    def problems(self) -> int:
        if self.integrity != ["ok"]:
            return len(self.integrity)
        return (
            len(self.unexplained)
            + sum(self.recreated.values())
            + sum(self.orphans.values())
            + self.states_rebuilt
            + int(self.rollups_rebuilt)
        )

    def lines(self, number: Callable[[int], str] = str) -> list[str]:
        """The report for reading; ``number`` writes each count (the reader's convention)."""
        out = [_("Database: {path}").format(path=self.database)]
        if self.integrity != ["ok"]:
            out.append(_("Integrity: the file is damaged; nothing was repaired (writing into it"))
            out.append(_("could spread the damage). SQLite's integrity_check says:"))
            out += [f"  {line}" for line in self.integrity]
            out.append(self._restore_advice())
            return out
        out.append(_("Integrity: ok (every page checked)"))
        if self.backup:
            out.append(
                _("Before repairing, a checked copy was written to {path}").format(path=self.backup)
            )
        recreated = sum(self.recreated.values())
        orphans = sum(self.orphans.values())
        out.append(
            _("Rows pointed at that were gone: {count}").format(count=number(recreated))
            + (
                _(" ({tables}), recreated").format(tables=_per_table(self.recreated, number))
                if recreated
                else ""
            )
        )
        out.append(
            _("Derived rows pointing at nothing: {count}").format(count=number(orphans))
            + (
                _(" ({tables}), removed").format(tables=_per_table(self.orphans, number))
                if orphans
                else ""
            )
        )
        out.append(
            _("Card states missing beside their review log: {count}").format(
                count=number(self.states_rebuilt)
            )
            + (_(", rebuilt from the log") if self.states_rebuilt else "")
        )
        out.append(
            _("Stats rollups: had drifted, recomputed")
            if self.rollups_rebuilt
            else _("Stats rollups: ok")
        )
        if self.unexplained:
            out.append(_("Cannot explain, so left as they are (not written by kvdrill's rules):"))
            out += [f"  {finding}" for finding in self.unexplained]
            out.append(self._restore_advice())
            out.append(_("Repaired the rest.") if self.repaired else _("Nothing else to repair."))
        else:
            out.append(_("Repaired.") if self.repaired else _("Nothing to repair."))
        return out

    def _restore_advice(self) -> str:
        if self.newest_backup:
            return _("The newest backup that passes the full check: kvdrill restore {path}").format(
                path=self.newest_backup
            )
        return _("No backup that passes the full check was found beside it to restore.")

    def to_json(self) -> DoctorReportJson:
        return DoctorReportJson(
            database=self.database,
            integrity=list(self.integrity),
            unexplained=list(self.unexplained),
            recreated=dict(self.recreated),
            orphans=dict(self.orphans),
            states_rebuilt=self.states_rebuilt,
            rollups_rebuilt=self.rollups_rebuilt,
            repaired=self.repaired,
            backup=self.backup,
            newest_backup=self.newest_backup,
            sound=self.sound,
            problems=self.problems,
        )


def _per_table(counts: dict[str, int], number: Callable[[int], str]) -> str:
    return ", ".join(
        _("{count} in {table}").format(count=number(n), table=table)
        for table, n in sorted(counts.items())
    )


def examine(
    database: Database,
    backup_to: Path | None = None,
    newest_backup: str | None = None,
    now: datetime | None = None,
) -> DoctorReport:
    """Check ``database``, repair what can be explained (see the module docstring) after
    writing a checked copy to ``backup_to``, and report; ``newest_backup`` is named when
    something is left for a backup to put right. ``now`` stamps recreated rows."""
    from kvdrill.store.backup import write_backup

    where = str(database.path) if database.path is not None else database.url
    with database.engine.connect() as connection:
        integrity = _integrity(connection)
    report = DoctorReport(where, integrity, newest_backup=newest_backup)
    if integrity != ["ok"]:
        return report
    stamp = (now or datetime(2000, 1, 1)).replace(microsecond=0)
    with database.session() as session:
        begin_write(session)
        connection = session.connection()
        unexplained, doubtful = _unexplained(connection)
        report.unexplained = unexplained
        report.recreated = _recreate_parents(session, stamp)
        report.orphans = _remove_derived_orphans(connection)
        missing = [
            key
            for key in connection.execute(text(_LOG_WITHOUT_STATE)).all()
            if tuple(key) not in doubtful
        ]
        for profile_id, card_id in missing:
            rebuild_missing_state(session, profile_id, card_id)
        session.flush()
        report.states_rebuilt = len(missing)
        before = _rollup_rows(connection)
        rollups.rebuild(session_sql(session))
        report.rollups_rebuilt = _rollup_rows(connection) != before
        report.repaired = bool(
            report.recreated or report.orphans or report.states_rebuilt or report.rollups_rebuilt
        )
        if not report.repaired:
            session.rollback()
        elif backup_to is not None:
            # The copy reads what is committed: the database as it was before these repairs.
            write_backup(database, backup_to)
            report.backup = str(backup_to)
    return report


def rebuild_missing_state(session: Session, profile_id: int, card_id: int) -> None:
    """A card state that is gone, rebuilt by replaying its review log under the profile's
    scheduler (engine/study/rules.py ``replay``)."""
    settings = profile_settings(session.get_one(Profile, profile_id))
    logged = session.execute(
        select(ReviewLog.quality, ReviewLog.reviewed_at)
        .where(ReviewLog.profile_id == profile_id, ReviewLog.card_id == card_id)
        .order_by(ReviewLog.reviewed_at, ReviewLog.id)
    ).all()
    schedule = replay(
        None,
        [(quality, moment) for quality, moment in logged],
        settings.rollover_hour,
        settings.scheduler,
        settings.desired_retention,
    )[-1]
    reviews.restore_schedule(session_sql(session), profile_id, card_id, schedule)


def _unexplained(connection: Connection) -> tuple[list[str], set[tuple[int, int]]]:
    """What kvdrill's rules cannot have written, as report lines, and the (profile, card)
    pairs concerned (no state is rebuilt from a log in doubt)."""
    findings: list[str] = []
    doubtful: set[tuple[int, int]] = set()

    def log_rows(sql: str, what: str) -> None:
        ids = [row[0] for row in connection.exec_driver_sql(sql)]
        if ids:
            rows = ngettext("{count} review-log row", "{count} review-log rows", len(ids))
            findings.append(
                _("{rows} {what} (ids {ids})").format(
                    rows=rows.format(count=len(ids)), what=_(what), ids=_examples(ids)
                )
            )
            placeholders = ", ".join(str(int(i)) for i in ids)
            doubtful.update(
                tuple(row)
                for row in connection.exec_driver_sql(
                    f"SELECT profile_id, card_id FROM review_log WHERE id IN ({placeholders})"
                )
            )

    log_rows(_BAD_QUALITY, N_("with a quality outside 0-5"))
    log_rows(_BAD_TIME, N_("without a readable time or study day"))
    log_rows(_BAD_PREV_STATE, N_("whose saved previous state (prev_state) is not a JSON object"))
    mismatched = [tuple(row) for row in connection.execute(text(_STATE_LOG_MISMATCH))]
    if mismatched:
        findings.append(
            ngettext(
                "{count} card state counting other answers than its review log holds (log rows "
                "deleted or wiped, or the state edited; cards {cards})",
                "{count} card states counting other answers than their review log holds (log "
                "rows deleted or wiped, or the state edited; cards {cards})",
                len(mismatched),
            ).format(count=len(mismatched), cards=_examples(mismatched))
        )
    easiness, interval, due = [], [], []
    for profile_id, card_id, reps, milli, days, answers, due_gap, fsrs in connection.execute(
        text(_STATES)
    ):
        key = (profile_id, card_id)
        if not isinstance(milli, int) or not (
            MIN_EASINESS_MILLI <= milli <= _max_easiness(answers)
        ):
            easiness.append(key)
        if not isinstance(days, int) or not 0 <= days <= _max_interval(reps, answers, fsrs):
            interval.append(key)
        elif due_gap is not None and abs(due_gap - days) > 1:
            due.append(key)
    for keys, what in (
        (easiness, N_("an easiness no run of its answers reaches")),
        (interval, N_("an interval no run of its answers reaches")),
        (due, N_("a due day that is not the last review plus the interval")),
    ):
        if keys:
            states = ngettext("{count} card state", "{count} card states", len(keys))
            findings.append(
                _("{states} with {what} (cards {cards})").format(
                    states=states.format(count=len(keys)), what=_(what), cards=_examples(keys)
                )
            )
    doubtful.update(mismatched + easiness + interval + due)
    return findings, doubtful


def _max_easiness(answers: object) -> int:
    """The highest easiness ``answers`` answers can reach: each adds at most a grade 5's."""
    count = answers if isinstance(answers, int) and answers >= 0 else 0
    return max(
        NEW_CARD_EASINESS_MILLI, NEW_CARD_EASINESS_MILLI + count * easiness_change_milli(Grade.EASY)
    )


def _max_interval(repetitions: object, answers: object, fsrs: object) -> int:
    """The longest interval SM-2 gives after ``repetitions`` passes in a row with the highest
    easiness ``answers`` answers reach (FSRS: its own cap)."""
    if fsrs:
        return MAX_FSRS_INTERVAL
    passes = repetitions if isinstance(repetitions, int) and repetitions >= 0 else 0
    if passes == 0:
        return 1
    interval, easiness = 1, _max_easiness(answers)
    for run in range(2, passes + 1):
        interval = 6 if run == 2 else -(-interval * easiness // 1000)
        if interval > MAX_FSRS_INTERVAL:
            break
    return interval


def _examples(keys: list) -> str:
    shown = [str(key[1]) if isinstance(key, tuple) else str(key) for key in keys[:EXAMPLES]]
    return ", ".join(shown) + (", ..." if len(keys) > EXAMPLES else "")


def _integrity(connection: Connection) -> list[str]:
    rows = connection.exec_driver_sql(f"PRAGMA integrity_check({INTEGRITY_LINES})").all()
    return [
        line
        for (row,) in rows
        for line in str(row).splitlines()
        if line.strip() and not line.startswith("***")
    ]


def _violations(connection: Connection) -> list[tuple[str, int, str, Any]]:
    """Each row whose foreign key points at nothing: (table, rowid, parent table, the value)."""
    found = []
    columns: dict[tuple[str, int], str] = {}
    for table, rowid, parent, fk_id in connection.exec_driver_sql("PRAGMA foreign_key_check"):
        if (table, fk_id) not in columns:
            for row in connection.exec_driver_sql(f'PRAGMA foreign_key_list("{table}")'):
                columns[(table, row[0])] = row[3]
        column = columns[(table, fk_id)]
        value = connection.exec_driver_sql(
            f'SELECT "{column}" FROM "{table}" WHERE rowid = ?', (rowid,)
        ).scalar()
        found.append((table, rowid, parent, value))
    return found


def _recreate_parents(session: Session, stamp: datetime) -> dict[str, int]:
    """Recreate each profile, card or pack a learner's or a pack's row points at and that is
    gone, under a name that says so (``recovered-ID``); how many, per table."""
    from kvdrill.store.models import Card, Pack
    from kvdrill.store.profiles import profile_for_reading

    connection = session.connection()
    recreated: Counter[str] = Counter()
    while True:
        wanted = {
            (parent, value)
            for table, _rowid, parent, value in _violations(connection)
            if table not in _DERIVED_TABLES and value is not None
        }
        if not wanted:
            return dict(recreated)
        for parent, value in sorted(wanted, key=str):
            name = f"recovered-{value}"
            if parent == "profiles":
                row: Any = profile_for_reading(session, name, stamp)
                row.id = value
            elif parent == "packs":
                row = Pack(
                    id=value,
                    key=name,
                    title="A pack lost from the database",
                    version="0",
                    imported_at=stamp,
                )
            elif parent == "cards":
                row = Card(
                    id=value,
                    pack_id=_recovery_pack(session, stamp),
                    key=name,
                    kind="recall",
                    title="A card lost from the database",
                    status=None,
                    retired=True,
                    retired_at=stamp,
                )
            else:
                continue
            session.add(row)
            recreated[parent] += 1
        session.flush()


def _recovery_pack(session: Session, stamp: datetime) -> int:
    """The pack recreated cards go in (retired cards, so no drill shows them)."""
    from kvdrill.store.models import Pack

    pack = session.scalars(select(Pack).where(Pack.key == RECOVERY_PACK)).one_or_none()
    if pack is None:
        pack = Pack(
            key=RECOVERY_PACK, title="Cards lost from the database", version="0", imported_at=stamp
        )
        session.add(pack)
        session.flush()
    return pack.id


def _remove_derived_orphans(connection: Connection) -> dict[str, int]:
    """Delete the derived rows (topics, rollups) whose key points at nothing; per table."""
    found = [
        (table, rowid)
        for table, rowid, _parent, _value in _violations(connection)
        if table in _DERIVED_TABLES
    ]
    for table, rowid in found:
        connection.exec_driver_sql(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
    return dict(Counter(table for table, _rowid in found))


def _rollup_rows(connection: Connection) -> list[list[tuple[Any, ...]]]:
    """Every rollup row that holds more than zeros, in a stable order, to tell whether a
    rebuild changed anything (sums of seconds rounded: adding floats in another order is no
    drift; a row of zeros, left when a card's due day moves, counts nothing)."""
    tables = []
    for table, keys in _ROLLUP_KEYS.items():
        result = connection.exec_driver_sql(f"SELECT * FROM {table}")
        names = list(result.keys())
        sums = [i for i, name in enumerate(names) if name not in keys]
        tables.append(
            sorted(
                tuple(round(value, 6) if isinstance(value, float) else value for value in row)
                for row in result
                if any(row[i] for i in sums)
            )
        )
    return tables
