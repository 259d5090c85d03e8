"""The end of a session: what was done, how well, what comes back, what was missed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Static

from kvdrill.app import shown_numbers
from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.engine.errors import printable
from kvdrill.engine.study.rules import LEECH_LAPSES
from kvdrill.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from kvdrill.app.services.drill import SessionSummary


def _duration(seconds: float) -> str:
    whole = int(round(seconds))
    if whole < 60:
        return _("{seconds} s").format(seconds=whole)
    return _("{minutes} min {seconds} s").format(minutes=whole // 60, seconds=f"{whole % 60:02d}")


def _cards(count: int) -> str:
    return ngettext("{count} card", "{count} cards", count).format(count=shown_numbers.count(count))


def _rows(rows: list[tuple[str, str, dict[str, str]]]) -> list[Content]:
    """Label and figures, the figures lined up after the longest label in the language shown."""
    width = max(len(label) for label, _markup, _values in rows) + 4
    return [
        Content(label.ljust(width)) + Content.from_markup(markup, **values)
        for label, markup, values in rows
    ]


def summary_lines(summary: SessionSummary | None) -> list[Content]:
    """The summary as lines of literal text (topics and titles come from packs)."""
    if summary is None or not summary.cards_done:
        return [
            Content.from_markup("[b]$text[/b]", text=_("Nothing to drill right now.")),
            Content(""),
            *[
                Content(line)
                for line in _(
                    "No card is due and today's new cards are done. Come back tomorrow,\n"
                    "import a pack with i, or learn more new cards\n"
                    "today with: kvdrill drill --new 5"
                ).split("\n")
            ],
        ]
    cards = summary.cards_done
    answers = summary.answers
    lines = [Content.from_markup("[b]$text[/b]", text=_("Session done.")), Content("")]
    rows: list[tuple[str, str, dict[str, str]]] = []
    if summary.practised:
        rows.append((_("Practised"), "[b]$m[/b]", {"m": summary.practised}))
    rows.append(
        (
            _("Cards done"),
            _("[b]$n[/b]  ($a answers, repeats included)"),
            {"n": shown_numbers.count(cards), "a": shown_numbers.count(answers)},
        )
    )
    accuracy = summary.accuracy
    if accuracy is not None:
        rows.append(
            (
                _("Accuracy"),
                _("[b]$a[/b] right at the first try"),
                {"a": shown_numbers.percent(accuracy)},
            )
        )
    rows.append(
        (
            _("Time spent"),
            _("[b]$t[/b]  ($a answering)"),
            {"t": _duration(summary.seconds), "a": _duration(summary.answer_seconds)},
        )
    )
    back = summary.session_due_tomorrow
    rows.append(
        (
            _("Back tomorrow"),
            _("[b]$n[/b] of these $cards"),
            {"n": shown_numbers.count(back), "cards": _cards(cards)},
        )
    )
    others = summary.others_due_tomorrow
    if others:
        rows.append(
            (
                "",
                _("and $cards from the rest of your collection"),
                {"cards": _cards(others)},
            )
        )
    lines += _rows(rows)
    missed = summary.topics_missed
    lines.append(Content(""))
    if missed:
        lines.append(Content.from_markup("[b]$text[/b]", text=_("Topics missed")))
        for topic, count in missed:
            times = ngettext("{count} time", "{count} times", count).format(count=count)
            lines.append(Content(f"  · {printable(topic)}: {times}"))
    else:
        lines.append(Content(_("No topic missed.")))
    leeches = summary.new_leeches
    if leeches:
        lines.append(Content(""))
        lines.append(
            Content.from_markup(
                _("[b]New leeches[/b] (missed $n times; rewrite them?)"), n=str(LEECH_LAPSES)
            )
        )
        lines.extend(Content(f"  · {printable(title)}") for title in leeches)
    return lines


class SummaryScreen(KvdrillScreen[None]):
    """Shown when the queue is empty."""

    BINDINGS = [
        Binding("enter,h,escape", "app.go_home", N_("Home"), tooltip=N_("back home")),
        Binding(
            "d", "drill_again", N_("Drill again"), tooltip=N_("drill again (anything still due)")
        ),
        Binding("s", "app.open_stats", N_("Stats"), tooltip=N_("stats")),
        Binding("i", "app.open_import", N_("Import"), show=False, tooltip=N_("import packs")),
        Binding("q", "app.quit", N_("Quit"), tooltip=N_("quit (every answer is already saved)")),
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
