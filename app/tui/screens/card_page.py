"""A card's page: its schedule, its whole review history (date, grade, time, the typed answer
and the diagnosis of a problem), its mistakes and the learner's note, in the lines
``kvdrill cards PACK/CARD`` prints; and the card actions: suspend, unsuspend, bury, flag,
forget (new again, history kept), edit, drill it now."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Static

from kvdrill.app.card_page_text import page_lines
from kvdrill.app.tui.messages import CallFailed, CardPageLoaded, failures_reported
from kvdrill.app.tui.screens.card_actions import (
    DRILL_BINDING,
    EDIT_BINDING,
    FLAG_BINDING,
    CardActionsScreen,
)
from kvdrill.i18n import N_, _

if TYPE_CHECKING:
    from kvdrill.engine.study.browse import CardPage

FORGET_ASKS = N_("Press f again to make this card new (its history is kept).")


class CardPageScreen(CardActionsScreen):
    """One card, read from the service in a worker, painted as lines of text."""

    DEFAULT_CSS = """
    CardPageScreen #card-body { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    CardPageScreen #card-hint { height: 1; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("s", "act('suspend')", N_("Suspend"), tooltip=N_("suspend the card")),
        Binding("u", "act('unsuspend')", N_("Unsuspend"), tooltip=N_("unsuspend it")),
        Binding("b", "act('bury')", N_("Bury"), tooltip=N_("bury it until tomorrow")),
        FLAG_BINDING,
        Binding(
            "f",
            "forget",
            N_("Forget"),
            tooltip=N_("forget it: new again, its history kept (f twice)"),
        ),
        EDIT_BINDING,
        DRILL_BINDING,
        Binding("down,j", "scroll('down')", N_("Scroll"), show=False, tooltip=N_("scroll")),
        Binding("up,k", "scroll('up')", N_("Scroll"), show=False, tooltip=N_("scroll")),
        Binding("pagedown", "scroll('page_down')", N_("Scroll"), show=False, tooltip=N_("scroll")),
        Binding("pageup", "scroll('page_up')", N_("Scroll"), show=False, tooltip=N_("scroll")),
        Binding("escape,q", "close", N_("Back"), key_display="esc", tooltip=N_("back")),
    ]

    def __init__(self, reference: str) -> None:
        super().__init__()
        self.reference = reference
        self.page: CardPage | None = None
        self.forget_asked = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="card-body"):
            yield Static(Content(_("Loading {card}…").format(card=self.reference)), id="card-text")
        yield Static(
            Content(_("s u b x f e d act on this card · ? keys · Escape back")), id="card-hint"
        )
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#card-body").focus()
        self.load_page()

    @work(thread=True, exclusive=True, group="card-page", exit_on_error=False)
    def load_page(self) -> None:
        with failures_reported(self):
            self.post_message(CardPageLoaded(*self.app.backend.show_card(self.reference)))

    def on_call_failed(self, message: CallFailed) -> None:
        self.query_one("#card-text", Static).update(
            Content.from_markup(
                "[b]$what[/b] $e", what=_("Could not show the card:"), e=str(message.error)
            )
        )

    def on_card_page_loaded(self, message: CardPageLoaded) -> None:
        self.page = message.page
        width = max(40, self.size.width - 3)  # the padding and the scrollbar
        self.query_one("#card-text", Static).update(
            Content("\n".join(page_lines(message.page, message.today, width)))
        )

    def card_changed(self, reference: str) -> None:
        self.load_page()

    def action_act(self, action: str) -> None:
        self.forget_asked = False
        self.act_on(self.reference, action)

    def action_forget(self) -> None:
        if not self.forget_asked:
            self.forget_asked = True
            self.notify(_(FORGET_ASKS), timeout=4)
            return
        self.forget_asked = False
        self.act_on(self.reference, "forget")

    def action_flag(self) -> None:
        self.forget_asked = False
        self.pick_flag(self.reference, self.page.card.flag if self.page else None)

    def action_edit(self) -> None:
        self.edit_card(self.reference)

    def action_drill(self) -> None:
        self.drill_card(self.reference)

    def action_scroll(self, where: str) -> None:
        getattr(self.query_one("#card-body", VerticalScroll), f"scroll_{where}")(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
