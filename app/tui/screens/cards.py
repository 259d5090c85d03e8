"""The card browser: search the prompts, answers and notes; filter by pack, tag, lesson, kind
and state; sort; open a card's page; suspend, bury, flag, edit or drill the card under the
cursor. The list comes from the service ``kvdrill cards`` uses (app/services/browser.py), in a
worker. The table is paged: it holds ``SHOWN_ROWS`` of the cards that match (the count says how
many match) and takes the next ``SHOWN_ROWS`` on when the cursor reaches its last row, so a
collection of 100,000 cards paints as fast as a small one and every card can be reached. In
pack order with no state filter only the rows shown are read (the next page is asked for at
the table's end); a state filter or a sort reads every match (the engine's rules need them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, Static

from kvdrill.app import shown_numbers
from kvdrill.app.tui.messages import (
    CallFailed,
    CardsListed,
    FilterChoicesLoaded,
    failures_reported,
)
from kvdrill.app.tui.screens.card_actions import (
    DRILL_BINDING,
    EDIT_BINDING,
    FLAG_BINDING,
    CardActionsScreen,
)
from kvdrill.app.tui.widgets.tables import FittingTable, add_rows, fill_table
from kvdrill.engine.errors import printable
from kvdrill.engine.study.browse import SORT_KEYS, STATES, cut, state_text
from kvdrill.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from datetime import date

    from kvdrill.engine.study.browse import BrowsedCard

SHOWN_ROWS = 500  # the table's rows at first, and each page added at its end
SEARCH_PAUSE = 0.3  # seconds of no typing before the search runs
ANY = "*"  # the pick list's "no filter" (no pack, tag, lesson or kind is named "*")
FILTERS = (N_("state"), N_("pack"), N_("tag"), N_("lesson"), N_("kind"))
SORT_NAMES = {
    "due": N_("due day"),
    "lapses": N_("lapses"),
    "ease": N_("ease"),
    "last": N_("last review"),
    "reviews": N_("reviews"),
    "pack": N_("card id"),
}
FLAG_STYLES = {
    "red": "red",
    "orange": "dark_orange",
    "green": "green",
    "blue": "blue",
    "pink": "hot_pink",
    "turquoise": "turquoise2",
    "purple": "purple",
}


class CardsScreen(CardActionsScreen):
    """Every card, narrowed and sorted, with the card actions on the highlighted one."""

    DEFAULT_CSS = """
    CardsScreen #cards-summary { height: 1; padding: 0 1; text-wrap: nowrap;
        text-overflow: ellipsis; }
    CardsScreen #cards-search { height: 1; border: none; padding: 0 1; margin: 0 1; }
    CardsScreen #cards-table { height: 1fr; scrollbar-size-vertical: 1; overflow-x: hidden; }
    CardsScreen #cards-hint { height: 1; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding(
            "slash",
            "search",
            N_("Search"),
            key_display="/",
            tooltip=N_("search the prompts, answers and your notes (Enter: back to the list)"),
        ),
        Binding("f", "filter('state')", N_("State"), tooltip=N_("filter by state")),
        Binding("p", "filter('pack')", N_("Pack"), show=False, tooltip=N_("filter by pack")),
        Binding("t", "filter('tag')", N_("Tag"), show=False, tooltip=N_("filter by tag")),
        Binding("l", "filter('lesson')", N_("Lesson"), show=False, tooltip=N_("filter by lesson")),
        Binding(
            "k", "filter('kind')", N_("Kind"), show=False, tooltip=N_("filter by kind of card")
        ),
        Binding("c", "clear_filters", N_("Clear"), show=False, tooltip=N_("clear every filter")),
        Binding(
            "o",
            "sort",
            N_("Sort"),
            tooltip=N_("sort: due day, lapses, ease, last review, reviews, card id"),
        ),
        Binding(
            "enter",
            "open_card",
            N_("Open"),
            key_display="⏎",
            tooltip=N_("open the card's page: schedule, history, mistakes, note"),
        ),
        Binding(
            "s",
            "toggle_suspend",
            N_("Suspend"),
            show=False,
            tooltip=N_("suspend (again: unsuspend)"),
        ),
        Binding("b", "bury", N_("Bury"), show=False, tooltip=N_("bury until tomorrow")),
        FLAG_BINDING,
        EDIT_BINDING,
        DRILL_BINDING,
        Binding("escape,q", "close", N_("Back"), key_display="esc", tooltip=N_("back")),
    ]
    WIDGET_KEYS = [
        ("↑ ↓ PgDn", N_("move in the list")),
    ]

    def __init__(self, **filters: str | None) -> None:
        super().__init__()
        self.filters: dict[str, str | None] = {name: filters.get(name) for name in FILTERS}
        self.search = ""
        self.sort: str | None = None
        self.today: date | None = None
        self.cards: list[BrowsedCard] = []  # the matches read so far, from the first
        self.total = 0  # how many match
        self.listing = 0  # the latest listing asked for: an older one's rows are dropped
        self.asking_more = False
        self.widths = (0, 0, 0)  # the columns' widths, fixed when the list arrives
        self.choices: dict[str, list[str]] = {}
        self._search_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content(_("Loading the cards…")), id="cards-summary")
        yield Input(placeholder=_("/ search prompts, answers and notes"), id="cards-search")
        yield FittingTable(id="cards-table", cursor_type="row", zebra_stripes=True)
        yield Static(
            Content(_("Enter open · s suspend · b bury · p t l k filter · c clear · ? keys")),
            id="cards-hint",
        )
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#cards-table", DataTable).focus()
        self.load_choices()

    def on_screen_resume(self) -> None:
        # Also when the screen first shows; and back from a card's page or a drill, whose
        # changes the list then shows.
        self.load_cards()

    # --- loading ----------------------------------------------------------------------------

    def load_cards(self) -> None:
        """The list again from its first card (the filters, search or sort changed, or a card)."""
        self.listing += 1
        self.asking_more = False
        self.read_cards(self.listing, 0)

    @work(thread=True, exclusive=True, group="cards", exit_on_error=False)
    def read_cards(self, listing: int, offset: int) -> None:
        with failures_reported(self):
            today, cards, total = self.app.backend.list_cards_page(
                SHOWN_ROWS, offset, search=self.search or None, sort=self.sort, **self.filters
            )
            self.post_message(CardsListed(today, cards, total, offset, listing))

    @work(thread=True, group="card-choices", exit_on_error=False)
    def load_choices(self) -> None:
        with failures_reported(self):
            self.post_message(FilterChoicesLoaded(self.app.backend.filter_choices()))

    def on_filter_choices_loaded(self, message: FilterChoicesLoaded) -> None:
        self.choices = message.choices

    def on_call_failed(self, message: CallFailed) -> None:
        self.query_one("#cards-summary", Static).update(
            Content.from_markup(
                "[b]$what[/b] $e", what=_("Could not list the cards:"), e=str(message.error)
            )
        )

    def on_cards_listed(self, message: CardsListed) -> None:
        if message.listing != self.listing:
            return  # the filters changed since it was asked for
        table = self.query_one("#cards-table", DataTable)
        if message.offset:  # the next page, asked for at the table's end
            self.asking_more = False
            self.cards += message.cards
            self.add_page()
            return
        self.today, self.cards, self.total = message.today, message.cards, message.total
        shown = self.cards[:SHOWN_ROWS]
        self.widths = column_widths(shown, self.today, self.size.width)
        fill_table(
            table,
            [(_("Card"), "card"), (_("Title"), "title"), (_("State"), "state"), (_("Due"), "due")],
            [(card_row(card, self.today, self.widths), card.reference) for card in shown],
        )
        self.query_one("#cards-summary", Static).update(Content(self.summary()))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """At the last row shown, the next page of cards joins the table."""
        table = event.data_table
        if self.today is None:
            return  # no cards listed yet
        if event.cursor_row < table.row_count - 1 or table.row_count >= self.total:
            return
        if table.row_count < len(self.cards):
            self.add_page()
        elif not self.asking_more:
            self.asking_more = True
            self.read_cards(self.listing, len(self.cards))

    def add_page(self) -> None:
        """The next ``SHOWN_ROWS`` of the cards read onto the table's end."""
        table = self.query_one("#cards-table", DataTable)
        page = self.cards[table.row_count : table.row_count + SHOWN_ROWS]
        assert self.today is not None  # set with the cards
        add_rows(
            table, [(card_row(card, self.today, self.widths), card.reference) for card in page]
        )
        self.query_one("#cards-summary", Static).update(Content(self.summary()))

    def summary(self) -> str:
        count = self.total
        matched = ngettext("{count} card", "{count} cards", count).format(
            count=shown_numbers.count(count)
        )
        shown = self.query_one("#cards-table", DataTable).row_count
        if count > shown:
            matched += " " + _("({shown} shown, more at the end)").format(
                shown=shown_numbers.count(shown)
            )
        narrowed = [f"{_(name)} {value}" for name, value in self.filters.items() if value]
        if self.search:
            narrowed.append(_("text “{text}”").format(text=printable(self.search)))
        sort = _(SORT_NAMES[self.sort]) if self.sort else _("pack order")
        return _("{matched} · {narrowed} · by {sort}").format(
            matched=matched, narrowed=", ".join(narrowed) or _("all"), sort=sort
        )

    # --- searching, filtering, sorting -----------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#cards-search", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(SEARCH_PAUSE, self._search_now)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._search_now()
        self.query_one("#cards-table", DataTable).focus()

    def _search_now(self) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        text = self.query_one("#cards-search", Input).value.strip()
        if text != self.search:
            self.search = text
            self.load_cards()

    def action_filter(self, name: str) -> None:
        from kvdrill.app.tui.screens.pick import PickScreen

        values = list(STATES) if name == "state" else self.choices.get(name, [])
        options = [(ANY, _("any {filter}").format(filter=_(name))), *((v, v) for v in values)]

        def picked(choice: str | None) -> None:
            if choice is not None:
                self.filters[name] = None if choice == ANY else choice
                self.load_cards()

        current = self.filters[name] or ANY
        title = _("Only the cards of this {filter}").format(filter=_(name))
        self.app.push_screen(PickScreen(title, options, current), picked)

    def action_clear_filters(self) -> None:
        self.filters = dict.fromkeys(FILTERS)
        self.query_one("#cards-search", Input).value = ""
        self.search = ""
        self.load_cards()

    def action_sort(self) -> None:
        from kvdrill.app.tui.screens.pick import PickScreen

        options = [(ANY, _("pack order")), *((key, _(SORT_NAMES[key])) for key in SORT_KEYS)]

        def picked(choice: str | None) -> None:
            if choice is not None:
                self.sort = None if choice == ANY else choice
                self.load_cards()

        self.app.push_screen(PickScreen(_("Sort the cards by"), options, self.sort or ANY), picked)

    # --- the highlighted card ----------------------------------------------------------------

    def highlighted(self) -> str | None:
        table = self.query_one("#cards-table", DataTable)
        if table.row_count == 0:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def highlighted_card(self) -> BrowsedCard | None:
        reference = self.highlighted()
        return next((card for card in self.cards if card.reference == reference), None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_card()

    def action_open_card(self) -> None:
        from kvdrill.app.tui.screens.card_page import CardPageScreen

        reference = self.highlighted()
        if reference is not None:
            self.app.push_screen(CardPageScreen(reference))

    def action_toggle_suspend(self) -> None:
        card = self.highlighted_card()
        if card is not None:
            self.act_on(card.reference, "unsuspend" if card.suspended else "suspend")

    def action_bury(self) -> None:
        if (reference := self.highlighted()) is not None:
            self.act_on(reference, "bury")

    def action_flag(self) -> None:
        card = self.highlighted_card()
        if card is not None:
            self.pick_flag(card.reference, card.flag)

    def action_edit(self) -> None:
        if (reference := self.highlighted()) is not None:
            self.edit_card(reference)

    def action_drill(self) -> None:
        if (reference := self.highlighted()) is not None:
            self.drill_card(reference)

    def card_changed(self, reference: str) -> None:
        self.load_cards()

    def action_close(self) -> None:
        if self.focused is self.query_one("#cards-search", Input):
            self.query_one("#cards-table", DataTable).focus()
            return
        self.dismiss(None)


def column_widths(cards: list[BrowsedCard], today: date, width: int) -> tuple[int, int, int]:
    """The card id, title and state columns' widths, so the four columns (the due day takes
    10) fit ``width``: each column has a cell of padding on either side, the scrollbar and
    the table's edges take three."""
    card_width = min(28, max([4, *(len(card.reference) for card in cards)]))
    state_width = min(16, max([5, *(len(state_text(card, today)) for card in cards)]))
    title_width = max(8, width - 3 - 8 - card_width - state_width - 10)
    return card_width, title_width, state_width


def card_row(card: BrowsedCard, today: date, widths: tuple[int, int, int]) -> list[Any]:
    """A card's cells: its id and title cut to fit (an ellipsis marks the cut), its state with
    the flag in its colour, the due day."""
    card_width, title_width, state_width = widths
    state = Text(cut(state_text(card, today), state_width))
    if card.flag:
        start = state.plain.rfind(_(card.flag))
        if start >= 0:
            state.stylize(FLAG_STYLES.get(card.flag, "bold"), start)
    due = card.due_day.isoformat() if card.due_day and card.reviews else "-"
    return [
        cut(printable(card.reference), card_width),
        cut(printable(card.title), title_width),
        state,
        due,
    ]
