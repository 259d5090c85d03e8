"""Plain mode: whole sessions on piped stdin, across days set with KVDRILL_NOW."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from kvdrill.app.app_options import AppOptions
from kvdrill.app.cli import main
from kvdrill.app.plain import literal
from kvdrill.app.plain_text import markdown_to_plain
from kvdrill.app.services.importing import bundled_pack_files
from kvdrill.app.services.pack_files import parse_pack
from kvdrill.store.db import open_database
from kvdrill.store.models import Card, ReviewLog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fixture_db(db_url: str, collection) -> str:
    database = open_database(db_url)
    collection.import_fixture_pack(database)
    database.close()
    return db_url


def drill(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    db_url: str,
    now: str,
    lines: list[str],
    *options: str,
) -> tuple[int, str]:
    monkeypatch.setenv("KVDRILL_NOW", now)
    # These sessions are about the fixture pack; the bundled decks have their own test.
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = main(["--db", db_url, "drill", "--plain", "--pack", "sm2-fixture", *options])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out


def logged(db_url: str) -> list[tuple[str, int, bool]]:
    database = open_database(db_url)
    with database.session() as session:
        rows = session.execute(
            select(Card.key, ReviewLog.quality, ReviewLog.moved_schedule)
            .join(Card, Card.id == ReviewLog.card_id)
            .order_by(ReviewLog.id)
        ).all()
    database.close()
    return [tuple(row) for row in rows]


def shown_letter(db_url: str, day: str, pack_letter: str, showing: int = 0) -> str:
    """The letter the choice card's ``pack_letter`` choice is shown under on ``day``: the
    order is shuffled with the seed of that showing (engine/study/seeds.py)."""
    from kvdrill.engine.packs.card_view import choice_views
    from kvdrill.engine.study.seeds import presentation_seed
    from kvdrill.store.models import Profile

    database = open_database(db_url)
    with database.session() as session:
        card = session.scalar(select(Card).where(Card.key == "gamma"))
        profile_id = session.scalar(select(Profile.id).where(Profile.name == "default"))
        stored = card.choices
    database.close()
    seed = presentation_seed(profile_id, card.id, datetime.fromisoformat(day).date(), showing)
    return next(v.letter for v in choice_views(stored, seed) if v.pack_letter == pack_letter)


def day1_lines(db_url: str) -> list[str]:
    return [
        "", "again",  # alpha: missed
        "", "4",  # its follow-up, right after it: Easy
        shown_letter(db_url, "2026-03-10", "B"),  # gamma, multiple choice: right
        "", "easy",  # beta
        "", "good",  # alpha again, three cards later: now good
        "", "4",  # delta
    ]  # fmt: skip


def test_a_missed_card_returns_in_the_session_and_the_next_days(
    monkeypatch, capsys, fixture_db
) -> None:
    # The profile exists once a session has opened: its id seeds the choice order.
    drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", [], "--new", "0")
    lines = day1_lines(fixture_db)
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", lines)
    assert code == 0
    assert out.count("Alpha prompt") == 2
    assert "First recall card (again)" in out  # the step-7 repeat is marked
    assert "Alpha answer: 4." in out and "alpha key number: 4" in out and "Alpha tip" in out
    assert "Follow-up to: First recall card" in out
    assert f"Right: {lines[4]}." in out and "Four is even" in out
    assert "[bold]not markup[/bold]" in out  # pack text printed literally
    assert "Session over: 5 cards, 6 answers, 80% right the first time" in out
    assert "Back tomorrow: 5 of these cards." in out  # nothing else is due
    assert "Topics missed: arith (1), fixture (1)." in out
    assert [(key, moved) for key, _, moved in logged(fixture_db)][4] == ("alpha", False)

    # Next day: every card is due; lowest easiness first: the missed card (no rise for it)
    # and the choice card (4, no rise), then the cards graded 5.
    day2 = ["", "3", shown_letter(fixture_db, "2026-03-11", "B")] + ["", "3"] * 3
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-11T09:00", day2)
    assert "[1/5] Scheduler fixture · First recall card" in out
    assert "[2/5] Scheduler fixture · A choice card" in out
    assert "Session over: 5 cards, 5 answers, 100% right the first time" in out

    # Day after: only the card missed on day 1 is due again; the others wait six days.
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-12T09:00", ["", "3"])
    assert "[1/1] Scheduler fixture · First recall card" in out
    assert "Beta prompt" not in out


def test_undo_in_plain_mode_brings_the_card_back_and_forgets_the_answer(
    monkeypatch, capsys, fixture_db
) -> None:
    lines = ["", "1", "u", "", "3", "q"]
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", lines)
    assert code == 0 and "Last answer undone: the card is back." in out
    assert out.count("Alpha prompt") == 2
    assert logged(fixture_db) == [("alpha", 4, True)]
    assert "Session over: 1 card, 1 answer, 100% right the first time" in out


def test_bad_input_is_asked_again_and_commands_work(monkeypatch, capsys, fixture_db) -> None:
    lines = [
        "", "great", "3",  # alpha: an unknown grade is asked again
        "s",  # suspend the follow-up
        "z", "bury",  # gamma: not a choice letter; then bury it by word
        "b",  # bury beta
        "n", "write it twice", "", "2",  # delta: a note, then the answer and a grade
    ]  # fmt: skip
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", lines)
    assert "Type a grade: 1 Again · 2 Hard · 3 Good · 4 Easy · g then 0-5" in out
    assert "Suspended: " in out and out.count("Buried until tomorrow: ") == 2
    assert "'Z' is not one of the choices: type a letter from A to C" in out
    assert "Your note: write it twice" in out
    assert [key for key, _, _ in logged(fixture_db)] == ["alpha", "delta"]


def test_end_of_input_mid_card_ends_cleanly_with_a_summary(monkeypatch, capsys, fixture_db) -> None:
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", ["", "3", ""])
    assert code == 0
    assert "Session over: 1 card, 1 answer" in out
    assert logged(fixture_db) == [("alpha", 4, True)]


def test_nothing_to_study_says_so(monkeypatch, capsys, fixture_db) -> None:
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", [], "--new", "0")
    assert code == 0 and "no cards answered" in out
    # New cards wait: the message must not say today's are done.
    assert "Nothing to study now: no card is due, and --new 0 leaves out new cards." in out


def test_a_new_user_gets_the_bundled_decks(monkeypatch, capsys, db_url: str) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n4\n"))
    assert main(["--db", db_url, "drill", "--plain", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    titles = [parse_pack(path).meta.title for path in bundled_pack_files()]
    assert any(f"[1/1] {title} ·" in out for title in titles), out


def test_an_unknown_pack_is_one_line_and_exit_1(monkeypatch, capsys, fixture_db) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["--db", fixture_db, "drill", "--plain", "--pack", "nope"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kvdrill: there is no pack 'nope'") and err.count("\n") == 1


def test_control_characters_from_a_pack_are_shown_not_sent() -> None:
    assert literal("red \x1b[31m text\r\n") == "red \\x1b[31m text\\x0d\n"
    assert literal("tab\tand [bold]") == "tab\tand [bold]"


def test_a_real_pipe_session_in_a_subprocess(fixture_db: str, collection) -> None:
    database = open_database(fixture_db)  # the first start here: the process drills at once
    collection.import_bundled(database)
    database.close()
    env = dict(os.environ, KVDRILL_NOW="2026-03-10T09:00")
    command = [sys.executable, "-m", "app", "--db", fixture_db, "drill", "--plain"]
    result = subprocess.run(
        [*command, "--pack", "sm2-fixture"],
        input="\nagain\n\n3\nbury\n\n3\n\n3\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    # The missed card came back and was graded; the pipe ran dry before the last card.
    assert result.stdout.count("Alpha prompt") == 2
    assert "Session over: 3 cards, 4 answers" in result.stdout


def test_a_problem_in_plain_mode(monkeypatch, capsys, fixture_db) -> None:
    from kvdrill.app.services.drill import DrillSession

    # The variant is drawn from a seed fixed by profile, card and day: peek at it first.
    database = open_database(fixture_db)
    peek = DrillSession.open(database, now=datetime(2026, 3, 10, 9), tag="drawn")
    variant = peek.current.variant
    database.close()
    typed = f"{variant.expected_value:g} {variant.unit}"
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"banana\n{typed}\n"))
    assert main(["--db", fixture_db, "drill", "--plain", "--tag", "drawn"]) == 0
    out = capsys.readouterr().out
    assert markdown_to_plain(variant.prompt).splitlines()[0] in out
    assert "'banana' does not start with a number" in out  # the reason, then asked again
    assert "Correct" in out and "Problem tip" in out
    assert "Session over: 1 card, 1 answer, 100% right the first time" in out


def test_giving_up_on_a_problem_shows_the_worked_solution(monkeypatch, capsys, fixture_db) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    monkeypatch.setattr(sys, "stdin", io.StringIO("?\n"))
    assert main(["--db", fixture_db, "drill", "--plain", "--tag", "drawn"]) == 0
    out = capsys.readouterr().out
    assert "The answer:" in out and "Worked solution:" in out
    assert logged(fixture_db)[-1][1:] == (0, True)
    # Printed as plain text: the working indented, no fence or bold markers.
    solution = out.split("Worked solution:\n", 1)[1]
    assert "```" not in solution and "**" not in solution
    assert "\n    " in solution and "\nAnswer: " in solution


def test_a_broken_bundled_deck_warns_in_one_line_and_the_drill_goes_on(
    monkeypatch, capsys, fixture_db
) -> None:
    from kvdrill.engine.errors import Located, PackErrors

    def broken(database, now) -> None:
        raise PackErrors([Located("decks/x.md", 3, "bad claim"), Located("decks/x.md", 9, "more")])

    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", broken)
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n4\n"))
    assert main(["--db", fixture_db, "drill", "--plain", "--pack", "sm2-fixture"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "kvdrill: the bundled decks were not updated: decks/x.md:3: bad claim\n"
    assert "Session over: 1 card," in captured.out


class Terminal(io.StringIO):
    """A stream that says it is a terminal, so the full-screen path is taken."""

    def isatty(self) -> bool:
        return True


class FakeApp:
    calls: list[tuple] = []

    def __init__(self, *args, **kwargs):
        FakeApp.calls.append((args, kwargs))

    def run(self) -> None:
        pass


def test_drill_without_plain_opens_the_ui_on_the_drill_with_the_options(
    monkeypatch, db_url: str
) -> None:
    FakeApp.calls = []
    monkeypatch.setattr("kvdrill.app.tui.create_app", FakeApp)
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr(sys, "stdout", Terminal())
    assert main(["--db", db_url, "--profile", "ana", "drill", "--tag", "t", "--new", "3"]) == 0
    assert main([]) == 0
    (drill_args, drill_kwargs), (home_args, home_kwargs) = FakeApp.calls
    helper = drill_kwargs["options"].first_card  # the UI's fast-start helper
    if helper is not None:
        helper.cancel()
        drill_kwargs["options"] = replace(drill_kwargs["options"], first_card=None)
    assert (drill_args, drill_kwargs) == (
        (db_url, "ana"),
        {
            "start": "drill",
            "options": AppOptions(tag="t", new_limit=3),
        },
    )
    assert (home_args, home_kwargs) == (
        (None, "default"),
        {"start": "home", "options": AppOptions()},
    )


def test_without_a_terminal_drill_suggests_plain(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # a pipe: the UI would wait forever
    assert main(["drill"]) == 1
    assert capsys.readouterr().err == (
        "kvdrill: the full-screen app needs a terminal; "
        "for pipes and scripts use `kvdrill drill --plain`\n"
    )


def test_negative_counts_are_refused_by_the_parser(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["drill", "--plain", "--new", "-2"])
    assert "-2 is below 0" in capsys.readouterr().err


def test_an_answer_that_cannot_be_saved_says_why_and_the_card_stays(
    monkeypatch, capsys, fixture_db
) -> None:
    from kvdrill.app.services.drill import DrillSession
    from kvdrill.engine.errors import UserError

    real = DrillSession.grade
    calls = []

    def grade_once_locked(self, quality, seconds=0.0, **times):
        calls.append(quality)
        if len(calls) == 1:
            raise UserError("the database stayed locked by another kvdrill process")
        return real(self, quality, seconds, **times)

    monkeypatch.setattr(DrillSession, "grade", grade_once_locked)
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", ["", "3", "3"])
    assert "kvdrill: the database stayed locked by another kvdrill process" in out
    # The card stays at its answer (as in the TUI): the grade is asked again, then saved.
    assert out.count("Alpha prompt") == 1 and out.count("Your grade") == 2
    assert logged(fixture_db) == [("alpha", 4, True)]


def test_suspended_cards_are_listed_and_can_be_unsuspended(monkeypatch, capsys, fixture_db) -> None:
    drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", ["s", "", "3", "q"])
    assert main(["--db", fixture_db, "drill", "--suspended"]) == 0
    assert capsys.readouterr().out == "sm2-fixture/alpha  First recall card\n"
    assert main(["--db", fixture_db, "drill", "--unsuspend", "sm2-fixture/alpha"]) == 0
    assert capsys.readouterr().out == "Unsuspended: sm2-fixture/alpha (First recall card)\n"
    assert main(["--db", fixture_db, "drill", "--suspended"]) == 0
    assert capsys.readouterr().out == "No suspended cards.\n"
    assert main(["--db", fixture_db, "drill", "--unsuspend", "sm2-fixture/nope"]) == 1
    assert "no card 'sm2-fixture/nope'" in capsys.readouterr().err


BIDI_PACK = """---
pack: bidi
title: "Pack \u2067hidden\u2069"
version: 1
---

## Cost \u202egnp.exe\u202c of a\u200btoken {#cost}

### Prompt
Which is bigger, \u2066A\u2069 or B\u200d?

### Answer
A, then\ttab.
"""


def test_bidi_and_zero_width_characters_are_shown_escaped(
    monkeypatch, capsys, tmp_path: Path, db_url: str
) -> None:
    """A title that reads one way and means another: passes check, but never reaches the
    terminal raw. Ordinary text, tabs and line breaks stay as they are."""
    pack = tmp_path / "bidi.md"
    pack.write_text(BIDI_PACK, encoding="utf-8")
    assert main(["--db", db_url, "import", str(pack)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n4\n"))
    assert main(["--db", db_url, "drill", "--plain", "--pack", "bidi"]) == 0
    out = capsys.readouterr().out
    assert "Pack \\u2067hidden\\u2069 · Cost \\u202egnp.exe\\u202c of a\\u200btoken" in out
    assert "Which is bigger, \\u2066A\\u2069 or B\\u200d?" in out
    assert "A, then\ttab." in out
    hidden = [ch for ch in out if not (ch.isprintable() or ch in "\n\t")]
    assert hidden == []


def test_grades_are_the_tui_scheme_with_exact_qualities_behind_g(
    monkeypatch, capsys, fixture_db
) -> None:
    # 3 is Good (quality 4) as in the TUI; g2 is exact quality 2; 2 is Hard (quality 3).
    lines = ["", "3", "", "g2", "bury", "", "2", "q"]  # the choice card buried
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", lines)
    assert [quality for _, quality, _ in logged(fixture_db)] == [4, 2, 3]
    assert out.count("Grade: 1 Again · 2 Hard · 3 Good · 4 Easy · g then 0-5") == 3
    # The note on Hard, once (the drill flow's, as in the TUI): it comes back the same session.
    assert out.count("2 Hard bring this card back later in this session") == 1


def test_plain_mode_fits_80_columns_on_the_bundled_decks(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["KVDRILL_NOW"] = "2026-03-10T09:00"
    db = f"sqlite:///{tmp_path / 'k.db'}"
    # Reveal and grade recall cards, give up on problems, answer A on choices: every kind shows.
    replies = "".join(["\n3\n", "?\n", "A\n"] * 12)
    result = subprocess.run(
        [sys.executable, "-m", "app", "--db", db, "drill", "--plain"],
        input=replies,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Worked solution:" in out and "Answer:" in out
    too_wide = [line for line in out.splitlines() if len(line) > 80]
    assert too_wide == []
    assert "**" not in out
    # A worked solution's first line is indented like the rest of its working.
    for solution in out.split("Worked solution:\n")[1:]:
        assert solution.startswith("    ")


def test_the_counter_counts_the_session_s_cards_and_returns(
    monkeypatch, capsys, fixture_db
) -> None:
    # alpha buried (its follow-up with it), gamma buried, beta missed, delta, beta again.
    lines = ["b", "bury", "", "1", "", "3", "", "3"]
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", lines)
    counters = re.findall(r"── \[(\d+)/(\d+)\]", out)
    assert counters == [("1", "5"), ("3", "5"), ("4", "5"), ("5", "6"), ("6", "6")]
    assert "a card you miss comes back later and adds one" in " ".join(out.split())


def test_the_summary_of_a_short_session_counts_its_own_cards_apart_from_the_rest(
    monkeypatch, capsys, fixture_db
) -> None:
    drill(monkeypatch, capsys, fixture_db, "2026-03-10T09:00", day1_lines(fixture_db))
    # Day 2: all five cards are due; a two-card session leaves three of them for tomorrow.
    day2 = ["", "3", shown_letter(fixture_db, "2026-03-11", "B")]
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-11T09:00", day2, "--limit", "2")
    assert code == 0
    assert "Session over: 2 cards" in out
    back = re.search(r"Back tomorrow: (\d+) of these cards, and (\d+) cards from the rest", out)
    assert back is not None, out
    assert int(back.group(1)) <= 2 and int(back.group(2)) == 3


def test_a_profile_in_vietnamese_drills_in_vietnamese(
    fixture_db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The language comes from the profile's setting, read before the command runs."""
    assert main(["--db", fixture_db, "settings", "language", "vi"]) == 0
    capsys.readouterr()
    lines = ["", "3", "", "1", "q"]
    code, out = drill(monkeypatch, capsys, fixture_db, "2026-03-02T09:00:00", lines, "--limit", "2")
    assert code == 0, out
    assert "[Enter] xem đáp án · u hoàn tác" in out
    assert "Chấm điểm: 1 Lại · 2 Khó · 3 Tốt · 4 Dễ" in out
    assert "Hết phiên:" in out
    for english in ("[Enter] show the answer", "Grade:", "Session over", "Back tomorrow"):
        assert english not in out, english


@pytest.mark.parametrize(
    ("language", "said", "not_said"),
    [
        (
            "vi",
            [
                "Chưa đúng: đáp án là",
                "Bạn quên hệ số 2 cho K và V: mỗi lớp đều lưu cả key lẫn value vào cache.",
                "Lời giải chi tiết:",
                "Đáp án: ",
            ],
            ["Not quite", "You left out the factor 2", "Worked solution", "Answer: "],
        ),
        (
            "en",
            [
                "Not quite: expected",
                "You left out the factor 2 for K and V: every layer caches a key and a value.",
                "Worked solution:",
                "Answer: ",
            ],
            ["Chưa đúng", "Bạn quên", "Lời giải", "Đáp án"],
        ),
    ],
)
def test_a_wrong_typed_answer_is_diagnosed_and_worked_in_the_profile_s_language(
    monkeypatch, capsys, fixture_db, language: str, said: list[str], not_said: list[str]
) -> None:
    from kvdrill.app.services.drill import DrillSession

    database = open_database(fixture_db)
    variant = DrillSession.open(database, now=datetime(2026, 3, 10, 9), tag="drawn").current.variant
    database.close()
    without_factor_2 = f"{variant.expected_value / 2:g} {variant.unit}"
    assert main(["--db", fixture_db, "settings", "language", language]) == 0
    capsys.readouterr()
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-10T09:00")
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{without_factor_2}\n"))
    assert main(["--db", fixture_db, "drill", "--plain", "--tag", "drawn"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert [text for text in said if text not in out] == [], out
    assert [text for text in not_said if text in out] == [], out
