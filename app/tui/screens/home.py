"""The home screen: what is due per pack, today's progress, the streak, and where to go next."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Footer, Static

from kvdrill.app import shown_numbers
from kvdrill.app.tui.messages import CallFailed, OverviewLoaded, failures_reported
from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.app.tui.widgets.tables import FittingTable, fill_table
from kvdrill.engine.errors import printable
from kvdrill.i18n import N_, _, language, ngettext

MORE_NEW_COUNTS = (5, 10, 20, 50)

PACK_COLUMNS = [
    (N_("Pack"), "pack"),
    (N_("Due"), "due"),
    (N_("New"), "new"),  # new cards the pack still gives today (its own limit applied)
    (N_("Cards"), "total"),
]


class HomeScreen(KvdrillScreen[None]):
    """Due and new counts per pack, today's reviews and the streak."""

    # Down and Up move in the packs table, not the page around it (the page was focused first).
    AUTO_FOCUS = "#home-packs"
    BINDINGS = [
        Binding("d", "app.start_drill", N_("Drill"), tooltip=N_("drill today's cards")),
        Binding(
            "enter",
            "drill_pack",
            N_("Drill pack"),
            show=False,
            priority=True,
            tooltip=N_("drill the pack under the cursor (as practice when none of it is due)"),
        ),
        Binding(
            "m",
            "more_new",
            N_("More new"),
            show=False,
            tooltip=N_("more new cards today: a session with extra new cards"),
        ),
        Binding("i", "app.open_import", N_("Import"), tooltip=N_("import packs")),
        Binding(
            "s", "app.open_stats", N_("Stats"), tooltip=N_("stats: weak topics, heatmap, forecast")
        ),
        Binding(
            "c",
            "app.open_cards",
            N_("Cards"),
            tooltip=N_("cards: find a card, its history; suspend, flag, edit it"),
        ),
        Binding(
            "o",
            "app.open_settings",
            N_("Settings"),
            show=False,
            tooltip=N_("settings: daily limits, theme, language"),
        ),
        Binding(
            "p",
            "pack_settings",
            N_("Pack settings"),
            show=False,
            tooltip=N_("the pack under the cursor's own settings: new cards per day, their order"),
        ),
        Binding(
            "r", "refresh_overview", N_("Refresh"), show=False, tooltip=N_("refresh the counts")
        ),
        Binding("q", "app.quit", N_("Quit"), tooltip=N_("quit (every answer is already saved)")),
    ]
    WIDGET_KEYS = [
        ("↓ ↑", N_("move in the packs table")),
    ]

    def compose(self) -> ComposeResult:
        self.built_language = language()
        self.pack_rows: list[tuple[list[str], str | None]] = []
        with VerticalScroll(id="home-body"):
            yield Static(Content("kvdrill"), id="home-title")
            yield Static(Content(_("Opening your collection…")), id="home-today")
            yield FittingTable(id="home-packs", cursor_type="row", zebra_stripes=True)
            yield Static(Content(""), id="home-weak")
            yield Static(
                Content(_("d or Enter: drill   i: import   s: stats   ?: keys   q: quit")),
                id="home-hint",
            )
        yield Footer(compact=True)

    def action_drill_pack(self) -> None:
        """Enter: the highlighted pack's session, its cards as practice when nothing is due."""
        table = self.query_one("#home-packs", FittingTable)
        if table.hold(self.action_drill_pack):  # until the counts came: Down, Enter in order
            return
        pack = None
        if table.row_count:
            pack = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if pack is None:  # no pack row (the "import one" line)
            self.app.action_start_drill()
        else:
            self.app.action_start_drill(pack=pack, cram_when_empty=True)

    def action_pack_settings(self) -> None:
        """p: the highlighted pack's own settings (new cards per day, their order)."""
        from kvdrill.app.tui.screens.settings import SettingsScreen

        table = self.query_one("#home-packs", FittingTable)
        if table.hold(self.action_pack_settings):
            return
        if not table.row_count:
            return
        pack = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if pack is not None:
            self.app.push_screen(SettingsScreen(pack=pack))

    def action_more_new(self) -> None:
        from kvdrill.app.tui.screens.pick import PickScreen

        options = [(str(count), str(count)) for count in MORE_NEW_COUNTS]

        def picked(choice: str | None) -> None:
            if choice is not None:
                self.app.action_start_drill(new_limit=int(choice))

        title = _("How many new cards, beyond today's limit?")
        self.app.push_screen(PickScreen(title, options, str(MORE_NEW_COUNTS[0])), picked)

    async def on_screen_resume(self) -> None:
        # Also sent when the screen first shows; under a drill started from the command line
        # the home screen waits until it is uncovered, off the fast-start path.
        if self.built_language != language():  # the learner chose another in the settings
            await self.recompose()
        if self.pack_rows:
            self.refresh_overview()
        else:  # the first paint goes first: the worker's imports would hold the GIL meanwhile
            self.call_after_refresh(self.refresh_overview)

    def action_refresh_overview(self) -> None:
        self.refresh_overview()

    @work(thread=True, exclusive=True, group="overview", exit_on_error=False)
    def refresh_overview(self) -> None:
        """The counts now, then again if the bundled decks had to be brought up to date."""
        with failures_reported(self):
            self.post_message(OverviewLoaded(self.app.backend.overview()))
            if self.app.backend.sync_bundled():
                self.post_message(OverviewLoaded(self.app.backend.overview()))

    def on_call_failed(self, message: CallFailed) -> None:
        self.query_one("#home-today", Static).update(
            Content.from_markup(
                _("[b]Could not open the collection:[/b] $error"), error=str(message.error)
            )
        )

    def on_resize(self) -> None:
        if self.pack_rows:
            self.show_packs()

    def show_packs(self) -> None:
        """The packs table, its pack titles wrapped so the counts show whole on a narrow
        terminal (room kept for the table's scroll bar, and the page's, shown or not yet)."""
        table = self.query_one("#home-packs", DataTable)
        body = self.query_one("#home-body")
        room = body.size.width - table.styles.scrollbar_size_vertical
        if not body.show_vertical_scrollbar:
            room -= body.styles.scrollbar_size_vertical
        columns = [(_(label), key) for label, key in PACK_COLUMNS]
        fill_table(table, columns, self.pack_rows, fit=(0, room) if room > 0 else None)

    def on_overview_loaded(self, message: OverviewLoaded) -> None:
        overview = message.overview
        due = sum(pack.due for pack in overview.packs)
        self.query_one("#home-title", Static).update(
            Content.from_markup(
                _("[b]kvdrill[/b] · profile $profile · study day $day"),
                profile=overview.profile,
                day=overview.today.isoformat(),
            )
        )
        self.query_one("#home-today", Static).update(
            Content.from_markup(
                ngettext(
                    "Today: [b]$reviewed[/b] reviewed · [b]$due[/b] due · [b]$new[/b] new to "
                    "learn · streak [b]$streak[/b] day$suspended",
                    "Today: [b]$reviewed[/b] reviewed · [b]$due[/b] due · [b]$new[/b] new to "
                    "learn · streak [b]$streak[/b] days$suspended",
                    overview.streak_days,
                ),
                reviewed=shown_numbers.count(overview.reviewed_today),
                due=shown_numbers.count(due),
                new=shown_numbers.count(overview.new_today),
                streak=shown_numbers.count(overview.streak_days),
                suspended=" · "
                + _("{count} suspended").format(count=shown_numbers.count(overview.suspended))
                if overview.suspended
                else "",
            )
        )
        rows: list[tuple[list[str], str | None]] = [
            (
                [
                    printable(pack.title),
                    *map(shown_numbers.count, (pack.due, pack.new, pack.total)),
                ],
                pack.key,
            )
            for pack in overview.packs
        ]
        if not overview.packs:
            rows.append(([_("No packs yet: press i to import one."), "", "", ""], None))
        self.pack_rows = rows
        self.show_packs()
        weak = self.query_one("#home-weak", Static)
        weak.display = bool(overview.weak_topics)
        weak.update(
            Content.from_markup(
                _("Weakest topics: $topics"), topics=", ".join(overview.weak_topics)
            )
        )
