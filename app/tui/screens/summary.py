"""The end of a session: what was done, how well, what comes back, what was missed."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from kvdrill.app.tui.screens.card_text import field

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


def summary_lines(summary: Any) -> list[Content]:
    """The summary as lines of literal text (topics and titles come from packs)."""
    if summary is None or not field(summary, "cards_done", 0):
        return [
            Content.from_markup("[b]Nothing to drill right now.[/b]"),
            Content(""),
            Content("No card is due and today's new cards are done. Come back tomorrow,"),
            Content("import a pack with i, or learn more new cards"),
            Content("today with: kvdrill drill --new 5"),
        ]
    cards = int(field(summary, "cards_done", 0))
    answers = int(field(summary, "answers", cards))
    lines = [Content.from_markup("[b]Session done.[/b]"), Content("")]
    lines.append(
        Content.from_markup(
            "Cards done       [b]$n[/b]  ($a answers, repeats included)",
            n=str(cards),
            a=str(answers),
        )
    )
    accuracy = field(summary, "accuracy", None)
    if accuracy is not None:
        lines.append(
            Content.from_markup(
                "Accuracy         [b]$a[/b] right at the first try", a=f"{round(100 * accuracy)}%"
            )
        )
    lines.append(
        Content.from_markup("Time spent       [b]$t[/b]", t=_duration(field(summary, "seconds", 0)))
    )
    lines.append(
        Content.from_markup(
            "Back tomorrow    [b]$n[/b] card(s)", n=str(field(summary, "due_tomorrow", 0))
        )
    )
    missed = list(field(summary, "topics_missed", []) or [])
    lines.append(Content(""))
    if missed:
        lines.append(Content.from_markup("[b]Topics missed[/b]"))
        for topic, count in missed:
            times = "time" if count == 1 else "times"
            lines.append(Content(f"  · {topic}: {count} {times}"))
    else:
        lines.append(Content("No topic missed."))
    leeches = list(field(summary, "new_leeches", []) or [])
    if leeches:
        lines.append(Content(""))
        lines.append(Content.from_markup("[b]New leeches[/b] (missed 8 times; rewrite them?)"))
        lines.extend(Content(f"  · {title}") for title in leeches)
    return lines


class SummaryScreen(Screen[None]):
    """Shown when the queue is empty."""

    KEYS = KEYS
    BINDINGS = [
        Binding("enter,h,escape", "app.go_home", "Home"),
        Binding("d", "drill_again", "Drill again"),
        Binding("s", "app.open_stats", "Stats"),
        Binding("i", "app.open_import", "Import", show=False),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, summary: Any) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="summary-body"):
            yield Static(Content("\n").join(summary_lines(self.summary)), id="summary-text")
        yield Footer()

    def action_drill_again(self) -> None:
        self.app.action_go_home()
        self.app.action_start_drill()
