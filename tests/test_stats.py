"""Stats on a constructed review log whose figures were worked out by hand."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import delete, update
from sqlalchemy.orm import Session
from stats_helpers import TODAY, build_report, build_scenario, day

from kvdrill.engine.study.stats_report import (
    StatsReport,
    TopicStats,
    rank_topics,
    streak,
    weak_score,
)
from kvdrill.store.db import open_database
from kvdrill.store.models import Card, CardState, CardTopic, ReviewLog

pytestmark = pytest.mark.both_backends  # SQLite and a real PostgreSQL server


@pytest.fixture
def session(db_url: str):
    """A session on a migrated database, so the rollup triggers are in place."""
    database = open_database(db_url)
    with database.sessionmaker() as session:
        yield session
    database.close()


@pytest.mark.parametrize("use_rollups", [True, False], ids=["rollups", "oracle"])
def test_topic_figures_match_the_hand_computation(session: Session, use_rollups: bool) -> None:
    report = build_report(session, build_scenario(session), TODAY, 30, use_rollups)
    topics = {(t.kind, t.topic): t for t in report.topics}
    kv = topics[("tag", "kv")]
    assert kv.recent_reviews == 9  # A: 6, B: 3 (one a same-day repeat)
    assert kv.accuracy == pytest.approx(6 / 9, abs=1e-4)
    assert kv.lapse_rate == pytest.approx(2 / 8, abs=1e-4)  # first answers only
    assert kv.previous_lapse_rate == pytest.approx(1 / 2)
    assert kv.trend == pytest.approx(-0.25)
    assert kv.mean_easiness == pytest.approx(2.15)
    assert kv.lapses == 3
    assert kv.due_next_7_days == 1
    assert kv.diagnosed_mistakes == 1
    # 0.5 x 0.25 + 0.3 x (2.5 - 2.15) / 1.2 + 0.2 x 1/9
    assert kv.score == pytest.approx(0.125 + 0.0875 + 0.2 / 9, abs=1e-4)

    p1 = topics[("pack", "p1")]
    assert p1.recent_reviews == 12
    assert p1.score == pytest.approx(0.5 * 2 / 11 + 0.3 * (0.2 / 1.2) + 0.2 / 12, abs=1e-4)
    assert topics[("tag", "weights")].score is None  # 3 reviews: not judged yet


def test_weakest_topic_ranks_first_and_unjudged_last(session: Session) -> None:
    report = build_report(session, build_scenario(session), TODAY, window_days=30)
    assert [(t.kind, t.topic) for t in report.topics] == [
        ("tag", "kv"),
        ("pack", "p1"),
        ("tag", "weights"),
    ]


@pytest.mark.parametrize("use_rollups", [True, False], ids=["rollups", "oracle"])
def test_time_figures(session: Session, use_rollups: bool) -> None:
    report = build_report(session, build_scenario(session), TODAY, 30, use_rollups)
    assert report.streak_days == 6  # yesterday back to six days ago; today not studied yet
    assert len(report.heatmap) >= 84 and report.heatmap[-1].day == TODAY
    per_day = {d.day: d.reviews for d in report.heatmap}
    assert per_day[day(1)] == 4 and per_day[day(6)] == 1 and per_day[day(40)] == 2
    forecast = [d.reviews for d in report.forecast]
    assert len(forecast) == 30
    assert forecast[0] == 1 and forecast[3] == 1 and forecast[10] == 1  # C overdue counts today
    assert sum(forecast) == 3
    assert report.mistakes[0].code == "gb_vs_gib"
    assert report.mistakes[0].of_last_10 == 1
    assert report.total_reviews == 14


def test_json_round_trips_through_the_documented_schema(session: Session) -> None:
    report = build_report(session, build_scenario(session), TODAY, window_days=30)
    data = json.loads(report.model_dump_json())
    assert StatsReport.model_validate(data) == report
    schema = StatsReport.model_json_schema()
    assert set(schema["required"]) >= {"topics", "mistakes", "heatmap", "forecast", "streak_days"}
    data["unexpected"] = 1
    with pytest.raises(ValueError):
        StatsReport.model_validate(data)


def test_score_ranking_scenario() -> None:
    """A topic that keeps lapsing outranks one that is merely slow to grow easy."""
    lapsing = weak_score(20, 8, 2.4, 20, 0)
    hard_but_held = weak_score(20, 1, 1.9, 20, 0)
    sloppy_units = weak_score(20, 2, 2.5, 20, 10)
    assert lapsing is not None and hard_but_held is not None and sloppy_units is not None
    assert lapsing > hard_but_held
    assert sloppy_units > weak_score(20, 2, 2.5, 20, 0)
    assert weak_score(4, 4, 1.3, 4, 4) is None


def test_streak_counts_back_from_today_or_yesterday() -> None:
    assert streak([day(0), day(1), day(2), day(4)], TODAY) == 3
    assert streak([day(1), day(2)], TODAY) == 2
    assert streak([day(2)], TODAY) == 0


def test_rollups_stay_equal_to_the_joins_through_every_kind_of_edit(session: Session) -> None:
    """Undo (delete a log row), retire and revive, re-tagging, state updates, suspension."""
    profile = build_scenario(session)

    def both_agree() -> None:
        session.flush()
        by_rollup = build_report(session, profile, TODAY, 30, use_rollups=True)
        by_join = build_report(session, profile, TODAY, 30, use_rollups=False)
        assert by_rollup == by_join

    both_agree()
    card_a = session.query(Card).filter_by(key="A").one()
    card_c = session.query(Card).filter_by(key="C").one()
    last = session.query(ReviewLog).order_by(ReviewLog.id.desc()).first()
    session.delete(last)  # undo
    both_agree()
    session.execute(update(Card).where(Card.id == card_a.id).values(retired=True))
    both_agree()
    session.execute(update(Card).where(Card.id == card_a.id).values(retired=False))
    both_agree()
    session.execute(
        delete(CardTopic).where(CardTopic.card_id == card_c.id, CardTopic.kind == "tag")
    )
    session.add(CardTopic(card_id=card_c.id, kind="tag", value="kv"))
    both_agree()
    session.execute(
        update(CardState)
        .where(CardState.card_id == card_a.id)
        .values(easiness_milli=1300, lapses=8, leech=True, due_day=TODAY, suspended=True)
    )
    both_agree()
    session.execute(update(ReviewLog).where(ReviewLog.card_id == card_c.id).values(quality=1))
    both_agree()


def test_every_mistake_the_checker_names_has_plain_words() -> None:
    from kvdrill.engine.problems.diagnosis_rules import RULES
    from kvdrill.engine.problems.mistake_sentences import SENTENCES
    from kvdrill.engine.study.stats_report import MISTAKE_WORDS

    codes = set(SENTENCES) | {rule.code for rule in RULES}
    assert codes - set(MISTAKE_WORDS) == set()


def test_unjudged_lessons_list_in_number_order() -> None:
    def lesson(number: str) -> TopicStats:
        return TopicStats(
            kind="lesson",
            topic=number,
            cards=1,
            reviews=0,
            recent_reviews=0,
            accuracy=None,
            lapses=0,
            lapse_rate=None,
            previous_lapse_rate=None,
            trend=None,
            mean_easiness=None,
            mean_seconds=None,
            due_next_7_days=0,
            leeches=0,
            diagnosed_mistakes=0,
            score=None,
        )

    ranked = rank_topics([lesson("42"), lesson("5"), lesson("17")])
    assert [t.topic for t in ranked] == ["5", "17", "42"]


def test_a_lesson_on_every_card_of_a_pack_shares_the_pack_row(session: Session) -> None:
    """Without this, a lesson every template of a pack names is a second, identical row."""
    from sqlalchemy import select

    from kvdrill.app.stats_render import render_text
    from kvdrill.store.models import Pack

    profile = build_scenario(session)
    cards = session.scalars(
        select(Card.id).join(Pack, Pack.id == Card.pack_id).where(Pack.key == "p1")
    ).all()
    session.add_all(CardTopic(card_id=card, kind="lesson", value="5") for card in cards)
    session.add(CardTopic(card_id=cards[0], kind="lesson", value="6"))  # a subset: its own row
    session.flush()
    report = build_report(session, profile, TODAY, 30)
    marks = {(t.kind, t.topic): t.same_cards_as for t in report.topics}
    assert marks[("lesson", "5")] == "pack:p1"
    assert marks[("pack", "p1")] is None and marks[("lesson", "6")] is None
    text = render_text(report)
    assert "pack:p1 & lesson:5" in text
    assert "\n  lesson:5 " not in text and "lesson:6" in text


def test_the_missed_column_says_what_it_measures_and_the_forecast_has_axes(
    session: Session,
) -> None:
    from kvdrill.app.stats_render import TOPIC_HEADERS, render_text

    profile = build_scenario(session)
    text = render_text(build_report(session, profile, TODAY, 30))
    assert "lapse" not in TOPIC_HEADERS and "miss" in TOPIC_HEADERS
    assert "miss: first answers of a day graded below 3, new cards included" in " ".join(
        text.split()
    )
    forecast = text.split("Due per day, next 30 days")[1].splitlines()
    assert forecast[2].strip().startswith("today") and "+7d" in forecast[2]


def test_the_text_report_counts_reviews_and_streak_days_in_words(session: Session) -> None:
    from kvdrill.app.stats_render import render_text

    report = build_report(session, build_scenario(session), TODAY, 30)
    assert f"streak {report.streak_days} days." in render_text(report)  # six days
    one = report.model_copy(update={"streak_days": 1, "total_reviews": 1})
    assert "1 review in all; streak 1 day." in render_text(one)


def test_the_home_screen_names_a_set_of_cards_once_among_the_weakest(db_url: str) -> None:
    from datetime import datetime, time

    from sqlalchemy import select

    from kvdrill.app.services.overview import load_overview
    from kvdrill.store.models import Pack

    database = open_database(db_url)
    with database.session() as session:
        build_scenario(session)
        cards = session.scalars(
            select(Card.id).join(Pack, Pack.id == Card.pack_id).where(Pack.key == "p1")
        ).all()
        session.add_all(CardTopic(card_id=card, kind="lesson", value="5") for card in cards)
        session.commit()
    weak = load_overview(database.read, "default", datetime.combine(TODAY, time(12))).weak_topics
    database.close()
    assert "pack P1" in weak and "lesson 5" not in weak


def richer_stats_db(db_url: str, monkeypatch: pytest.MonkeyPatch, scheduler: str) -> None:
    """The hand-built scenario plus what the newer report fields read: a lesson on every card of
    pack p1 (same cards as the pack), two one-card tags with equal figures but different cards,
    review times on the card states (predicted recall), and the profile on ``scheduler``."""
    from datetime import datetime

    from sqlalchemy import select
    from stats_helpers import make_stats_db

    from kvdrill.app.cli import main
    from kvdrill.store.models import Pack

    make_stats_db(db_url, monkeypatch)
    database = open_database(db_url)
    with database.session() as session:
        pack = session.scalars(select(Pack).where(Pack.key == "p1")).one()
        cards = session.scalars(select(Card.id).where(Card.pack_id == pack.id)).all()
        session.add_all(CardTopic(card_id=card, kind="lesson", value="5") for card in cards)
        for key in ("E", "F"):
            card = Card(pack_id=pack.id, key=key, kind="recall", title=key, tags=[f"solo-{key}"])
            session.add(card)
            session.flush()
            session.add(CardTopic(card_id=card.id, kind="tag", value=f"solo-{key}"))
        session.execute(update(CardState).values(last_review_at=datetime(2026, 11, 20, 9)))
    database.close()
    if scheduler == "fsrs":  # rebuilds every schedule from the review log under FSRS
        assert main(["--db", db_url, "settings", "scheduler", "fsrs"]) == 0


@pytest.mark.parametrize("scheduler", ["sm2", "fsrs"])
@pytest.mark.parametrize("window_days", [7, 30])
def test_stats_json_read_with_sqlite3_is_the_stores_report(
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    window_days: int,
    scheduler: str,
) -> None:
    """``kvdrill stats --json`` reads a SQLite file with sqlite3 alone (store/fast_stats.py);
    the store's session is the reference, every field included. PostgreSQL takes the store."""
    from kvdrill.app.cli import main
    from kvdrill.app.services import environment
    from kvdrill.app.services.backend import Services
    from kvdrill.app.services.stats import fast_report

    richer_stats_db(db_url, monkeypatch, scheduler)
    capsys.readouterr()
    services = Services(db_url, "default", bundled=False)
    reference = services.stats_report(window_days)
    reference_charts = services.stats_charts(reference)
    services.close()
    marks = {(t.kind, t.topic): t.same_cards_as for t in reference.topics}
    assert marks[("lesson", "5")] == "pack:p1"
    assert marks[("tag", "solo-E")] is None and marks[("tag", "solo-F")] is None
    assert reference.total_reviews > 0 and reference.mistakes
    recall = reference.predicted_recall
    assert recall.scheduler == scheduler and recall.due_cards > 0 and recall.mean_recall

    fast = fast_report(db_url, "default", environment.now(), window_days)
    if db_url.startswith("sqlite"):
        assert fast is not None
        assert fast.model_dump_json(indent=2) == reference.model_dump_json(indent=2)
    else:
        assert fast is None

    assert main(["--db", db_url, "stats", "--json", "--days", str(window_days)]) == 0
    assert capsys.readouterr().out == reference.model_dump_json(indent=2) + "\n"
    assert main(["--db", db_url, "stats", "--days", str(window_days)]) == 0
    from kvdrill.app.stats_charts import chart_lines
    from kvdrill.app.stats_render import render_text

    # The charts as the store reads them, whichever way the command read them.
    charts = "\n".join(chart_lines(reference_charts))
    assert capsys.readouterr().out == render_text(reference) + "\n\n" + charts + "\n"


@pytest.mark.sqlite_only
def test_sqlite3_reader_leaves_a_new_profile_or_an_old_schema_to_the_store(
    db_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import sqlite3

    from stats_helpers import make_stats_db

    from kvdrill.app.cli import main
    from kvdrill.app.services import environment
    from kvdrill.app.services.stats import fast_report

    make_stats_db(db_url, monkeypatch)
    assert fast_report(db_url, "someone-new", environment.now(), 30) is None
    assert main(["--db", db_url, "--profile", "someone-new", "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total_reviews"] == 0

    path = db_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0003'")
    assert fast_report(db_url, "default", environment.now(), 30) is None


@pytest.mark.sqlite_only
def test_stats_json_runs_without_importing_sqlalchemy(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up cost of SQLAlchemy is what the sqlite3 reader saves (scripts/bench_stats.py)."""
    import subprocess
    import sys

    from stats_helpers import make_stats_db

    make_stats_db(db_url, monkeypatch)
    code = (
        "import sys; from kvdrill.app.cli import main; "
        f"main(['--db', {db_url!r}, 'stats', '--json']); "
        "sys.stderr.write(str(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('sqlalchemy', 'alembic'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["profile"] == "default"
    assert done.stderr == "[]"


@pytest.mark.parametrize(("due", "counted"), [(1, "the 1 due card:"), (2, "the 2 due cards:")])
def test_the_recall_line_counts_due_cards_in_words(due: int, counted: str) -> None:
    from kvdrill.app.stats_render import recall_line
    from kvdrill.engine.study.stats_report import PredictedRecall

    recall = PredictedRecall(scheduler="fsrs", due_cards=due, mean_recall=0.9, method="fsrs")
    assert counted in recall_line(recall)


def test_the_text_report_in_vietnamese_reads_vietnamese_numbers(
    session: Session, vietnamese
) -> None:
    """A Vietnamese learner reads every heading in Vietnamese and numbers as 1.234,5: the
    thousands dotted, the decimals after a comma."""
    from kvdrill.app.stats_render import render_text

    report = build_report(session, build_scenario(session), TODAY, 30)
    many = report.model_copy(update={"total_reviews": 12345})
    text = render_text(many)
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "Tổng cộng 12.345 lần ôn; chuỗi 6 ngày." in text
    assert "Chủ đề yếu nhất" in text and "Lỗi sai:" in text and "Đến hạn mỗi ngày" in text
    scores = [t.score for t in report.topics if t.score is not None]
    assert f"{scores[0]:.2f}".replace(".", ",") in text
    for english in ("Weakest", "Mistakes", "Reviews per day", "Retention", "streak", "today"):
        assert english not in text, english
    assert [line.split()[0] for line in text.splitlines() if line.startswith("  T")][:6] == [
        "T2",
        "T3",
        "T4",
        "T5",
        "T6",
        "T7",
    ]
