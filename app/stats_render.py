"""Plain-text rendering of a stats report: tables and terminal charts, shared by
``kvdrill stats`` and the stats screen."""

from __future__ import annotations

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
)
from kvdrill.engine.wording import plural

SHADES = " ░▒▓█"
BARS = " ▁▂▃▄▅▆▇█"


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def trend_arrow(trend: float | None) -> str:
    if trend is None or abs(trend) < 0.02:
        return "="
    return "worse" if trend > 0 else "better"


def heatmap_lines(days: list[DayCount]) -> list[str]:
    """Seven rows (Mon..Sun), one column per week, darker for more reviews."""
    if not days:
        return []
    peak = max(d.reviews for d in days) or 1
    first_monday_offset = days[0].day.weekday()
    cells = [None] * first_monday_offset + days
    weeks = (len(cells) + 6) // 7
    rows = []
    for weekday, name in enumerate(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]):
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
        rows.append(f"{name} {''.join(line)}")
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
    return f"{name} & {twins[0]}" if len(twins) == 1 else f"{name} & {len(twins)} more"


def forecast_axis(days: list[DayCount]) -> str:
    """Day labels under ``bar_line``: today, then every week (+7d ...)."""
    line = "today"
    for offset in range(7, len(days), 7):
        label = f"+{offset}d"
        line = line.ljust(offset) + label if len(line) < offset else line
    return line


def forecast_heading(days: list[DayCount]) -> str:
    due = sum(d.reviews for d in days)
    peak = max((d.reviews for d in days), default=0)
    return f"Due per day, next {len(days)} days: {due} (peak {peak})"


def topic_row(topic: TopicStats, topics: list[TopicStats] | None = None) -> list[str]:
    return [
        topic_label(topic, topics or []),
        number(topic.score),
        str(topic.recent_reviews),
        percent(topic.accuracy),
        percent(topic.lapse_rate),
        trend_arrow(topic.trend),
        number(topic.mean_easiness),
        number(topic.mean_seconds, 0),
        str(topic.due_next_7_days),
        str(topic.leeches),
    ]


# "miss" is the share of first answers of a day graded below 3, a brand-new card's first
# answer included: not a lapse rate (a lapse is a learned card forgotten).
MISSED_MEANING = "miss: first answers of a day graded below 3, new cards included"
# The headers are short so the table fits 80 columns; this says what the short ones mean.
HEADER_MEANING = f"revs: recent reviews · {MISSED_MEANING} · due7d: due in the next 7 days"

TOPIC_HEADERS = [
    "topic",
    "weak",
    "revs",
    "acc",
    "miss",
    "trend",
    "EF",
    "sec",
    "due7d",
    "leech",
]


def mistake_rows(report: StatsReport) -> list[tuple[str, str]]:
    """(code, sentence) of each mistake worth a line: among the last 10, or recent."""
    total_last = sum(m.of_last_10 for m in report.mistakes)
    window = report.window_days
    rows = []
    for m in report.mistakes:
        words = f"{m.words[0].upper()}{m.words[1:]}"
        if m.of_last_10:
            rows.append(
                (
                    m.code,
                    f"{words} in {m.of_last_10} of your last {total_last} diagnosed mistakes "
                    f"({m.recent} in {window} days).",
                )
            )
        elif m.recent:
            rows.append((m.code, f"{words}: {m.recent} in {window} days."))
    return rows


def mistake_sentences(report: StatsReport) -> list[str]:
    return [sentence for _, sentence in mistake_rows(report)]


def practise_hint(code: str) -> str:
    """The command that practises a mistake, as the stats suggest it."""
    return f"practise one: kvdrill drill --mistake {code}"


def table_lines(rows: list[list[str]]) -> list[str]:
    """Rows of cells (the first is the header) as left-aligned columns, indented two spaces;
    the topic (first) column wraps so the table fits 80 columns."""
    return fitted_table(rows, wrap=0, indent="  ")


GROUP_HEADERS = ["topic", "weak", "judged", "reviews", "acc"]


def group_row(topic: GroupTopic) -> list[str]:
    return [
        f"{topic.kind}:{topic.topic}",
        str(topic.learners_weak),
        str(topic.learners_judged),
        str(topic.recent_reviews),
        percent(topic.accuracy),
    ]


def render_group_text(report: GroupReport, max_topics: int = 20) -> str:
    out = wrapped(
        f"kvdrill stats --group — {plural(report.learners, 'learner')}, study day {report.today}, "
        f"window {report.window_days} days"
    )
    out.append("")
    out += wrapped(
        f"Weak topics across the group (weak: learners scoring {WEAK_SCORE} or more; judged: "
        f"learners with {MIN_REVIEWS}+ recent reviews; acc: the group's recent reviews graded 3+):"
    )
    out += table_lines([GROUP_HEADERS] + [group_row(t) for t in report.topics[:max_topics]])
    if len(report.topics) > max_topics:
        out.append(f"  ... and {len(report.topics) - max_topics} more (use --json for all)")
    if report.hidden_topics:
        out += wrapped(hidden_topics_note(report), indent="  ")
    return "\n".join(out)


def hidden_topics_note(report: GroupReport) -> str:
    """Why some topics are missing from a group view ("" when none is)."""
    if not report.hidden_topics:
        return ""
    one = report.hidden_topics == 1
    return (
        f"{plural(report.hidden_topics, 'topic')} not shown: fewer than {MIN_GROUP_LEARNERS} "
        f"learners answered in {'it' if one else 'each'}, and figures from one or two would "
        "single them out"
    )


def render_text(report: StatsReport, max_topics: int = 15, practise: str | None = None) -> str:
    """The report as text; ``practise``: a mistake code the hint closing the mistakes names."""
    out = [
        *wrapped(
            f"kvdrill stats — profile {report.profile}, study day {report.today}, "
            f"window {report.window_days} days"
        ),
        f"{plural(report.total_reviews, 'review')} in all; "
        f"streak {plural(report.streak_days, 'day')}.",
        "",
        "Weakest topics (weak score 0-1, higher is weaker; '-' until 5 recent reviews):",
    ]
    topics = shown_topics(report.topics)
    out += table_lines([TOPIC_HEADERS] + [topic_row(t, report.topics) for t in topics[:max_topics]])
    if len(topics) > max_topics:
        out.append(f"  ... and {len(topics) - max_topics} more (use --json for all)")
    out += wrapped(f"({HEADER_MEANING})", indent="  ", hang="   ")
    out += ["", "Mistakes:"]
    sentences = mistake_sentences(report)
    for line in sentences:
        out += wrapped(line, indent="  ", hang="    ")
    if not sentences:
        out.append("  none diagnosed yet")
    if practise is not None and report.mistakes:
        out.append("  " + practise_hint(practise))
    out += ["", f"Reviews per day, last {len(report.heatmap) // 7} weeks:"]
    out += ["  " + line for line in heatmap_lines(report.heatmap)]
    out += [
        "",
        forecast_heading(report.forecast) + ":",
        "  " + bar_line(report.forecast),
        "  " + forecast_axis(report.forecast),
    ]
    out += ["", "Retention by week (first answers graded 3 or more):"]
    out.append("  " + " ".join(percent(w.retention).rjust(4) for w in report.retention))
    if report.predicted_recall is not None:
        out += ["", *wrapped(recall_line(report.predicted_recall))]
    return "\n".join(out)


def recall_line(recall: PredictedRecall) -> str:
    """Predicted recall of the due cards, saying which scheduler predicts it and how."""
    how = (
        "FSRS-6 retrievability"
        if recall.scheduler == "fsrs"
        else "SM-2 has no memory model; approximated as recall falling to 90% on the due day"
    )
    if recall.mean_recall is None:
        return f"Predicted recall of due cards: none due ({how})."
    return (
        f"Predicted recall of the {plural(recall.due_cards, 'due card')}: "
        f"{percent(recall.mean_recall)} ({how})."
    )
