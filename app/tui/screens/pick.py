"""A short list to pick one item from: a filter's value, a sort key, a flag colour."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kvdrill.app.tui.screens.base import KvdrillModalScreen
from kvdrill.engine.errors import printable
from kvdrill.i18n import N_, _


class PickScreen(KvdrillModalScreen[str | None]):
    """Dismisses with the value of the option chosen (Enter), or ``None`` (Escape).
    ``options``: (value, label) pairs; ``current`` is highlighted first."""

    DEFAULT_CSS = """
    PickScreen { align: center middle; }
    #pick-box {
        width: 60; max-width: 100%; height: auto; max-height: 20;
        border: round $primary; background: $surface; padding: 0 1;
    }
    #pick-list { height: auto; max-height: 16; border: none; }
    #pick-hint { color: $text-muted; }
    """
    BINDINGS = [Binding("escape,q", "cancel", N_("Cancel"), tooltip=N_("close, nothing chosen"))]
    WIDGET_KEYS = [("↑ ↓ Enter", N_("pick one"))]

    def __init__(
        self, title: str, options: Sequence[tuple[str, str]], current: str | None = None
    ) -> None:
        super().__init__()
        self.title_text = title
        self.options = list(options)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-box"):
            yield Static(Content.from_markup("[b]$t[/b]", t=self.title_text))
            yield OptionList(
                *(Option(Content(printable(label)), id=value) for value, label in self.options),
                id="pick-list",
            )
            yield Static(Content(_("↑ ↓ choose · Enter picks · Escape cancels")), id="pick-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [value for value, _ in self.options]
        options.highlighted = values.index(self.current) if self.current in values else 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
