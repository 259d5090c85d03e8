"""The stats charts as text: reviews and minutes per day, retention over time and the interval
distribution, drawn with block characters. One drawing for the stats screen and for
``kvdrill stats``; each line fits 80 columns."""

from __future__ import annotations

from collections.abc import Sequence

from kvdrill.app import shown_numbers
from kvdrill.engine.study.charts import ChartData
from kvdrill.i18n import _

BLOCKS = " ▁▂▃▄▅▆▇█"
HEIGHT = 5  # rows of a bar chart
AXIS = 6  # the scale's column, left of the bars
LONGEST_BAR = 50  # the interval chart's longest bar


def chart_lines(charts: ChartData) -> list[str]:
    """The four charts, a blank line between them."""
    days = charts.days
    lines = [_("Reviews per day, last {count} days").format(count=len(days))]
    lines += columns([day.reviews for day in days], _whole)
    lines.append(_day_axis(days))
    lines += ["", _("Minutes per day, last {count} days").format(count=len(days))]
    minutes = [day.minutes for day in days]
    # Under ten minutes at most, whole minutes would label the scale "0" top and bottom.
    lines += columns(minutes, _whole if max([*minutes, 0]) >= 10 else _tenths)
    lines.append(_day_axis(days))
    weeks = [week for week in charts.retention if week.retention is not None]
    lines += ["", _("Retention by week (first answers graded 3 or more)")]
    if weeks:
        lines += columns([100 * (week.retention or 0) for week in weeks], _percent, top=100)
        lines.append(
            " " * AXIS
            + _("weeks from {first} to {last}").format(
                first=weeks[0].week_start.isoformat(), last=weeks[-1].week_start.isoformat()
            )
        )
    else:
        lines.append(" " * AXIS + _("no answers yet"))
    lines += ["", _("Cards by interval (seen, not suspended)")]
    most = max([count for _label, count in charts.intervals] + [1])
    for label, count in charts.intervals:
        bar = "█" * round(LONGEST_BAR * count / most) if count else ""
        lines.append(f"{_(label):>{AXIS - 1}} {bar} {shown_numbers.count(count)}")
    return lines


def columns(values: Sequence[float], label, top: float | None = None) -> list[str]:
    """A bar per value, ``HEIGHT`` rows high in eighths of a row, a column and a space each;
    the scale (``label`` of the top) on the first row."""
    top = top or max([*values, 0]) or 1
    rows = []
    for row in range(HEIGHT, 0, -1):
        cells = []
        for value in values:
            eighths = round(8 * HEIGHT * min(value, top) / top) - 8 * (row - 1)
            cells.append(BLOCKS[max(0, min(8, eighths))])
        scale = label(top) if row == HEIGHT else (label(0) if row == 1 else "")
        rows.append(f"{scale:>{AXIS - 1}} " + " ".join(cells).rstrip())
    return rows


def _day_axis(days) -> str:
    """Under a day chart, under its bars: the day of the month of the first day and of every
    seventh after it."""
    marks = [f"{day.day:%d}" if index % 7 == 0 else "" for index, day in enumerate(days)]
    return (" " * AXIS + "".join(mark.ljust(2) for mark in marks)).rstrip()


def _whole(value: float) -> str:
    return shown_numbers.decimal(value, 0)


def _tenths(value: float) -> str:
    return shown_numbers.decimal(value, 1)


def _percent(value: float) -> str:
    return shown_numbers.percent(value / 100)
