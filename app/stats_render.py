"""Plain-text rendering of a stats report: tables and terminal charts, shared by
``kvdrill stats`` and the stats screen."""

from __future__ import annotations

from kvdrill.app import shown_numbers
from kvdrill.app.text_table import table_lines as fitted_table
from kvdrill.app.text_table import wrapped
from kvdrill.engine.study.stats_report import (
    MIN_GROUP_LEARNERS,
    MIN_REVIEWS,
    WEAK_SCORE,
    DayCount,
    GroupReport,
    GroupTopic,
    PredictedRecall,
    StatsReport,
    TopicStats,
    mistake_words,
)
from kvdrill.i18n import N_, _, ngettext

SHADES = " ░▒▓█"
BARS = " ▁▂▃▄▅▆▇█"


def percent(value: float | None) -> str:
    return "-" if value is None else shown_numbers.percent(value)


def number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else shown_numbers.decimal(value, digits)


def trend_arrow(trend: float | None) -> str:
    if trend is None or abs(trend) < 0.02:
        return "="
    # Translators: a topic's trend column, kept as short as the column (at most 7 letters).
    return _("worse") if trend > 0 else _("better")


WEEKDAYS = [N_("Mon"), N_("Tue"), N_("Wed"), N_("Thu"), N_("Fri"), N_("Sat"), N_("Sun")]


def heatmap_lines(days: list[DayCount]) -> list[str]:
    """Seven rows (Mon..Sun), one column per week, darker for more reviews."""
    if not days:
        return []
    peak = max(d.reviews for d in days) or 1
    first_monday_offset = days[0].day.weekday()
    cells = [None] * first_monday_offset + days
    weeks = (len(cells) + 6) // 7
    rows = []
    # The names padded to one width: the weeks' columns start in one column.
    names = [_(name) for name in WEEKDAYS]
    widest = max(len(name) for name in names)
    for weekday, name in enumerate(names):
        line = []
        for week in range(weeks):
            index = week * 7 + weekday
            cell = cells[index] if index < len(cells) else None
            if cell is None:
                line.append(" ")
            elif cell.reviews == 0:
                line.append("·")
            else:
                line.append(SHADES[1 + min(3, (cell.reviews * 4 - 1) // peak)])
        rows.append(f"{name.ljust(widest)} {''.join(line)}")
    return rows


def bar_line(days: list[DayCount]) -> str:
    peak = max((d.reviews for d in days), default=0) or 1
    return "".join(
        BARS[0] if d.reviews == 0 else BARS[max(1, round(d.reviews * 8 / peak))] for d in days
    )


def shown_topics(topics: list[TopicStats]) -> list[TopicStats]:
    """The rows to show: a topic with the very same cards as another is named on that one's row."""
    return [topic for topic in topics if topic.same_cards_as is None]


def topic_label(topic: TopicStats, topics: list[TopicStats]) -> str:
    """``pack:p1``; ``pack:p1 & lesson:5`` when lesson 5 holds exactly the same cards;
    ``lesson:3 & 2 more`` when several do (kept short: the numbers must fit 80 columns)."""
    name = f"{topic.kind}:{topic.topic}"
    twins = [f"{t.kind}:{t.topic}" for t in topics if t.same_cards_as == name]
    if not twins:
        return name
    if len(twins) == 1:
        return f"{name} & {twins[0]}"
    return _("{name} & {count} more").format(name=name, count=len(twins))


def forecast_axis(days: list[DayCount]) -> str:
    """Day labels under ``bar_line``: today, then every week (+7d ...)."""
    line = _("today")
    for offset in range(7, len(days), 7):
        # Translators: a day on the forecast's axis, this many days from today; short.
        label = _("+{days}d").format(days=offset)
        line = line.ljust(offset) + label if len(line) < offset else line
    return line


def forecast_heading(days: list[DayCount]) -> str:
    due = sum(d.reviews for d in days)
    peak = max((d.reviews for d in days), default=0)
    return _("Due per day, next {days} days: {due} (peak {peak})").format(
        days=len(days), due=shown_numbers.count(due), peak=shown_numbers.count(peak)
    )


def topic_row(topic: TopicStats, topics: list[TopicStats] | None = None) -> list[str]:
    return [
        topic_label(topic, topics or []),
        number(topic.score),
        shown_numbers.count(topic.recent_reviews),
        percent(topic.accuracy),
        percent(topic.lapse_rate),
        trend_arrow(topic.trend),
        number(topic.mean_easiness),
        number(topic.mean_seconds, 0),
        shown_numbers.count(topic.due_next_7_days),
        shown_numbers.count(topic.leeches),
    ]


# "miss" is the share of first answers of a day graded below 3, a brand-new card's first
# answer included: not a lapse rate (a lapse is a learned card forgotten).
# The headers are short so the table fits 80 columns; this says what the short ones mean.
HEADER_MEANING = N_(
    "revs: recent reviews · miss: first answers of a day graded below 3, new cards included · "
    "due7d: due in the next 7 days"
)

# The column keys (the sort names); each column's header is the key translated.
TOPIC_HEADERS = [
    N_("topic"),
    N_("weak"),
    N_("revs"),
    N_("acc"),
    N_("miss"),
    N_("trend"),
    N_("EF"),
    N_("sec"),
    N_("due7d"),
    N_("leech"),
]


def mistake_rows(report: StatsReport) -> list[tuple[str, str]]:
    """(code, sentence) of each mistake worth a line: among the last 10, or recent."""
    total_last = sum(m.of_last_10 for m in report.mistakes)
    window = report.window_days
    rows = []
    for m in report.mistakes:
        said = _(mistake_words(m.code))
        words = f"{said[0].upper()}{said[1:]}"
        if m.of_last_10:
            sentence = _(
                "{words} in {count} of your last {last} diagnosed mistakes ({recent} in {days} "
                "days)."
            )
            rows.append(
                (
                    m.code,
                    sentence.format(
                        words=words,
                        count=m.of_last_10,
                        last=total_last,
                        recent=shown_numbers.count(m.recent),
                        days=window,
                    ),
                )
            )
        elif m.recent:
            sentence = _("{words}: {recent} in {days} days.")
            rows.append(
                (
                    m.code,
                    sentence.format(words=words, recent=shown_numbers.count(m.recent), days=window),
                )
            )
    return rows


def mistake_sentences(report: StatsReport) -> list[str]:
    return [sentence for _, sentence in mistake_rows(report)]


def practise_hint(code: str) -> str:
    """The command that practises a mistake, as the stats suggest it."""
    return _("practise one: {command}").format(command=f"kvdrill drill --mistake {code}")


def table_lines(rows: list[list[str]]) -> list[str]:
    """Rows of cells (the first is the header) as left-aligned columns, indented two spaces;
    the topic (first) column wraps so the table fits 80 columns."""
    return fitted_table(rows, wrap=0, indent="  ")


GROUP_HEADERS = [N_("topic"), N_("weak"), N_("judged"), N_("reviews"), N_("acc")]


def headers(keys: list[str]) -> list[str]:
    """The translated headers of the columns ``keys``."""
    return [_(key) for key in keys]


def group_row(topic: GroupTopic) -> list[str]:
    return [
        f"{topic.kind}:{topic.topic}",
        shown_numbers.count(topic.learners_weak),
        shown_numbers.count(topic.learners_judged),
        shown_numbers.count(topic.recent_reviews),
        percent(topic.accuracy),
    ]


def render_group_text(report: GroupReport, max_topics: int = 20) -> str:
    learners = ngettext("{count} learner", "{count} learners", report.learners)
    out = wrapped(
        _("kvdrill stats --group — {learners}, study day {day}, window {days} days").format(
            learners=learners.format(count=shown_numbers.count(report.learners)),
            day=report.today,
            days=report.window_days,
        )
    )
    out.append("")
    out += wrapped(
        _(
            "Weak topics across the group (weak: learners scoring {score} or more; judged: "
            "learners with {reviews}+ recent reviews; acc: the group's recent reviews graded 3+):"
        ).format(score=shown_numbers.decimal(WEAK_SCORE, 1), reviews=MIN_REVIEWS)
    )
    out += table_lines(
        [headers(GROUP_HEADERS)] + [group_row(t) for t in report.topics[:max_topics]]
    )
    if len(report.topics) > max_topics:
        out.append("  " + more_line(len(report.topics) - max_topics))
    if report.hidden_topics:
        out += wrapped(hidden_topics_note(report), indent="  ")
    return "\n".join(out)


def hidden_topics_note(report: GroupReport) -> str:
    """Why some topics are missing from a group view ("" when none is)."""
    if not report.hidden_topics:
        return ""
    return ngettext(
        "{count} topic not shown: fewer than {least} learners answered in it, and figures from "
        "one or two would single them out",
        "{count} topics not shown: fewer than {least} learners answered in each, and figures "
        "from one or two would single them out",
        report.hidden_topics,
    ).format(count=shown_numbers.count(report.hidden_topics), least=MIN_GROUP_LEARNERS)


def more_line(count: int) -> str:
    """Under a table cut short: how many rows are left out."""
    return _("... and {count} more (use --json for all)").format(count=shown_numbers.count(count))


def render_text(report: StatsReport, max_topics: int = 15, practise: str | None = None) -> str:
    """The report as text; ``practise``: a mistake code the hint closing the mistakes names."""
    out = [
        *wrapped(
            _("kvdrill stats — profile {profile}, study day {day}, window {days} days").format(
                profile=report.profile, day=report.today, days=report.window_days
            )
        ),
        _("{reviews} in all; streak {streak}.").format(
            reviews=reviews_count(report.total_reviews), streak=days_count(report.streak_days)
        ),
        "",
        *wrapped(
            _(
                "Weakest topics (weak score 0-1, higher is weaker; '-' until {count} recent "
                "reviews):"
            ).format(count=MIN_REVIEWS)
        ),
    ]
    topics = shown_topics(report.topics)
    rows = [topic_row(t, report.topics) for t in topics[:max_topics]]
    out += table_lines([headers(TOPIC_HEADERS), *rows])
    if len(topics) > max_topics:
        out.append("  " + more_line(len(topics) - max_topics))
    out += wrapped(f"({_(HEADER_MEANING)})", indent="  ", hang="   ")
    out += ["", _("Mistakes:")]
    sentences = mistake_sentences(report)
    for line in sentences:
        out += wrapped(line, indent="  ", hang="    ")
    if not sentences:
        out.append("  " + _("none diagnosed yet"))
    if practise is not None and report.mistakes:
        out.append("  " + practise_hint(practise))
    weeks = len(report.heatmap) // 7
    out += ["", _("Reviews per day, last {count} weeks:").format(count=weeks)]
    out += ["  " + line for line in heatmap_lines(report.heatmap)]
    out += [
        "",
        forecast_heading(report.forecast) + ":",
        "  " + bar_line(report.forecast),
        "  " + forecast_axis(report.forecast),
    ]
    out += ["", _("Retention by week (first answers graded 3 or more):")]
    out.append("  " + " ".join(percent(w.retention).rjust(4) for w in report.retention))
    if report.predicted_recall is not None:
        out += ["", *wrapped(recall_line(report.predicted_recall))]
    return "\n".join(out)


def recall_line(recall: PredictedRecall) -> str:
    """Predicted recall of the due cards, saying which scheduler predicts it and how."""
    how = (
        _("FSRS-6 retrievability")
        if recall.scheduler == "fsrs"
        else _(
            "SM-2 has no memory model; approximated as recall falling to {share} on the due day"
        ).format(share=shown_numbers.percent(0.9))
    )
    if recall.mean_recall is None:
        return _("Predicted recall of due cards: none due ({how}).").format(how=how)
    due = ngettext(
        "Predicted recall of the {count} due card: {recall} ({how}).",
        "Predicted recall of the {count} due cards: {recall} ({how}).",
        recall.due_cards,
    )
    return due.format(
        count=shown_numbers.count(recall.due_cards), recall=percent(recall.mean_recall), how=how
    )


def reviews_count(count: int) -> str:
    """``1 review``, ``1,234 reviews``."""
    return ngettext("{count} review", "{count} reviews", count).format(
        count=shown_numbers.count(count)
    )


def days_count(count: int) -> str:
    """``1 day``, ``12 days``."""
    return ngettext("{count} day", "{count} days", count).format(count=shown_numbers.count(count))
