"""``kvdrill optimize``: FSRS fitted to the profile's own log with fsrs-rs lowers that log's
loss, is kept only when asked (and then reschedules under FSRS), and a short log says so."""

from __future__ import annotations

import io
import json
import random
import shutil
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from conftest import Collection
from sqlalchemy import func, select

from kvdrill.app.cli import main
from kvdrill.app.services.settings import load_settings
from kvdrill.store.db import open_database
from kvdrill.store.models import Card, CardState, Profile, ReviewLog
from kvdrill.store.profiles import get_or_create_profile
from kvdrill.store.reviews import GivenAnswer, answer_in_session

START = datetime(2026, 1, 5, 9, 0)


def generate_log(session, profile_id: int, card_ids: list[int], days: int, seed: int = 7) -> int:
    """Stored answers of a learner whose memory is not FSRS's default one, each through the
    store's answer path (the SM-2 schedule picks the next day): a card keeps a true stability
    in days, recalled with chance 0.9 ** (elapsed / stability), that triples on a recall and
    falls to a third on a miss; a miss is repeated ten minutes later the same day, as in a
    session. 20 new cards a day. Returns how many answers were stored."""
    rng = random.Random(seed)
    answers = 0
    for index, card_id in enumerate(card_ids):
        day, stability, last = index // 20, rng.uniform(0.3, 3.0), None
        while day < days:
            now = START + timedelta(days=day, minutes=index % 600)
            recalled = rng.random() < (0.9 ** ((now - last).days / stability) if last else 0.6)
            while True:
                quality = (5 if rng.random() < 0.2 else 4) if recalled else 1
                recorded = answer_in_session(
                    session,
                    GivenAnswer(
                        profile_id=profile_id,
                        card_id=card_id,
                        quality=quality,
                        seconds=3.0,
                        graded_by="self",
                        now=now,
                        rollover_hour=4,
                    ),
                )
                answers += 1
                stability = stability * 3 if recalled else max(0.2, stability / 3)
                if recalled:
                    break
                now += timedelta(minutes=10)
                recalled = rng.random() < 0.8
            last = now
            day = (recorded.due_day - START.date()).days
    return answers


@pytest.fixture(scope="module")
def studied_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Sixty days of that learner on 400 cards, built once for the module."""
    path = tmp_path_factory.mktemp("optimize") / "studied.db"
    database = open_database(f"sqlite:///{path}")
    with database.session() as session:
        pack = Collection.add_pack(session, "memory", Collection.recall_cards(400))
        card_ids = list(session.scalars(select(Card.id).where(Card.pack_id == pack.id)))
        profile_id = get_or_create_profile(session, "default", START).id
        answers = generate_log(session, profile_id, card_ids, 60)
        session.commit()
    database.close()
    assert answers > 2000  # a few thousand reviews, same-day repeats among them
    return path


@pytest.fixture
def studied(studied_file: Path, tmp_path: Path) -> str:
    """A copy of the studied database for one test."""
    copy = tmp_path / "studied.db"
    shutil.copyfile(studied_file, copy)
    return f"sqlite:///{copy}"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_fitted_parameters_lower_the_loss_of_the_log_they_were_fitted_to(
    studied: str, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-20T09:00")
    code, out, _ = run_cli(capsys, "--db", studied, "optimize", "--json")
    fit = json.loads(out)
    assert code == 0 and fit["enough"] and not fit["saved"]
    assert fit["after"]["log_loss"] < fit["before"]["log_loss"]
    assert len(fit["fitted"]) == 21 and fit["fitted"] != pytest.approx(fit["before"])

    code, out, _ = run_cli(capsys, "--db", studied, "optimize")
    assert code == 0
    assert "current parameters" in out and "fitted to your log" in out
    assert "Not kept: kvdrill optimize --save keeps them." in out
    database = open_database(studied)
    try:
        assert load_settings(database, "default", START).fsrs_parameters is None
    finally:
        database.close()


class Terminal(io.StringIO):
    """Typed lines on a terminal: the command asks before it keeps anything."""

    def isatty(self) -> bool:
        return True


def test_in_a_terminal_the_learner_is_asked_and_yes_keeps_them(
    studied: str, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-20T09:00")
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    code, out, _ = run_cli(capsys, "--db", studied, "optimize")
    assert code == 0 and "Not kept: kvdrill optimize --save keeps them." in out
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    code, out, _ = run_cli(capsys, "--db", studied, "optimize")
    assert code == 0 and "Keep the fitted parameters for this profile? [y/N]" in out
    database = open_database(studied)
    try:
        assert load_settings(database, "default", START).fsrs_parameters is not None
    finally:
        database.close()


def test_saved_parameters_are_the_profiles_and_reschedule_its_cards_under_fsrs(
    studied: str, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-20T09:00")
    assert run_cli(capsys, "--db", studied, "settings", "scheduler", "fsrs")[0] == 0
    database = open_database(studied)
    with database.session() as session:
        before = {row.card_id: row.fsrs for row in session.scalars(select(CardState))}
    database.close()

    code, out, _ = run_cli(capsys, "--db", studied, "optimize", "--save")
    assert code == 0 and "Kept for profile default." in out
    database = open_database(studied)
    try:
        fitted = load_settings(database, "default", START).fsrs_parameters
        with database.session() as session:
            after = {row.card_id: row.fsrs for row in session.scalars(select(CardState))}
    finally:
        database.close()
    assert fitted is not None and len(fitted) == 21
    assert after.keys() == before.keys() and after != before  # replayed with the new weights

    # Fitted again from the kept parameters: the loss printed as "current" is theirs.
    code, out, _ = run_cli(capsys, "--db", studied, "optimize", "--json")
    assert json.loads(out)["before"]["log_loss"] == pytest.approx(
        json.loads(out)["after"]["log_loss"], rel=0.05
    )


def test_a_short_log_is_said_plainly_and_a_read_creates_no_profile(
    db_url: str, collection, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-01-05T09:00")
    database = open_database(db_url)
    with database.session() as session:
        collection.add_pack(session, "memory", collection.recall_cards(5))
    database.close()
    code, out, _ = run_cli(capsys, "--db", db_url, "--profile", "ana", "optimize")
    assert code == 0
    assert out.startswith("Your log is too short to fit FSRS: 0 of its 0 reviews")
    code, out, _ = run_cli(capsys, "--db", db_url, "--profile", "ana", "optimize", "--json")
    assert json.loads(out)["enough"] is False and json.loads(out)["fitted"] is None
    code, out, err = run_cli(capsys, "--db", db_url, "--profile", "ana", "optimize", "--save")
    assert code == 1 and err.startswith("kvdrill: Your log is too short") and err.count("\n") == 1
    database = open_database(db_url)
    try:
        with database.session() as session:
            assert session.scalar(select(func.count()).select_from(Profile)) == 0
            assert session.scalar(select(func.count()).select_from(ReviewLog)) == 0
    finally:
        database.close()
