"""Write or edit the personal note on a card: the learner's own words about a mistake."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static, TextArea

from kvdrill.app.tui.screens.base import KvdrillModalScreen
from kvdrill.engine.errors import printable
from kvdrill.i18n import N_, _


class NoteScreen(KvdrillModalScreen[str | None]):
    """Dismisses with the new text (ctrl+s) or ``None`` (Escape)."""

    BINDINGS = [
        Binding("ctrl+s", "save", N_("Save"), priority=True, tooltip=N_("save the note")),
        Binding(
            "escape", "cancel", N_("Cancel"), priority=True, tooltip=N_("close, the note unchanged")
        ),
    ]
    WIDGET_KEYS = [
        ("arrows, Enter, ctrl+z", N_("edit the text as in any editor")),
    ]

    def __init__(self, card_title: str, text: str) -> None:
        super().__init__()
        self.card_title = card_title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            yield Static(
                Content.from_markup(_("[b]Your note[/b] on $t"), t=printable(self.card_title))
            )
            yield TextArea(self.text, id="note-text", soft_wrap=True)
            yield Static(Content(_("ctrl+s saves · Escape cancels")), id="note-hint")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def action_save(self) -> None:
        # ctrl+s is a priority key, taken as it arrives: keys pasted just before it still wait
        # in the text area's queue. Reading the text after them keeps the whole paste.
        area = self.query_one(TextArea)

        def save_now() -> None:
            self.dismiss(area.text.strip())

        # After the keys queued in the text area, and then back on this screen's own queue.
        area.call_later(self.call_later, save_now)

    def action_cancel(self) -> None:
        self.dismiss(None)
