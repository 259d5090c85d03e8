"""``Services``: the store opened once, and every use case the TUI and the CLI call on it.

Thread-safe for the TUI's worker threads: the database opens on first use under a lock. Heavy
imports (SQLAlchemy through the store, the pack parser, sympy) happen inside the methods, so a
screen can hold a ``Services`` before any of them is loaded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kvdrill.app.services import environment

if TYPE_CHECKING:  # the UI imports this module on its start path; these load when called
    from pathlib import Path

    from kvdrill.app.services.drill import DrillSession
    from kvdrill.app.services.importing import ImportScan
    from kvdrill.app.services.mistakes import MistakeSession
    from kvdrill.app.services.overview import Overview
    from kvdrill.app.services.problems import ProblemTemplate
    from kvdrill.engine.study.charts import ChartData
    from kvdrill.engine.study.fsrs_fit import Fit
    from kvdrill.engine.study.settings import PackSettings, ProfileSettings
    from kvdrill.engine.study.stats_report import GroupReport, StatsReport
    from kvdrill.store.db import Database
    from kvdrill.store.sql import Sql

T = TypeVar("T")


class Services:
    """The use cases on one database and profile."""

    def __init__(self, database_url: str | None, profile: str, bundled: bool = True) -> None:
        self.database_url = database_url
        self.profile = profile
        self.bundled = bundled
        self._database: Database | None = None
        self._bundled_checked = not bundled
        self._lock = threading.Lock()

    @property
    def database(self) -> Database:
        """The open database. On first launch (no pack at all) the bundled decks go in first."""
        with self._lock:
            if self._database is None:
                from kvdrill.engine.errors import UserError
                from kvdrill.store.db import open_database
                from kvdrill.store.plain_reads import has_packs

                try:
                    database = open_database(
                        environment.database_url(self.database_url),
                        environment.url_source(self.database_url),
                        create_folder=environment.is_own_folder(self.database_url),
                    )
                except UserError as exc:
                    # The TUI shows this message too: never with a database password in it.
                    raise UserError(environment.mask_password(str(exc))) from None
                # Kept even if the bundled import below fails: the database itself is fine.
                self._database = database
                if not self._bundled_checked and not database.read(has_packs):
                    self._import_bundled(database)
            return self._database

    def daily_backup(self) -> str | None:
        """Today's automatic backup, written on the first start of the day; a warning line
        when it could not be written, else None (app/services/maintenance.py)."""
        from kvdrill.app.services.maintenance import daily_backup, daily_backup_written
        from kvdrill.store.location import sqlite_file

        now = environment.now()
        path = sqlite_file(environment.database_url(self.database_url))
        if self._database is None and path is not None and daily_backup_written(path, now):
            return None  # the store is not opened for it
        return daily_backup(self.database, now)

    def close(self) -> None:
        with self._lock:
            if self._database is not None:
                self._database.close()
                self._database = None

    # --- the bundled decks and importing -------------------------------------------------------

    def sync_bundled(self) -> bool:
        """Import the bundled decks if a release changed them; True if anything was written.

        Off the start path: the importer loads the pack parser (pydantic), which the first
        card does not need.
        """
        from kvdrill.app.services.importing import bundled_up_to_date

        with self._lock:
            if self._bundled_checked:
                return False
        if self.read(bundled_up_to_date):  # on a SQLite file without opening the store
            with self._lock:
                self._bundled_checked = True
            return False
        database = self.database
        with self._lock:
            if self._bundled_checked:
                return False
            return self._import_bundled(database)

    def _import_bundled(self, database: Database) -> bool:
        from kvdrill.app.services.importing import import_bundled

        self._bundled_checked = True
        plan = import_bundled(database, environment.now())
        return plan is not None and any(pack.writes for pack in plan.packs)

    def scan(self, path_text: str) -> ImportScan:
        """Parse the packs under ``path_text`` and plan their import; writes nothing."""
        from kvdrill.app.services.importing import scan

        return scan(self.database, path_text)

    def apply(self, scan: ImportScan, progress: Callable[[int, int], None]) -> None:
        """Store the scanned packs in one transaction, reporting (done, total) as it goes."""
        from kvdrill.app.services.importing import store_packs

        store_packs(self.database, scan.packs, environment.now(), progress)

    # --- drilling ------------------------------------------------------------------------------

    def open_session(
        self,
        pack: str | None = None,
        tag: str | None = None,
        new_limit: int | None = None,
        limit: int | None = None,
        lesson: str | None = None,
        mistake: str | None = None,
        count: int | None = None,
        flag: str | None = None,
        cram: bool = False,
        ahead: int | None = None,
        card: str | None = None,
        cram_when_empty: bool = False,
    ) -> DrillSession:
        """A ``DrillSession`` (app/services/drill.py) on today's queue; with ``mistake``, a
        session of up to ``count`` variants exercising that mistake code instead
        (app/services/mistakes.py). ``cram_when_empty``: when nothing is due or new under
        the filters, their cards as practice (``cram``) instead of an empty session."""
        from kvdrill.app.services.drill import DrillSession

        if mistake is not None:
            return self.mistake_session(mistake, count)

        def opened(cram: bool) -> DrillSession:
            return DrillSession.open(
                self.database,
                profile=self.profile,
                now=environment.now(),
                pack=pack,
                tag=tag,
                lesson=lesson,
                new_limit=new_limit,
                limit=limit,
                flag=flag,
                cram=cram,
                ahead=ahead,
                card=card,
            )

        session = opened(cram)
        if cram_when_empty and not cram and ahead is None and session.current is None:
            return opened(True)
        return session

    def flag(self, reference: str, colour: str | None) -> str:
        """Flag the card ``pack/card`` with ``colour`` (None: no flag); its title."""
        return self.act_on_card(reference, "flag", colour)

    def act_on_card(self, reference: str, action: str, colour: str | None = None) -> str:
        """Suspend, unsuspend, bury, forget or flag the card ``pack/card``; its title
        (app/services/browser.py)."""
        from kvdrill.app.services.browser import act_on_card

        return act_on_card(
            self.database, self.profile, environment.now(), reference, action, colour
        )

    def list_cards(self, **filters: Any) -> Any:
        """The study day and the browser's cards (app/services/browser.py ``list_cards``)."""
        from kvdrill.app.services.browser import list_cards

        return list_cards(self.database, self.profile, environment.now(), **filters)

    def list_cards_page(self, limit: int, offset: int = 0, **filters: Any) -> Any:
        """The study day, the browser's cards from ``offset`` (at least ``limit`` of them when
        there are) and how many match (app/services/browser.py ``list_cards_page``)."""
        from kvdrill.app.services.browser import list_cards_page

        return list_cards_page(
            self.database, self.profile, environment.now(), limit, offset, **filters
        )

    def show_card(self, reference: str) -> Any:
        """The study day and the ``CardPage`` of the card ``pack/card``."""
        from kvdrill.app.services.browser import show_card

        return show_card(self.database, self.profile, environment.now(), reference)

    def filter_choices(self) -> dict[str, list[str]]:
        """What the browser's pack, tag, lesson and kind filters can be set to."""
        from kvdrill.app.services.browser import filter_choices

        return filter_choices(self.database)

    def card_file(self, reference: str) -> tuple[Path, int]:
        """The pack file of the card ``pack/card`` and its line, to open in an editor."""
        from kvdrill.app.services.browser import card_file

        return card_file(self.database, reference)

    def import_edited(self, path: Path) -> ImportScan:
        """Check and import a pack file just edited; nothing is written if it has errors."""
        from kvdrill.app.services.browser import import_edited

        return import_edited(self.database, path, environment.now())

    def unsuspend(self, reference: str) -> str:
        """Bring the card ``pack/card`` back into the drills; its title."""
        from kvdrill.store import reviews
        from kvdrill.store.db import session_sql
        from kvdrill.store.profiles import get_or_create_profile

        with self.database.session() as session:
            profile = get_or_create_profile(session, self.profile, environment.now())
            card = reviews.find_card(session, reference)
            reviews.set_suspended(session_sql(session), profile.id, card.id, suspended=False)
            return card.title

    def suspended_cards(self) -> list[tuple[str, str]]:
        """The profile's suspended cards as (``pack/card``, title)."""
        from kvdrill.store import reviews
        from kvdrill.store.profiles import profile_for_reading

        with self.database.session() as session:
            profile = profile_for_reading(session, self.profile, environment.now())
            return reviews.suspended_cards(session, profile.id)

    # --- home, stats and settings --------------------------------------------------------------

    def overview(self) -> Overview:
        from kvdrill.app.services.overview import load_overview

        return load_overview(self.read, self.profile, environment.now())

    def stats_report(self, window_days: int = 30) -> StatsReport:
        """The ``StatsReport`` of today's study day over the last ``window_days`` days."""
        from kvdrill.app.services.stats import load_report

        return load_report(self.database, self.profile, environment.now(), window_days)

    def stats_charts(self, report: StatsReport) -> ChartData:
        """Reviews and minutes per day, retention by week, cards by interval."""
        from kvdrill.app.services.stats import load_charts

        return load_charts(self.database, self.profile, environment.now(), report)

    def group_report(self, window_days: int = 30) -> GroupReport:
        """The ``GroupReport``: weak topics across every profile in the database, as counts."""
        from kvdrill.app.services.stats import load_group_report

        return load_group_report(self.database, self.profile, environment.now(), window_days)

    def settings(self) -> ProfileSettings:
        from kvdrill.app.services.settings import load_settings

        return load_settings(self.database, self.profile, environment.now())

    def change_settings(self, **changes: Any) -> ProfileSettings:
        from kvdrill.app.services.settings import change_settings

        return change_settings(self.database, self.profile, environment.now(), **changes)

    def change_setting_text(self, name: str, text: str) -> ProfileSettings:
        """Set setting ``name`` to the value typed as ``text``; the new ``ProfileSettings``."""
        from kvdrill.app.services.settings import change_setting_text

        return change_setting_text(self.database, self.profile, environment.now(), name, text)

    def pack_settings(self) -> dict[str, PackSettings]:
        """The packs with a setting of their own for the profile, by pack key."""
        from kvdrill.app.services.settings import load_pack_settings

        return load_pack_settings(self.database, self.profile, environment.now())

    def check_pack(self, pack: str) -> str:
        """The key of the pack studied under ``pack`` (an edition's original); a UserError
        names the packs when there is none."""
        from kvdrill.store.pack_settings import studied_pack

        with self.database.session() as session:
            return studied_pack(session, pack).key

    def change_pack_setting_text(self, pack: str, name: str, text: str) -> tuple[str, PackSettings]:
        """Set pack ``pack``'s own setting ``name`` to ``text`` (``default``: none of its own)."""
        from kvdrill.app.services.settings import change_pack_setting_text

        return change_pack_setting_text(
            self.database, self.profile, environment.now(), pack, name, text
        )

    def fit_fsrs(self) -> Fit:
        """FSRS's parameters fitted to the profile's log (app/services/optimize.py); reads only."""
        from kvdrill.app.services.optimize import fit_profile

        return fit_profile(self.database, self.profile, environment.now())

    def keep_fsrs_fit(self, fit: Fit) -> None:
        """Keep a fit's parameters for the profile (schedules replayed under FSRS)."""
        from kvdrill.app.services.optimize import keep_fit

        keep_fit(self.database, self.profile, environment.now(), fit)

    def saved_theme(self) -> str:
        from kvdrill.app.services.settings import saved_theme

        return saved_theme(self.read, self.profile)

    def save_theme(self, theme: str) -> None:
        from kvdrill.app.services.settings import save_theme

        save_theme(self.database, self.profile, environment.now(), theme)

    # --- problems outside a drill --------------------------------------------------------------

    def problem_templates(self) -> list[ProblemTemplate]:
        """The ``ProblemTemplate`` list of the profile's packs (app/services/problems.py)."""
        from kvdrill.app.services.problems import list_templates

        return list_templates(self.read, self.profile)

    def problem_template(self, template_id: str) -> ProblemTemplate:
        from kvdrill.app.services.problems import find_template

        return find_template(self.read, template_id, self.profile)

    def read(self, action: Callable[[Sql], T]) -> T:
        """``action``'s reads: on a SQLite file not opened yet, through ``sqlite3`` alone
        (store/plain_reads.py ``read_sqlite_file``), else through the opened database (an
        action that gives None runs there again)."""
        if self._database is None:
            from kvdrill.store.plain_reads import read_sqlite_file

            found = read_sqlite_file(environment.database_url(self.database_url), action)
            if found is not None:
                return found
        return self.database.read(action)

    # --- practising one mistake ----------------------------------------------------------------

    def mistake_session(self, code: str, count: int | None = None) -> MistakeSession:
        """A ``MistakeSession`` of variants exercising the mistake ``code``."""
        from kvdrill.app.services.mistakes import open_mistake_session

        return open_mistake_session(self.database, self.profile, environment.now(), code, count)

    def offered_mistakes(self) -> list[str]:
        """The mistake codes a ``--mistake`` session can be built for here."""
        from kvdrill.app.services.mistakes import offered_mistakes

        return offered_mistakes(self.database, self.profile, environment.now())

    def first_practisable(self, codes: list[str]) -> str | None:
        """The first of ``codes`` a ``--mistake`` session can be built for, else None."""
        from kvdrill.app.services.mistakes import first_practisable

        return first_practisable(self.database, self.profile, environment.now(), codes)
