"""The ``?`` screen: the keys of the screen underneath, in plain words."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from kvdrill.app.tui.screens.base import KvdrillModalScreen
from kvdrill.i18n import N_, _

# One line, so the drill's keys fit an 80x24 terminal without scrolling.
EVERYWHERE = [("^p · ^t · ^q", N_("command palette · light / dark theme · quit"))]
# The screens by the word their key list is titled with.
SCREEN_NAMES = {
    "CardPageScreen": N_("card"),
    "CardsScreen": N_("cards"),
    "DrillScreen": N_("drill"),
    "HomeScreen": N_("home"),
    "ImportScreen": N_("import"),
    "SettingsScreen": N_("settings"),
    "StatsScreen": N_("stats"),
    "SummaryScreen": N_("summary"),
}


class HelpScreen(KvdrillModalScreen[None]):
    """Lists the keys of ``under`` (its ``KEYS`` table), then the keys that work everywhere."""

    BINDINGS = [Binding("escape,q,question_mark,enter", "close", N_("Close"))]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.keys = list(getattr(under, "KEYS", [])) + EVERYWHERE
        name = type(under).__name__
        screen = SCREEN_NAMES.get(name) or name.removesuffix("Screen").lower()
        self.title_text = _("Keys: {screen}").format(screen=_(screen))

    def compose(self) -> ComposeResult:
        # A grid, so a long meaning wraps under itself rather than under the keys.
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, meaning in self.keys:
            table.add_row(key, _(meaning))
        with VerticalScroll(id="help-box"):
            yield Static(Content.from_markup("[b]$t[/b]", t=self.title_text), id="help-title")
            yield Static(table, id="help-text")
            yield Static(Content(_("Escape closes this list.")), id="help-hint")

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    def action_close(self) -> None:
        self.dismiss(None)
