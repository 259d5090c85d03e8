"""The home screen: what is due per pack, today's progress, the streak, and where to go next."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Footer, Static

from kvdrill.app.tui.messages import CallFailed, OverviewLoaded, failures_reported
from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.app.tui.widgets.tables import fill_table
from kvdrill.engine.errors import printable

KEYS = [
    ("d / Enter", "drill today's cards"),
    ("i", "import packs"),
    ("s", "stats: weak topics, heatmap, forecast"),
    ("o", "settings: daily limits, theme, language"),
    ("r", "refresh the counts"),
    ("?", "this list"),
    ("q", "quit (every answer is already saved)"),
]

PACK_COLUMNS = [("Pack", "pack"), ("Due", "due"), ("Unseen", "new"), ("Cards", "total")]


class HomeScreen(KvdrillScreen[None]):
    """Due and new counts per pack, today's reviews and the streak."""

    KEYS = KEYS
    BINDINGS = [
        Binding("d", "app.start_drill", "Drill"),
        Binding("enter", "app.start_drill", "Drill", show=False, priority=True),
        Binding("i", "app.open_import", "Import"),
        Binding("s", "app.open_stats", "Stats"),
        Binding("o", "app.open_settings", "Settings", show=False),
        Binding("r", "refresh_overview", "Refresh", show=False),
        Binding("q", "app.quit", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="home-body"):
            yield Static(Content("kvdrill"), id="home-title")
            yield Static(Content("Opening your collection…"), id="home-today")
            yield DataTable(id="home-packs", cursor_type="row", zebra_stripes=True)
            yield Static(Content(""), id="home-weak")
            yield Static(
                Content("d or Enter: drill   i: import   s: stats   ?: keys   q: quit"),
                id="home-hint",
            )
        yield Footer(compact=True)

    def on_screen_resume(self) -> None:
        # Also sent when the screen first shows; under a drill started from the command line
        # the home screen waits until it is uncovered, off the fast-start path.
        self.refresh_overview()

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
                "[b]Could not open the collection:[/b] $error", error=str(message.error)
            )
        )

    def on_overview_loaded(self, message: OverviewLoaded) -> None:
        overview = message.overview
        due = sum(pack.due for pack in overview.packs)
        self.query_one("#home-title", Static).update(
            Content.from_markup(
                "[b]kvdrill[/b] · profile $profile · study day $day",
                profile=overview.profile,
                day=overview.today.isoformat(),
            )
        )
        days = "day" if overview.streak_days == 1 else "days"
        self.query_one("#home-today", Static).update(
            Content.from_markup(
                "Today: [b]$reviewed[/b] reviewed · [b]$due[/b] due · [b]$new[/b] new to learn"
                " · streak [b]$streak[/b] $days$suspended",
                reviewed=str(overview.reviewed_today),
                due=str(due),
                new=str(overview.new_today),
                streak=str(overview.streak_days),
                days=days,
                suspended=f" · {overview.suspended} suspended" if overview.suspended else "",
            )
        )
        rows: list[tuple[list[str], str | None]] = [
            ([printable(pack.title), str(pack.due), str(pack.new), str(pack.total)], pack.key)
            for pack in overview.packs
        ]
        if not overview.packs:
            rows.append((["No packs yet: press i to import one.", "", "", ""], None))
        fill_table(self.query_one("#home-packs", DataTable), PACK_COLUMNS, rows)
        weak = self.query_one("#home-weak", Static)
        weak.display = bool(overview.weak_topics)
        weak.update(
            Content.from_markup("Weakest topics: $topics", topics=", ".join(overview.weak_topics))
        )
