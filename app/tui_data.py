"""What the TUI needs from the store, called only from worker threads.

The screens never import SQLAlchemy, sympy or pint: every call here runs in a Textual worker
thread, and the heavy imports happen inside the functions, so the first screen paints before any
of them is loaded.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class PackLine:
    """One pack on the home screen."""

    key: str
    title: str
    due: int
    new: int
    total: int


@dataclass(frozen=True)
class Overview:
    """Everything the home screen shows."""

    profile: str
    today: date
    packs: list[PackLine]
    reviewed_today: int
    new_today: int  # new cards today's session will still bring (the daily limit applied)
    streak_days: int
    answer_seconds: int
    weak_topics: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PackDiff:
    """What importing one pack would change."""

    key: str
    title: str
    path: str
    added: int
    changed: int
    retired: int
    unchanged: int


@dataclass(frozen=True)
class ImportScan:
    """The dry run of an import: parsed packs, their diffs, and every error found."""

    paths: list[str]
    packs: list[Any]
    diffs: list[PackDiff]
    errors: list[str]  # each ``path:line: message``


# The home screen's glance at weak topics: the stats screen's ranking, top few, last 30 days.
WEAK_WINDOW_DAYS = 30
WEAK_TOPICS_SHOWN = 3


def clock_now() -> datetime:
    """The app's idea of now: ``KVDRILL_NOW`` if set, else the wall clock."""
    from kvdrill.engine.study.clock import now_from

    return now_from(os.environ)


class Backend:
    """The store, opened once on first use; thread-safe for the TUI's worker threads."""

    def __init__(self, database_url: str | None, profile: str, bundled: bool = True) -> None:
        self.database_url = database_url
        self.profile = profile
        self.bundled = bundled
        self._database: Any = None
        self._bundled_checked = not bundled
        self._lock = threading.Lock()

    @property
    def database(self) -> Any:
        """The open database. On first launch (no pack at all) the bundled decks go in first."""
        with self._lock:
            if self._database is None:
                from kvdrill.store.db import open_database

                database = open_database(self.database_url)
                if not self._bundled_checked and not _has_packs(database):
                    self._import_bundled(database)
                self._database = database
            return self._database

    def sync_bundled(self) -> bool:
        """Import the bundled decks if a release changed them; True if anything was written.

        Off the start path: the importer loads the pack parser (pydantic), which the first
        card does not need.
        """
        database = self.database
        with self._lock:
            if self._bundled_checked:
                return False
            return self._import_bundled(database)

    def _import_bundled(self, database: Any) -> bool:
        from kvdrill.store.importer import import_bundled

        self._bundled_checked = True
        plan = import_bundled(database)
        return plan is not None and any(pack.writes for pack in plan.packs)

    def open_session(
        self,
        pack: str | None = None,
        tag: str | None = None,
        new_limit: int | None = None,
        limit: int | None = None,
        lesson: str | None = None,
    ) -> Any:
        """A ``store.drill.DrillSession`` on today's queue."""
        from kvdrill.store.drill import DrillSession

        return DrillSession.open(
            self.database,
            profile=self.profile,
            now=clock_now(),
            pack=pack,
            tag=tag,
            lesson=lesson,
            new_limit=new_limit,
            limit=limit,
        )

    def saved_theme(self) -> str:
        """The profile's theme, ``"light"`` or ``"dark"``."""
        from kvdrill.store.profiles import get_or_create_profile

        with self.database.session() as session:
            return get_or_create_profile(session, self.profile).theme

    def save_theme(self, theme: str) -> None:
        """Keep ``theme`` (``"light"`` or ``"dark"``) on the profile for the next start."""
        from kvdrill.store.db import begin_write
        from kvdrill.store.profiles import get_or_create_profile

        with self.database.session() as session:
            begin_write(session)
            get_or_create_profile(session, self.profile).theme = theme

    def set_note_on(self, profile_id: int, card_id: int, text: str) -> None:
        """Save a note on a card already answered (the session's ``set_note`` covers the
        current card only, and after an answer the session has moved on)."""
        from kvdrill.store.db import begin_write
        from kvdrill.store.reviews import set_note

        with self.database.session() as session:
            begin_write(session)
            set_note(session, profile_id, card_id, text, clock_now())

    def overview(self) -> Overview:
        return load_overview(self.database, self.profile, clock_now())

    def scan(self, path_text: str) -> ImportScan:
        """Parse the packs under ``path_text`` and plan their import; writes nothing."""
        from kvdrill.engine.errors import PackErrors, UserError
        from kvdrill.store.importer import load_packs, plan_import

        path = Path(path_text).expanduser()
        if not path.exists():
            raise UserError(f"{path} does not exist: type the path of a pack file or a directory")
        try:
            packs = load_packs([path])
            with self.database.session() as session:
                plan = plan_import(session, packs)
        except PackErrors as exc:
            return ImportScan([str(path)], [], [], [str(problem) for problem in exc.problems])
        titles = {pack.meta.pack: pack.meta.title for pack in packs}
        diffs = [_pack_diff(item, titles) for item in plan.packs]
        return ImportScan([str(path)], packs, diffs, [])

    def apply(self, scan: ImportScan, progress: Callable[[int, int], None]) -> None:
        """Store the scanned packs in one transaction, reporting (done, total) as it goes."""
        from kvdrill.store.importer import apply_import

        with self.database.session() as session:
            apply_import(session, scan.packs, progress=progress)
            session.commit()


def _pack_diff(item: Any, titles: dict[str, str]) -> PackDiff:
    return PackDiff(
        key=item.pack_key,
        title=titles.get(item.pack_key, item.pack_key),
        path=item.path,
        added=len(item.added) + len(item.revived),
        changed=len(item.changed),
        retired=len(item.retired),
        unchanged=len(item.unchanged),
    )


def _topic_name(kind: str, value: str) -> str:
    """``lesson 17``, ``#kv-cache``, or the pack id."""
    return {"lesson": f"lesson {value}", "tag": f"#{value}"}.get(kind, value)


def _has_packs(database: Any) -> bool:
    from sqlalchemy import select

    from kvdrill.store.models import Pack

    with database.session() as session:
        return session.scalar(select(Pack.id).limit(1)) is not None


def load_overview(database: Any, profile_name: str, now: datetime) -> Overview:
    """Due and new cards per pack, today's reviews and the streak, for the home screen."""
    from sqlalchemy import func, select

    from kvdrill.engine.study.clock import study_day
    from kvdrill.engine.study.queue import is_available
    from kvdrill.engine.study.stats_report import streak
    from kvdrill.store.day_queue import queue_cards, today_log
    from kvdrill.store.models import Card, Pack, ReviewLog
    from kvdrill.store.profiles import get_or_create_profile
    from kvdrill.store.stats import topic_stats

    with database.session() as session:
        profile = get_or_create_profile(session, profile_name)
        today = study_day(now, profile.rollover_hour)
        pack_of = dict(session.execute(select(Card.id, Card.pack_id).where(~Card.retired)).all())
        due: dict[int, int] = {}
        new: dict[int, int] = {}
        total: dict[int, int] = {}
        for card in queue_cards(session, profile.id):
            pack_id = pack_of.get(card.card_id)
            if pack_id is None:
                continue
            total[pack_id] = total.get(pack_id, 0) + 1
            if not is_available(card, today):
                continue
            if not card.seen:
                new[pack_id] = new.get(pack_id, 0) + 1
            elif card.due_day is not None and card.due_day <= today:
                due[pack_id] = due.get(pack_id, 0) + 1
        packs = [
            PackLine(key, title, due.get(pack_id, 0), new.get(pack_id, 0), total.get(pack_id, 0))
            for pack_id, key, title in session.execute(
                select(Pack.id, Pack.key, Pack.title).order_by(Pack.title)
            )
            if total.get(pack_id)
        ]
        reviewed = session.scalar(
            select(func.count())
            .select_from(ReviewLog)
            .where(ReviewLog.profile_id == profile.id, ReviewLog.study_day == today)
        )
        study_days = session.scalars(
            select(ReviewLog.study_day)
            .where(ReviewLog.profile_id == profile.id, ReviewLog.study_day <= today)
            .group_by(ReviewLog.study_day)
            .order_by(ReviewLog.study_day.desc())
            .limit(3660)
        ).all()
        weak = [
            _topic_name(topic.kind, topic.topic)
            for topic in topic_stats(session, profile.id, today, WEAK_WINDOW_DAYS)
            if topic.score is not None and topic.score > 0
        ][:WEAK_TOPICS_SHOWN]
        counts, _ = today_log(session, profile, today)
        new_left = max(0, counts.new_per_day - counts.new_done_today)
        return Overview(
            profile=profile.name,
            today=today,
            packs=packs,
            reviewed_today=int(reviewed or 0),
            new_today=min(new_left, sum(new.values())),
            streak_days=streak(list(study_days), today),
            weak_topics=weak,
            answer_seconds=profile.answer_seconds,
        )
