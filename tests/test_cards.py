"""``kvdrill cards``: the browser's list (search, pack, tag, state, sort, 80 columns), one
card's page with its whole history (typed answers and diagnoses), and its actions (suspend,
unsuspend, bury, flag, forget) through the real CLI and the real database."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from drill_helpers import answer_kv_problem_wrong as answer_kv_problem_wrong_once
from sqlalchemy import func, select

from kvdrill.app.cli import main
from kvdrill.app.services.drill import DrillSession
from kvdrill.store.models import Profile, ReviewLog

DAY1 = datetime(2026, 3, 10, 9, 0)


@pytest.fixture
def db(fixture_pack_db):
    return fixture_pack_db


def cards(capsys, monkeypatch, db_url: str, now: datetime, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setenv("KVDRILL_NOW", now.isoformat())
    code = main(["--db", db_url, "cards", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def listed(capsys, monkeypatch, db_url, now, *argv) -> dict[str, dict]:
    code, out, _ = cards(capsys, monkeypatch, db_url, now, *argv, "--json")
    assert code == 0
    return {row["card"]: row for row in json.loads(out)}


def answer_kv_problem_wrong(db) -> None:
    """A day of sm2-problems: the problem answered without the factor 2 for K and V."""
    session = answer_kv_problem_wrong_once(db, DAY1)
    card = session.current
    session.answer_problem(f"{card.variant.expected_value:g} {card.variant.unit}", 9.0)


def test_the_list_has_each_cards_state_and_due_day_and_narrows_and_sorts(
    db, db_url: str, capsys, monkeypatch
) -> None:
    answer_kv_problem_wrong(db)
    rows = listed(capsys, monkeypatch, db_url, DAY1)
    assert rows["sm2-problems/between"]["state"] == "review"
    assert rows["sm2-problems/between"]["due_day"] == "2026-03-11"
    assert (
        rows["sm2-fixture/alpha"]["state"] == "new" and rows["sm2-fixture/alpha"]["due_day"] is None
    )
    tomorrow = DAY1 + timedelta(days=1)
    due = listed(capsys, monkeypatch, db_url, tomorrow, "--state", "due")
    assert set(due) == {"sm2-problems/between", "sm2-problems/kv-drawn"}
    assert list(listed(capsys, monkeypatch, db_url, DAY1, "--pack", "sm2-fixture")) == [
        "sm2-fixture/alpha",
        "sm2-fixture/alpha/follow-up",
        "sm2-fixture/beta",
        "sm2-fixture/gamma",
        "sm2-fixture/delta",
    ]
    assert list(listed(capsys, monkeypatch, db_url, DAY1, "--sort", "reviews"))[0] == (
        "sm2-problems/kv-drawn"
    )
    assert set(listed(capsys, monkeypatch, db_url, DAY1, "--tag", "drawn")) == {
        "sm2-problems/kv-drawn"
    }
    assert set(listed(capsys, monkeypatch, db_url, DAY1, "--search", "SECOND RECALL")) == {
        "sm2-fixture/beta"
    }
    code, out, _ = cards(capsys, monkeypatch, db_url, DAY1)
    lines = out.splitlines()
    assert lines[0].split() == ["CARD", "TITLE", "STATE", "DUE"] and lines[-1] == "7 cards"
    assert all(len(line) <= 80 for line in lines)
    code, _, err = cards(capsys, monkeypatch, db_url, DAY1, "--pack", "nope")
    assert code == 1 and err.startswith("kvdrill: there is no pack 'nope'") and err.count("\n") == 1


def test_a_cards_page_shows_its_schedule_history_typed_answers_diagnoses_and_note(
    db, db_url: str, capsys, monkeypatch
) -> None:
    answer_kv_problem_wrong(db)
    session = DrillSession.open(db, now=DAY1 + timedelta(days=1), pack="sm2-problems")
    while session.current is not None and session.current.key != "kv-drawn":
        session.grade(4, 1.0)
    session.set_note("Remember K and V: two tensors per layer.")
    code, out, _ = cards(capsys, monkeypatch, db_url, DAY1, "sm2-problems/kv-drawn")
    assert code == 0 and all(len(line) <= 80 for line in out.splitlines())
    assert out.startswith("sm2-problems/kv-drawn  KV bytes per token, drawn\n")
    assert "History (2 answers):" in out and "grade 2" in out and "checked" in out
    assert "You left out the factor 2" in out  # the diagnosis shown at the time
    assert "Mistakes: kv_factor_2 x1" in out
    assert "Your note: Remember K and V: two tensors per layer." in out
    page = json.loads(
        cards(capsys, monkeypatch, db_url, DAY1, "sm2-problems/kv-drawn", "--json")[1]
    )
    assert [entry["grade"] for entry in page["history"]] == [2, page["history"][1]["grade"]]
    assert page["history"][0]["mistake"] == "kv_factor_2" and page["history"][0]["typed_answer"]
    assert page["note"].startswith("Remember") and page["reviews"] == 2


def test_the_actions_change_the_card_and_forget_keeps_its_history(
    db, db_url: str, capsys, monkeypatch
) -> None:
    answer_kv_problem_wrong(db)
    ref = "sm2-problems/between"

    def state() -> str:
        return listed(capsys, monkeypatch, db_url, DAY1 + timedelta(days=1))[ref]["state"]

    assert cards(capsys, monkeypatch, db_url, DAY1, ref, "--suspend")[1] == (
        f"Suspended: {ref} (A recall card between problems)\n"
    )
    assert state() == "suspended"
    tomorrow = DrillSession.open(db, now=DAY1 + timedelta(days=1), pack="sm2-problems")
    assert tomorrow.current.key == "kv-drawn" and tomorrow.remaining == 1
    cards(capsys, monkeypatch, db_url, DAY1, ref, "--unsuspend")
    assert state() == "due"
    cards(capsys, monkeypatch, db_url, DAY1 + timedelta(days=1), ref, "--bury")
    assert state() == "buried"
    cards(capsys, monkeypatch, db_url, DAY1, ref, "--flag", "purple")
    assert listed(capsys, monkeypatch, db_url, DAY1, "--state", "flagged")[ref]["flag"] == "purple"
    with db.session() as session:
        logged = session.scalar(select(func.count()).select_from(ReviewLog))
    code, out, _ = cards(capsys, monkeypatch, db_url, DAY1, ref, "--forget")
    assert out == f"New again (its history kept): {ref} (A recall card between problems)\n"
    assert listed(capsys, monkeypatch, db_url, DAY1)[ref]["state"] == "new"
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(ReviewLog)) == logged
    code, _, err = cards(capsys, monkeypatch, db_url, DAY1, "--forget")
    assert code == 1 and err == "kvdrill: --forget needs a card: kvdrill cards PACK/CARD --forget\n"


def test_listing_and_showing_create_no_profile(db, db_url: str, capsys, monkeypatch) -> None:
    assert cards(capsys, monkeypatch, db_url, DAY1, "--profile", "ana")[0] == 0
    assert cards(capsys, monkeypatch, db_url, DAY1, "sm2-fixture/alpha", "--profile", "ana")[0] == 0
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(Profile)) == 0


def test_the_list_speaks_the_profiles_language(db, db_url: str, capsys, monkeypatch) -> None:
    """``language vi``: the list's header and states in Vietnamese, its references as typed;
    ``language en`` again: English again."""
    from kvdrill.app.services.language import use_language

    try:
        assert main(["--db", db_url, "settings", "language", "vi"]) == 0
        capsys.readouterr()
        code, out, _ = cards(capsys, monkeypatch, db_url, DAY1)
        lines = out.splitlines()
        assert code == 0 and lines[0].split() == ["THẺ", "TIÊU", "ĐỀ", "TRẠNG", "THÁI", "HẠN"]
        assert "sm2-fixture/alpha" in out and " mới " in out and lines[-1] == "7 thẻ"
        assert " new " not in out and all(len(line) <= 80 for line in lines)
        assert main(["--db", db_url, "settings", "language", "en"]) == 0
        capsys.readouterr()
        code, out, _ = cards(capsys, monkeypatch, db_url, DAY1)
        assert out.splitlines()[0].split() == ["CARD", "TITLE", "STATE", "DUE"]
        assert " new " in out and out.splitlines()[-1] == "7 cards"
        assert "is not a card state (did you mean 'new'?)" in refused_state(capsys, db_url)
        assert main(["--db", db_url, "settings", "language", "vi"]) == 0
        capsys.readouterr()
        err = refused_state(capsys, db_url)
        assert "'dew' không phải trạng thái thẻ (ý bạn là 'new'?)" in err
        assert "hãy dùng một trong suspended, buried, new, due" in err
    finally:
        use_language("en")


def refused_state(capsys, db_url: str) -> str:
    """What ``cards --state dew`` says on stderr (argparse exits with status 2)."""
    with pytest.raises(SystemExit) as exit:
        main(["--db", db_url, "cards", "--state", "dew"])
    assert exit.value.code == 2
    return capsys.readouterr().err


def test_a_follow_ups_row_and_page_show_its_own_title_not_its_parents(
    db, db_url: str, capsys, monkeypatch
) -> None:
    rows = listed(capsys, monkeypatch, db_url, DAY1, "--pack", "sm2-fixture")
    follow_up = rows["sm2-fixture/alpha/follow-up"]["title"]
    assert follow_up == "follow-up: Alpha follow-up: and 2 + 3?"
    assert rows["sm2-fixture/alpha"]["title"] != follow_up
    code, out, _ = cards(capsys, monkeypatch, db_url, DAY1, "--pack", "sm2-fixture")
    assert any("follow-up: Alpha follow-up" in line for line in out.splitlines())
    code, out, _ = cards(capsys, monkeypatch, db_url, DAY1, "sm2-fixture/alpha/follow-up")
    assert code == 0 and out.startswith("sm2-fixture/alpha/follow-up")
    assert "follow-up: Alpha follow-up: and 2 + 3?" in out.splitlines()[0] + out.splitlines()[1]
