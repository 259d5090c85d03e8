"""The stats screen: weak topics (sortable), mistakes in plain words, heatmap, forecast.

Enter on a topic dismisses the screen with ``(kind, topic)``, so whoever pushed it can start a
drill of that topic; Enter on a mistake with ``("mistake", code)``, for a session practising it
(``kvdrill drill --mistake CODE``). ``g`` switches to the group's weak topics (every profile in
the database, as counts) and back. Reports are built in a worker thread; the screen never blocks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Footer, Header, Static

from kvdrill.app import shown_numbers
from kvdrill.app.stats_render import (
    GROUP_HEADERS,
    HEADER_MEANING,
    TOPIC_HEADERS,
    bar_line,
    days_count,
    forecast_axis,
    forecast_heading,
    group_row,
    heatmap_lines,
    hidden_topics_note,
    mistake_rows,
    recall_line,
    reviews_count,
    shown_topics,
    topic_row,
)
from kvdrill.app.tui.messages import (
    CallFailed,
    ChartsLoaded,
    GroupReportLoaded,
    ReportLoaded,
    failures_reported,
)
from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.app.tui.widgets.tables import FittingTable, fill_table
from kvdrill.engine.study.stats_report import topic_order
from kvdrill.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from kvdrill.engine.study.stats_report import GroupReport, StatsReport

SORT_KEYS = {
    "weak": lambda t: (t.score is None, -(t.score or 0)),
    "revs": lambda t: -t.recent_reviews,
    "miss": lambda t: -(t.lapse_rate or 0),
    "acc": lambda t: t.accuracy if t.accuracy is not None else 2,
    "due7d": lambda t: -t.due_next_7_days,
    "topic": topic_order,
}


# What an 80-column screen leaves the table's cells: each column's padding (a column either
# side), the body's padding, its scrollbar and the table's own (a long table scrolls). The
# topic column takes what the other nine leave; a longer topic wraps in its row.
SCREEN_WIDTH = 80
TABLE_EDGES = 6
MIN_TOPIC_WIDTH = 10
MISTAKE_WIDTH = 54


class StatsScreen(KvdrillScreen[tuple[str, str] | None]):
    """Where the learner is weak, and a way to drill exactly that."""

    CSS_PATH = "../stats.tcss"
    BINDINGS = [
        Binding("escape,q", "close", N_("Back"), tooltip=N_("back")),
        Binding("o", "cycle_sort", N_("Sort"), tooltip=N_("sort the topics by the next column")),
        Binding("g", "toggle_group", N_("Group"), tooltip=N_("the group's weak topics, and back")),
        Binding(
            "v",
            "show_plots",
            N_("Charts"),
            tooltip=N_("scroll to the charts"),
        ),
        Binding(
            "enter",
            "drill_topic",
            N_("Drill topic"),
            show=True,
            tooltip=N_("drill the topic (or practise the mistake) under the cursor"),
        ),
    ]
    WIDGET_KEYS = [
        ("↓ ↑ / ← →", N_("move in a table / scroll it sideways")),
        ("Tab", N_("from the topics to the mistakes and back")),
        ("PgDn / PgUp", N_("scroll the screen")),
    ]

    def __init__(self, days: int = 30) -> None:
        super().__init__()
        self.days = days
        self.report: StatsReport | None = None
        self.sort_names = list(SORT_KEYS)
        self.sort_index = 0
        self.group_report: GroupReport | None = None
        self.showing_group = False
        self.has_mistakes = False

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-body"):
            yield Static(_("Loading stats…"), id="stats-summary")
            yield FittingTable(id="topics", cursor_type="row", zebra_stripes=True)
            yield Static("", id="mistakes")
            yield FittingTable(id="mistake-table", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="charts"):
                yield Static("", id="heatmap")
                yield Static("", id="forecast")
            yield Static("", id="stats-plots")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.load_report()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load_report(self) -> None:
        with failures_reported(self):
            self.post_message(ReportLoaded(self.app.backend.stats_report(self.days)))

    def closed(self) -> bool:
        """Whether the screen was closed (its widgets gone) before a worker's result came:
        keys typed ahead can leave it while the report is being built."""
        return not self.query("#stats-summary")

    def on_call_failed(self, message: CallFailed) -> None:
        if self.closed():
            return
        self.query_one("#stats-summary", Static).update(
            Content.from_markup(
                "[b]$what[/b] $e", what=_("Could not load the stats:"), e=str(message.error)
            )
        )

    def on_report_loaded(self, message: ReportLoaded) -> None:
        if self.closed():
            return
        self.show_report(message.report)
        self.load_plots(message.report)

    @work(thread=True, exclusive=True, group="stats-plots", exit_on_error=False)
    def load_plots(self, report: StatsReport) -> None:
        with failures_reported(self):
            self.post_message(ChartsLoaded(self.app.backend.stats_charts(report)))

    def on_charts_loaded(self, message: ChartsLoaded) -> None:
        from kvdrill.app.stats_charts import chart_lines

        if self.closed():
            return
        self.query_one("#stats-plots", Static).update(
            Content("\n".join(chart_lines(message.charts)))
        )

    def action_show_plots(self) -> None:
        self.query_one("#stats-body", VerticalScroll).scroll_to_widget(
            self.query_one("#stats-plots"), animate=False, top=True
        )

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load_group_report(self) -> None:
        with failures_reported(self):
            self.post_message(GroupReportLoaded(self.app.backend.group_report(self.days)))

    def on_group_report_loaded(self, message: GroupReportLoaded) -> None:
        if self.closed():
            return
        self.show_group_report(message.report)

    def action_toggle_group(self) -> None:
        self.showing_group = not self.showing_group
        self.query_one("#mistakes").display = not self.showing_group
        self.query_one("#mistake-table").display = not self.showing_group and self.has_mistakes
        self.query_one("#charts").display = not self.showing_group
        self.query_one("#stats-plots").display = not self.showing_group
        if not self.showing_group:
            if self.report is not None:
                self.show_report(self.report)
        elif self.group_report is None:
            self.query_one("#stats-summary", Static).update(_("Loading the group's stats…"))
            self.load_group_report()
        else:
            self.show_group_report(self.group_report)

    def show_group_report(self, report: GroupReport) -> None:
        self.group_report = report
        if not self.showing_group:
            return
        learners = ngettext("{count} learner", "{count} learners", report.learners)
        summary = _(
            "The group: {learners} · study day {day} · window {days} days · counts only, "
            "no one's notes (g: your own stats)"
        ).format(
            learners=learners.format(count=shown_numbers.count(report.learners)),
            day=report.today,
            days=report.window_days,
        )
        self.query_one("#stats-summary", Static).update(
            summary + (f"\n{hidden_topics_note(report)}" if report.hidden_topics else "")
        )
        fill_table(
            self.query_one("#topics", DataTable),
            [(_(header), header) for header in GROUP_HEADERS],
            [(group_row(topic), f"{topic.kind}\t{topic.topic}") for topic in report.topics],
        )

    def show_report(self, report: StatsReport) -> None:
        self.report = report
        if self.showing_group:
            return
        self.query_one("#stats-summary", Static).update(
            _(
                "Study day {day} · {reviews} · streak {streak} · window {days} days · "
                "sorted by {column} (o to change) · {meaning}"
            ).format(
                day=report.today,
                reviews=reviews_count(report.total_reviews),
                streak=days_count(report.streak_days),
                days=report.window_days,
                column=_(self.sort_names[self.sort_index]),
                meaning=_(HEADER_MEANING),
            )
        )
        self.show_topics()
        self.show_mistakes(report)
        self.query_one("#heatmap", Static).update(
            _("Reviews per day ({count} weeks)").format(count=len(report.heatmap) // 7)
            + "\n"
            + "\n".join(heatmap_lines(report.heatmap))
        )
        forecast = report.forecast
        recall = recall_line(report.predicted_recall) if report.predicted_recall else ""
        self.query_one("#forecast", Static).update(
            f"{forecast_heading(forecast)}\n{bar_line(forecast)}\n{forecast_axis(forecast)}\n"
            f"{recall}"
        )

    def show_mistakes(self, report: StatsReport) -> None:
        rows = mistake_rows(report)
        self.has_mistakes = bool(rows)
        heading = (
            _("Mistakes · Enter on one practises it") if rows else _("No diagnosed mistakes yet.")
        )
        self.query_one("#mistakes", Static).update(heading)
        table = self.query_one("#mistake-table", DataTable)
        table.display = self.has_mistakes
        fill_table(
            table,
            [(_("mistake"), "mistake"), (_("code"), "code")],
            [([sentence, code], code) for code, sentence in rows],
            wrap=(0, MISTAKE_WIDTH),
        )

    def show_topics(self) -> None:
        assert self.report is not None
        key = SORT_KEYS[self.sort_names[self.sort_index]]
        headers = [_(header) for header in TOPIC_HEADERS]
        rows = [
            (topic_row(topic, self.report.topics), f"{topic.kind}\t{topic.topic}")
            for topic in sorted(shown_topics(self.report.topics), key=key)
        ]
        others = sum(
            max([cell_len(headers[index]), *(cell_len(cells[index]) for cells, _key in rows)])
            for index in range(1, len(headers))
        )
        left = SCREEN_WIDTH - TABLE_EDGES - 2 * len(headers) - others
        fill_table(
            self.query_one("#topics", DataTable),
            list(zip(headers, TOPIC_HEADERS, strict=True)),
            rows,
            wrap=(0, max(MIN_TOPIC_WIDTH, left)),
        )

    def action_cycle_sort(self) -> None:
        self.sort_index = (self.sort_index + 1) % len(self.sort_names)
        if self.report is not None and not self.showing_group:
            self.show_report(self.report)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        name = str(event.column_key.value)
        if name in SORT_KEYS and self.report is not None and not self.showing_group:
            self.sort_index = self.sort_names.index(name)
            self.show_report(self.report)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "mistake-table":
            self.dismiss(("mistake", str(event.row_key.value)))
            return
        kind, topic = str(event.row_key.value).split("\t", 1)
        self.dismiss((kind, topic))

    def action_drill_topic(self) -> None:
        table = self.query_one("#topics", DataTable)
        if table.row_count == 0:
            return
        row_key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        kind, topic = str(row_key.value).split("\t", 1)
        self.dismiss((kind, topic))

    def action_close(self) -> None:
        self.dismiss(None)
