"""The end of a session: what was done, how well, what comes back, what was missed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Static

from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.engine.errors import printable
from kvdrill.engine.study.rules import LEECH_LAPSES

if TYPE_CHECKING:
    from kvdrill.app.services.drill import SessionSummary

KEYS = [
    ("Enter / h", "back home"),
    ("d", "drill again (anything still due)"),
    ("s", "stats"),
    ("i", "import packs"),
    ("q", "quit"),
    ("?", "this list"),
]


def _duration(seconds: float) -> str:
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60:02d} s"


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def summary_lines(summary: SessionSummary | None) -> list[Content]:
    """The summary as lines of literal text (topics and titles come from packs)."""
    if summary is None or not summary.cards_done:
        return [
            Content.from_markup("[b]Nothing to drill right now.[/b]"),
            Content(""),
            Content("No card is due and today's new cards are done. Come back tomorrow,"),
            Content("import a pack with i, or learn more new cards"),
            Content("today with: kvdrill drill --new 5"),
        ]
    cards = summary.cards_done
    answers = summary.answers
    lines = [Content.from_markup("[b]Session done.[/b]"), Content("")]
    if summary.practised:
        lines.append(Content.from_markup("Practised        [b]$m[/b]", m=summary.practised))
    lines.append(
        Content.from_markup(
            "Cards done       [b]$n[/b]  ($a answers, repeats included)",
            n=str(cards),
            a=str(answers),
        )
    )
    accuracy = summary.accuracy
    if accuracy is not None:
        lines.append(
            Content.from_markup(
                "Accuracy         [b]$a[/b] right at the first try", a=f"{round(100 * accuracy)}%"
            )
        )
    lines.append(
        Content.from_markup(
            "Time spent       [b]$t[/b]  ($a answering)",
            t=_duration(summary.seconds),
            a=_duration(summary.answer_seconds),
        )
    )
    back = summary.session_due_tomorrow
    lines.append(
        Content.from_markup(
            "Back tomorrow    [b]$n[/b] of these $cards", n=str(back), cards=_cards(cards)
        )
    )
    others = summary.others_due_tomorrow
    if others:
        lines.append(
            Content(f"                 and {_cards(others)} from the rest of your collection")
        )
    missed = summary.topics_missed
    lines.append(Content(""))
    if missed:
        lines.append(Content.from_markup("[b]Topics missed[/b]"))
        for topic, count in missed:
            times = "time" if count == 1 else "times"
            lines.append(Content(f"  · {printable(topic)}: {count} {times}"))
    else:
        lines.append(Content("No topic missed."))
    leeches = summary.new_leeches
    if leeches:
        lines.append(Content(""))
        lines.append(
            Content.from_markup(
                "[b]New leeches[/b] (missed $n times; rewrite them?)", n=str(LEECH_LAPSES)
            )
        )
        lines.extend(Content(f"  · {printable(title)}") for title in leeches)
    return lines


class SummaryScreen(KvdrillScreen[None]):
    """Shown when the queue is empty."""

    KEYS = KEYS
    BINDINGS = [
        Binding("enter,h,escape", "app.go_home", "Home"),
        Binding("d", "drill_again", "Drill again"),
        Binding("s", "app.open_stats", "Stats"),
        Binding("i", "app.open_import", "Import", show=False),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, summary: SessionSummary | None) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="summary-body"):
            yield Static(Content("\n").join(summary_lines(self.summary)), id="summary-text")
        yield Footer(compact=True)

    def action_drill_again(self) -> None:
        self.app.action_go_home()
        self.app.action_start_drill()
