"""The stats charts (issue 25): reviews and minutes per day, retention by week, cards by
interval, on the stats screen and in ``kvdrill stats``, checked against the review log itself."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import func, select
from stats_helpers import open_stats
from tui_helpers import make_app, settle, text_of

from kvdrill.app.cli import main
from kvdrill.app.stats_charts import chart_lines
from kvdrill.engine.study.charts import CHART_DAYS, ChartData, day_activity, interval_buckets


@pytest.mark.unit
def test_intervals_fall_in_their_buckets_and_idle_days_count_zero() -> None:
    buckets = dict(interval_buckets([(0, 2), (1, 1), (3, 4), (7, 1), (8, 2), (400, 5)]))
    assert buckets == {"1d": 3, "2-3d": 4, "4-7d": 1, "1-2w": 2, "2-4w": 0, "1-3m": 0, "3m+": 5}
    today = date(2026, 3, 10)
    days = day_activity([(today, 4, 120.0)], today)
    assert len(days) == CHART_DAYS and days[-1].minutes == 2.0 and days[0].reviews == 0


@pytest.mark.unit
def test_a_day_of_under_a_minute_gets_a_scale_that_is_not_zero() -> None:
    today = date(2026, 3, 10)
    days = day_activity([(today, 6, 24.0)], today)  # six answers in 24 seconds
    lines = chart_lines(ChartData(days=days, retention=[], intervals=[]))
    minutes = lines.index("Minutes per day, last 30 days")
    top, bottom = lines[minutes + 1], lines[minutes + 5]
    assert top.split()[0] == "0.4" and bottom.split()[0] == "0.0"


@pytest.mark.store
def test_the_charts_count_what_the_review_log_holds(stats_db: str) -> None:
    from kvdrill.app.services.backend import Services
    from kvdrill.store.models import CardState, ReviewLog

    services = Services(stats_db, "default", bundled=False)
    try:
        charts = services.stats_charts(services.stats_report())
        today = charts.days[-1].day
        first = today - timedelta(days=CHART_DAYS - 1)
        with services.database.session() as session:
            logged, seconds = session.execute(
                select(func.count(), func.sum(ReviewLog.seconds)).where(
                    ReviewLog.study_day >= first, ReviewLog.study_day <= today
                )
            ).one()
            seen = session.scalar(
                select(func.count()).where(CardState.reviews > 0, ~CardState.suspended)
            )
    finally:
        services.close()
    assert logged and sum(day.reviews for day in charts.days) == logged
    assert sum(day.minutes for day in charts.days) == pytest.approx(seconds / 60)
    assert sum(count for _, count in charts.intervals) == seen
    assert charts.retention  # the report's weeks


@pytest.mark.store
def test_kvdrill_stats_draws_the_charts_within_80_columns(stats_db: str, capsys) -> None:
    assert main(["--db", stats_db, "stats"]) == 0
    out = capsys.readouterr().out
    for heading in ("Reviews per day", "Minutes per day", "Retention by week", "by interval"):
        assert heading in out
    assert max(len(line) for line in out.splitlines()) <= 80


async def test_the_stats_screen_shows_the_charts_and_v_goes_to_them(stats_db: str) -> None:
    app = make_app(stats_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_stats(pilot)
        await settle(pilot)
        plots = text_of(app, "#stats-plots")
        assert "Reviews per day, last 30 days" in plots and "Cards by interval" in plots
        plot = app.screen.query_one("#stats-plots")
        assert not app.screen.query_one("#stats-body").region.contains_region(plot.region)
        await pilot.press("v")
        await settle(pilot)
        assert plot.region.y <= 2  # at the top of the screen now
