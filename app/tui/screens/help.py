"""The ``?`` screen: every key of the screen underneath, in plain words, read from its bindings.

Nothing is listed by hand, so no key is left out: the screen's own bindings first, one row per
meaning (a binding's ``tooltip``, else its footer word, both ``N_``-marked and translated here),
then the keys its widgets take (the screen's ``WIDGET_KEYS``: a table's arrows, a text box's
keys), then the keys that work everywhere (Textual's and the app's bindings).
"""

from __future__ import annotations

from rich.table import Table
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingsMap, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Static

from kvdrill.app.tui.screens.base import KvdrillModalScreen
from kvdrill.i18n import N_, _

# Words for the keys Textual shows as symbols.
KEY_NAMES = {"⏎": "Enter", "esc": "Esc", "⌫": "Backspace"}
# Textual's own bindings, in words (a screen's and the app's defaults).
EVERYWHERE_MEANINGS = {
    "app.focus_next": N_("next / previous field"),
    "app.focus_previous": N_("next / previous field"),
    "screen.copy_text": N_("copy"),
    "command_palette": N_("command palette"),
    "quit": N_("quit"),
}
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


def key_rows(screen: Screen) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the screen's keys, the keys that work everywhere), as (keys, meaning) rows, the
    meanings in the learner's language."""
    own: dict[str, list[str]] = {}
    everywhere: dict[str, list[str]] = {}
    for node in (screen, screen.app):
        for binding in _bindings(node):
            meaning = EVERYWHERE_MEANINGS.get(binding.action)
            rows = everywhere if meaning is not None or node is screen.app else own
            keys = rows.setdefault(meaning or binding.tooltip or binding.description, [])
            shown = key_name(screen, binding)
            if shown not in keys:
                keys.append(shown)
    widget_keys = [(keys, _(meaning)) for keys, meaning in getattr(screen, "WIDGET_KEYS", [])]
    return [*_joined(own), *widget_keys], _joined(everywhere)


def key_name(screen: Screen, binding: Binding) -> str:
    shown = screen.app.get_key_display(binding)
    return KEY_NAMES.get(shown, shown)


def _bindings(node: DOMNode) -> list[Binding]:
    """The bindings ``node``'s class and its bases declare, the class's own first; for the app,
    the command palette's key too (Textual binds it when the app starts)."""
    declared: list[BindingType] = [
        binding for cls in type(node).__mro__ for binding in vars(cls).get("BINDINGS", [])
    ]
    if isinstance(node, App) and node.ENABLE_COMMAND_PALETTE:
        declared.append(Binding(node.COMMAND_PALETTE_BINDING, "command_palette"))
    return [
        binding
        for bindings in BindingsMap(declared).key_to_bindings.values()
        for binding in bindings
        if not binding.system
    ]


def _joined(rows: dict[str, list[str]]) -> list[tuple[str, str]]:
    """One row per meaning, its keys spaced; a row of letters or digits in order."""
    return [
        (" ".join(sorted(keys) if all(len(key) == 1 for key in keys) else keys), _(meaning))
        for meaning, keys in rows.items()
    ]


class HelpScreen(KvdrillModalScreen[None]):
    """Lists every key of ``under``, then the keys that work everywhere."""

    BINDINGS = [Binding("escape,q,question_mark,enter", "close", N_("Close"))]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under
        name = type(under).__name__
        screen = SCREEN_NAMES.get(name) or name.removesuffix("Screen").lower()
        self.title_text = _("Keys: {screen}").format(screen=_(screen))

    def compose(self) -> ComposeResult:
        own, everywhere = key_rows(self.under)
        # A grid, so a long meaning wraps under itself rather than under the keys.
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, meaning in own:
            table.add_row(key, meaning)
        # A short paragraph for the keys of every screen, so the drill's list fits 80x24.
        anywhere = " · ".join(f"{key} {meaning}" for key, meaning in everywhere)
        with VerticalScroll(id="help-box"):
            yield Static(Content.from_markup("[b]$t[/b]", t=self.title_text), id="help-title")
            yield Static(table, id="help-text")
            yield Static(
                Content.from_markup("[b]$w[/b] $k", w=_("Everywhere:"), k=anywhere),
                id="help-anywhere",
            )
            yield Static(Content(_("Escape closes this list; ↓ ↑ scroll it.")), id="help-hint")

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    def action_close(self) -> None:
        self.dismiss(None)
