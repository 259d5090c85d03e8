"""Plain-text rendering of a stats report: tables and terminal charts, shared by
``kvdrill stats`` and the stats screen."""

from __future__ import annotations

from kvdrill.engine.study.stats_report import (
    MIN_REVIEWS,
    WEAK_SCORE,
    DayCount,
    GroupReport,
    GroupTopic,
    StatsReport,
    TopicStats,
)

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


def topic_row(topic: TopicStats) -> list[str]:
    return [
        f"{topic.kind}:{topic.topic}",
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


TOPIC_HEADERS = [
    "topic",
    "weak",
    "reviews",
    "acc",
    "lapse",
    "trend",
    "EF",
    "sec",
    "due 7d",
    "leech",
]


def mistake_sentences(report: StatsReport) -> list[str]:
    total_last = sum(m.of_last_10 for m in report.mistakes)
    lines = []
    for m in report.mistakes:
        if m.of_last_10:
            lines.append(
                f"{m.words[0].upper()}{m.words[1:]} in {m.of_last_10} of your last "
                f"{total_last} diagnosed mistakes ({m.recent} in {report.window_days} days)."
            )
        elif m.recent:
            lines.append(
                f"{m.words[0].upper()}{m.words[1:]}: {m.recent} in {report.window_days} days."
            )
    return lines


def table_lines(rows: list[list[str]]) -> list[str]:
    """Rows of cells (the first is the header) as left-aligned columns, indented two spaces."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows
    ]


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
    out = [
        f"kvdrill stats --group — {report.learners} learner(s), study day {report.today}, "
        f"window {report.window_days} days",
        "",
        f"Weak topics across the group (weak: learners scoring {WEAK_SCORE} or more; judged: "
        f"learners with {MIN_REVIEWS}+ recent reviews; acc: the group's recent reviews graded 3+):",
    ]
    out += table_lines([GROUP_HEADERS] + [group_row(t) for t in report.topics[:max_topics]])
    if len(report.topics) > max_topics:
        out.append(f"  ... and {len(report.topics) - max_topics} more (use --json for all)")
    return "\n".join(out)


def render_text(report: StatsReport, max_topics: int = 15) -> str:
    out = [
        f"kvdrill stats — profile {report.profile}, study day {report.today}, "
        f"window {report.window_days} days",
        f"{report.total_reviews} reviews in all; streak {report.streak_days} day(s).",
        "",
        "Weakest topics (weak score 0-1, higher is weaker; '-' until 5 recent reviews):",
    ]
    out += table_lines([TOPIC_HEADERS] + [topic_row(t) for t in report.topics[:max_topics]])
    if len(report.topics) > max_topics:
        out.append(f"  ... and {len(report.topics) - max_topics} more (use --json for all)")
    out += ["", "Mistakes:"]
    out += ["  " + line for line in mistake_sentences(report)] or ["  none diagnosed yet"]
    out += ["", f"Reviews per day, last {len(report.heatmap) // 7} weeks:"]
    out += ["  " + line for line in heatmap_lines(report.heatmap)]
    due = sum(d.reviews for d in report.forecast)
    out += [
        "",
        f"Due over the next 30 days ({due} cards; today first):",
        "  " + bar_line(report.forecast),
    ]
    out += ["", "Retention by week (first answers graded 3 or more):"]
    out.append("  " + " ".join(percent(w.retention).rjust(4) for w in report.retention))
    return "\n".join(out)
