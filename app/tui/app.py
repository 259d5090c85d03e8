"""The Textual app: one factory, ``create_app``, shared by the CLI and the tests.

Only Textual is imported here. The store (SQLAlchemy), the formula engine (sympy) and units
(pint) are loaded by worker threads, through app/services/, after the first screen has painted.
Workers answer with the typed messages of app/tui/messages.py.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from kvdrill.app.app_options import AppOptions
from kvdrill.app.services.backend import Services
from kvdrill.app.tui.messages import ThemeLoaded, ThemeNotSaved
from kvdrill.engine.errors import DatabaseUnusable
from kvdrill.gc_pause import resume_collector
from kvdrill.i18n import N_, _

if TYPE_CHECKING:
    from kvdrill.app.services.first_card import FirstCard

LIGHT_THEME = "textual-light"
DARK_THEME = "textual-dark"


class KvdrillApp(App[None]):
    """Home, daily drill and import, all from the keyboard."""

    CSS_PATH = "kvdrill.tcss"
    TITLE = "kvdrill"
    BINDINGS = [
        Binding("question_mark", "show_keys", N_("Keys"), key_display="?", tooltip=N_("this list")),
        Binding(
            "ctrl+t", "toggle_theme", N_("Theme"), show=False, tooltip=N_("light / dark theme")
        ),
    ]

    def __init__(
        self,
        database_url: str | None = None,
        profile: str = "default",
        start: str = "home",
        options: AppOptions | None = None,
    ) -> None:
        super().__init__()
        self.options = options or AppOptions()
        # Taken by the first drill screen (take_first_card); later drills open their own.
        self.first_card = self.options.first_card
        self.profile = profile
        self.database_url = database_url
        self.start = start
        self.backend = Services(database_url, profile, bundled=self.options.bundled)
        self.first_card_source: str | None = None
        self.theme = LIGHT_THEME if self.options.theme == "light" else DARK_THEME
        # The profile's saved theme applies once, when the data first loads, unless the
        # command line chose one or the learner has toggled already.
        self.theme_settled = self.options.theme is not None
        self._theme_write_lock = threading.Lock()
        self.start_done = False

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """A link clicked in card text; an image's placeholder link opens the image (in the
        browser app, sent to the tab; in a terminal, to the desktop's viewer), only when it is
        an image in its pack's folder (app/services/media.py)."""
        from kvdrill.app.services.media import is_media_link, linked_image

        if not is_media_link(url):
            super().open_url(url, new_tab=new_tab)
            return
        image = linked_image(url)
        if image is None:
            self.notify(_("That image is not in its pack's folder: not opened."))
        elif self.is_web:
            self.deliver_binary(image.path, open_method="browser", mime_type=image.mime_type)
        else:
            super().open_url(image.path.as_uri(), new_tab=new_tab)

    def on_mount(self) -> None:
        # Only the first screen is built now (fast start); home is built when first needed.
        # The other screens are imported when first shown: their widgets (tables, Rich tables)
        # are not on the path to a drill's first card, nor is the drill screen on home's.
        if self.start == "drill":
            from kvdrill.app.tui.screens.drill import DrillScreen

            self.push_screen(DrillScreen(self.drill_options()))
        elif self.start == "import":
            self.action_open_import()
        else:
            from kvdrill.app.tui.screens.home import HomeScreen

            self.push_screen(HomeScreen())
        if self.start != "drill":
            # A drill does both once its session is open, off the fast-start path; another
            # first screen once it has painted: the theme's read and the backup open the
            # database (SQLAlchemy), whose import would hold the GIL while the screen paints.
            self.screen.call_after_refresh(self.first_screen_painted)

    def first_screen_painted(self) -> None:
        self.restore_theme()
        self.after_start()

    def after_start(self) -> None:
        """What waits until the first screen is up, once per run of the app: the daily backup,
        and Python's garbage collector, which fast start pauses (app/services/first_card.py)."""
        if not self.start_done:
            self.start_done = True
            resume_collector()
            self.keep_daily_backup()

    @work(thread=True, group="backup", exit_on_error=False)
    def keep_daily_backup(self) -> None:
        """Today's automatic backup, on the first start of the day (app/services/maintenance.py);
        a copy that cannot be written is a warning, never a reason to stop."""
        try:
            warning = self.backend.daily_backup()
        except DatabaseUnusable as exc:  # damage a quick check misses: no answer is saved now
            self.call_from_thread(self.notify, str(exc), title=_("Database"), severity="error")
            return
        except Exception:  # noqa: BLE001 - the screens report a database they cannot open
            return
        if warning:
            self.call_from_thread(self.notify, warning, title=_("Backup"), severity="warning")

    def drill_options(self, **narrow: Any) -> dict[str, Any]:
        """The session filters: command-line options, overridden by ``narrow``."""
        return {**self.options.drill_filters(), **narrow}

    def take_first_card(self) -> FirstCard | None:
        """The fast-start helper, for the first drill screen only (it read today's first card
        at launch; a later drill opens its session itself)."""
        first_card, self.first_card = self.first_card, None
        return first_card

    # Actions available from every screen (and from the command palette).

    def action_start_drill(self, **narrow: Any) -> None:
        from kvdrill.app.tui.screens.drill import DrillScreen

        if isinstance(self.screen, DrillScreen):
            return
        self.push_screen(DrillScreen(self.drill_options(**narrow)))

    def drill_card(self, reference: str) -> None:
        """A session of the one card ``pack/card``, now, as practice (from any screen showing
        a card, the drill's own included)."""
        from kvdrill.app.tui.screens.drill import DrillScreen

        self.push_screen(DrillScreen({"card": reference}))

    def action_open_import(self) -> None:
        from kvdrill.app.tui.screens.import_ import ImportScreen

        if not isinstance(self.screen, ImportScreen):
            self.push_screen(ImportScreen(self.options.import_path))

    def action_open_stats(self) -> None:
        # Imported here: the stats report loads pydantic, which the first screen does without.
        from kvdrill.app.tui.screens.stats import StatsScreen

        def drill_topic(choice: tuple[str, str] | None) -> None:
            if choice is None:
                return
            kind, topic = choice
            if kind == "mistake":
                self.action_start_drill(mistake=topic)
            elif kind in ("pack", "tag", "lesson"):
                self.action_start_drill(**{kind: topic, "mistake": None, "cram_when_empty": True})
            else:
                self.notify(
                    _("Drilling by {kind} is not supported; try a pack, tag or lesson.").format(
                        kind=kind
                    )
                )

        self.push_screen(StatsScreen(), drill_topic)

    def action_open_cards(self) -> None:
        from kvdrill.app.tui.screens.cards import CardsScreen

        if not isinstance(self.screen, CardsScreen):
            self.push_screen(CardsScreen())

    def action_open_settings(self) -> None:
        from kvdrill.app.tui.screens.settings import SettingsScreen

        if not isinstance(self.screen, SettingsScreen):
            self.push_screen(SettingsScreen())

    def apply_theme_name(self, name: str) -> None:
        """Show the theme the profile now stores (``"light"`` or ``"dark"``)."""
        self.theme_settled = True
        self.theme = LIGHT_THEME if name == "light" else DARK_THEME

    def apply_language(self, language: str) -> None:
        """Show every screen from now on in ``language`` (the profile's new setting); the
        footer's words change at once, each screen's text when it is next built."""
        from kvdrill.app.services.language import use_language

        use_language(language)
        self.refresh_bindings()

    def action_go_home(self) -> None:
        """Back to the home screen (it refreshes its counts when it shows again)."""
        from kvdrill.app.tui.screens.home import HomeScreen

        while len(self.screen_stack) > 2 and not isinstance(self.screen, HomeScreen):
            self.pop_screen()
        if not isinstance(self.screen, HomeScreen):
            self.switch_screen(HomeScreen())

    def action_show_keys(self) -> None:
        from kvdrill.app.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT_THEME if self.theme == DARK_THEME else DARK_THEME
        self.theme_settled = True
        self.save_theme()

    @property
    def theme_name(self) -> str:
        """The theme as the profile stores it: ``"light"`` or ``"dark"``."""
        return "light" if self.theme == LIGHT_THEME else "dark"

    def restore_theme(self) -> None:
        """Apply the profile's saved theme (read in a worker); only the first call does."""
        if not self.theme_settled:
            self._load_theme()

    @work(thread=True, group="theme-load", exclusive=True, exit_on_error=False)
    def _load_theme(self) -> None:
        try:
            saved = self.backend.saved_theme()
        except Exception:  # noqa: BLE001 - the screens report a database they cannot open
            return
        self.post_message(ThemeLoaded(saved))

    def on_theme_loaded(self, message: ThemeLoaded) -> None:
        if not self.theme_settled:
            self.theme_settled = True
            self.theme = LIGHT_THEME if message.theme == "light" else DARK_THEME

    @work(thread=True, group="theme-save", exit_on_error=False)
    def save_theme(self) -> None:
        """Write the current theme to the profile; the lock makes the last toggle win."""
        try:
            with self._theme_write_lock:
                self.backend.save_theme(self.theme_name)
        except Exception as error:  # noqa: BLE001 - shown to the learner, never a traceback
            self.post_message(ThemeNotSaved(error))

    def on_theme_not_saved(self, message: ThemeNotSaved) -> None:
        self.notify(
            _("The theme was not saved: {error}").format(error=message.error),
            title=_("Theme"),
            severity="warning",
        )

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield SystemCommand(
            _("Drill today's cards"), _("Start today's session"), self.action_start_drill
        )
        yield SystemCommand(
            _("Import packs"), _("Import Markdown packs from a path"), self.action_open_import
        )
        yield SystemCommand(
            _("Stats"), _("Weak topics, heatmap and forecast"), self.action_open_stats
        )
        yield SystemCommand(
            _("Cards"), _("Find a card: its history, suspend, flag, edit"), self.action_open_cards
        )
        yield SystemCommand(
            _("Settings"),
            _("New cards and reviews per day, theme, language..."),
            self.action_open_settings,
        )
        yield SystemCommand(_("Home"), _("Back to the home screen"), self.action_go_home)
        yield SystemCommand(_("Keys"), _("List the keys of this screen"), self.action_show_keys)
        yield SystemCommand(
            _("Toggle light/dark"),
            _("Switch between the light and dark theme"),
            self.action_toggle_theme,
        )
        yield SystemCommand(_("Quit"), _("Quit kvdrill (every answer is already saved)"), self.exit)

    def first_card_painted(self, source: str) -> None:
        """Called once the first card is on screen (``source``: ``helper`` or ``session``)."""
        self.first_card_source = source


def create_app(
    database_url: str | None = None,
    profile: str = "default",
    start: str = "home",
    options: AppOptions | None = None,
) -> KvdrillApp:
    """The kvdrill TUI.

    ``start`` is ``"home"``, ``"drill"`` (straight into today's session) or ``"import"``.
    ``options`` (app/app_options.py): the session's filters, the theme, the import path, the
    countdown, whether the bundled decks go in on first use, and the fast-start helper.
    """
    if start not in ("home", "drill", "import"):
        raise ValueError(f"unknown start screen {start!r}")
    return KvdrillApp(database_url, profile, start, options)
