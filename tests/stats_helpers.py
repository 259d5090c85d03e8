"""A review log built by hand, shared by the stats tests and the stats-screen tests.

The figures the stats tests expect from it were worked out by hand in tests/test_stats.py.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import pytest
import stats_oracle
from sqlalchemy.orm import Session
from textual.widgets import DataTable
from tui_helpers import settle, steady

from kvdrill.engine.study.stats_report import GroupReport, StatsReport
from kvdrill.store import reviews, stats
from kvdrill.store.db import open_database, session_sql
from kvdrill.store.models import Card, CardState, CardTopic, Pack, Profile, ReviewLog
from kvdrill.store.profiles import get_or_create_profile

TODAY = date(2026, 11, 29)


def day(offset: int) -> date:
    return TODAY - timedelta(days=offset)


def build_scenario(session: Session) -> Profile:
    """Pack p1 holds A and B (tag kv) and C (tag weights)."""
    now = datetime(2026, 11, 29, 12)
    profile = Profile(name="default", created_at=now)
    pack = Pack(key="p1", title="P1", version="1", imported_at=now)
    session.add_all([profile, pack])
    session.flush()
    cards = {}
    for key, tag in [("A", "kv"), ("B", "kv"), ("C", "weights")]:
        card = Card(pack_id=pack.id, key=key, kind="recall", title=key, tags=[tag])
        session.add(card)
        session.flush()
        session.add_all(
            [
                CardTopic(card_id=card.id, kind="pack", value="p1"),
                CardTopic(card_id=card.id, kind="tag", value=tag),
            ]
        )
        cards[key] = card
    states = {"A": (1800, 2, 3), "B": (2500, 1, 10), "C": (2600, 0, -2)}
    for key, (easiness, lapses, due) in states.items():
        session.add(
            CardState(
                profile_id=profile.id,
                card_id=cards[key].id,
                easiness_milli=easiness,
                lapses=lapses,
                reviews=5,
                due_day=TODAY + timedelta(days=due),
            )
        )

    def review(key, offset, quality, moved=True, mistake=None, seconds=10.0):
        session.add(
            ReviewLog(
                profile_id=profile.id,
                card_id=cards[key].id,
                reviewed_at=datetime.combine(day(offset), datetime.min.time()) + timedelta(hours=9),
                study_day=day(offset),
                quality=quality,
                seconds=seconds,
                graded_by="self",
                moved_schedule=moved,
                mistake=mistake,
            )
        )

    for offset, quality in zip(range(1, 7), [1, 2, 4, 4, 5, 3], strict=True):
        review("A", offset, quality)
    review("B", 1, 4)
    review("B", 2, 4)
    review("B", 1, 2, moved=False, mistake="gb_vs_gib")
    review("B", 40, 1)
    review("B", 40, 4)
    for offset in (1, 2, 3):
        review("C", offset, 5)
    session.commit()
    return profile


NOW = "2026-11-29T12:00:00"


def make_stats_db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    database = open_database(db_url)
    with database.session() as session:
        build_scenario(session)
        # A new card tagged kv, so a drill of that tag has something to show.
        pack = session.query(Pack).filter_by(key="p1").one()
        card = Card(
            pack_id=pack.id, key="D", kind="recall", title="D", prompt="Say D.", tags=["kv"]
        )
        session.add(card)
        session.flush()
        session.add_all(
            [
                CardTopic(card_id=card.id, kind="pack", value="p1"),
                CardTopic(card_id=card.id, kind="tag", value="kv"),
            ]
        )
    database.close()
    return db_url


async def open_stats(pilot) -> None:
    await settle(pilot)
    await pilot.press("s")
    await settle(pilot)
    while getattr(pilot.app.screen, "report", None) is None:
        await pilot.pause(0.01)
    # Once in a few hundred loaded runs, the screen was photographed steady with the filled
    # mistakes table still laid out at height 0 (it shows on the next layout): wait, for a
    # bounded time, until every shown table with rows has room on screen. A table that never
    # gets room still fails the snapshot.
    for _ in range(100):
        if all(
            table.region.height > 0
            for table in pilot.app.screen.query(DataTable)
            if table.display and table.row_count
        ):
            break
        await pilot.pause(0.02)
    await steady(pilot)


# --- a study group: three learners sharing one database ---------------------------------------

GROUP_TODAY = date(2026, 3, 20)
SECRET_NOTE = "my private mnemonic: K and V, twice"


def make_group_db(db_url: str, collection) -> str:
    """Ana and Ben keep failing the kv card; Cleo knows it but keeps failing the weights card."""
    database = open_database(db_url)
    with database.session() as session:
        cards = collection.recall_cards(1, tags=["kv"]) + collection.recall_cards(
            1, tags=["weights"]
        )
        pack = collection.add_pack(session, cards=cards)
        kv_card, weights_card = (card.id for card in pack.cards)
        learners = {
            name: get_or_create_profile(session, name, datetime(2026, 3, 1)).id
            for name in ("ana", "ben", "cleo")
        }
        session.flush()
        answers = {
            "ana": [(kv_card, 1)],
            "ben": [(kv_card, 2)],
            "cleo": [(kv_card, 5), (weights_card, 1)],
        }
        for name, cards in answers.items():
            for offset in range(6):  # one first answer a day, six days running
                when = datetime.combine(
                    GROUP_TODAY - timedelta(days=6 - offset), datetime.min.time()
                )
                for card_id, quality in cards:
                    reviews.answer_in_session(
                        session,
                        reviews.GivenAnswer(
                            profile_id=learners[name],
                            card_id=card_id,
                            quality=quality,
                            seconds=5.0,
                            graded_by="self",
                            now=when + timedelta(hours=9),
                            rollover_hour=4,
                        ),
                    )
        reviews.set_note(
            session_sql(session), learners["ben"], kv_card, SECRET_NOTE, datetime(2026, 3, 19)
        )
    database.close()
    return db_url


def build_report(
    session: Session, profile: Any, today: date, window_days: int = 30, use_rollups: bool = True
) -> StatsReport:
    """store/stats.py's report, read from the rollups in the session's transaction; with
    ``use_rollups=False`` the join oracle's (tests/stats_oracle.py)."""
    if not use_rollups:
        return stats_oracle.build_report(session, profile, today, window_days)
    return stats.build_report(session_sql(session), profile, today, window_days)


def build_group_report(
    session: Session, today: date, window_days: int = 30, use_rollups: bool = True
) -> GroupReport:
    """``build_report`` for the group report."""
    if not use_rollups:
        return stats_oracle.build_group_report(session, today, window_days)
    return stats.build_group_report(session_sql(session), today, window_days)
