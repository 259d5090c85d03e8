"""The ``?`` screen: the keys of the screen underneath, in plain words."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

EVERYWHERE = [
    ("ctrl+p", "command palette: drill, import, stats, home, theme, quit"),
    ("ctrl+t", "light / dark theme"),
    ("ctrl+q", "quit"),
]


class HelpScreen(ModalScreen[None]):
    """Lists the keys of ``under`` (its ``KEYS`` table), then the keys that work everywhere."""

    BINDINGS = [Binding("escape,q,question_mark,enter", "close", "Close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.keys = list(getattr(under, "KEYS", [])) + EVERYWHERE
        self.title_text = f"Keys: {type(under).__name__.removesuffix('Screen').lower()}"

    def compose(self) -> ComposeResult:
        width = max(len(key) for key, _ in self.keys) + 2
        lines = [Content.from_markup("[b]$t[/b]", t=self.title_text), Content("")]
        for key, meaning in self.keys:
            lines.append(Content.from_markup("[b]$k[/b]$m", k=key.ljust(width), m=meaning))
        lines.append(Content(""))
        lines.append(Content("Escape closes this list."))
        with VerticalScroll(id="help-box"):
            yield Static(Content("\n").join(lines), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
