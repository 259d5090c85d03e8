"""``kvdrill drill --mistake CODE``: a session on one mistake, in plain mode and in the TUI.

The session's variants are fixed by the profile, the code and the clock (``KVDRILL_NOW``), so a
test opens the same session first to know the questions, then drives the real command.
"""

from __future__ import annotations

import io
import sys
from dataclasses import replace
from datetime import datetime

import pytest
from sqlalchemy import select

from kvdrill.app.app_options import AppOptions
from kvdrill.app.cli import main
from kvdrill.app.services.mistakes import MistakeSession
from kvdrill.engine.problems.checker import expected_text
from kvdrill.engine.problems.mistake_sentences import SENTENCES
from kvdrill.store.db import open_database
from kvdrill.store.models import ReviewLog

NOW = "2026-03-10T09:00"


@pytest.fixture
def bundled_db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A database with the bundled decks in it (their problem templates are the questions)."""
    from kvdrill.app.services.importing import import_bundled

    database = open_database(db_url)
    import_bundled(database, datetime(2026, 3, 1))
    database.close()
    return db_url


def peek(db_url: str, code: str, count: int):
    """The exercises the command will show at ``NOW``."""
    database = open_database(db_url)
    try:
        session = MistakeSession.open_for(
            database, code, now=datetime.fromisoformat(NOW), count=count
        )
        return session.exercises
    finally:
        database.close()


def plain(monkeypatch, capsys, db_url: str, lines: list[str], *options: str) -> tuple[int, str]:
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = main(["--db", db_url, "drill", "--plain", *options])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out


def logged(db_url: str) -> list[tuple[str | None, int | None, int, str | None]]:
    database = open_database(db_url)
    with database.session() as session:
        rows = session.execute(
            select(
                ReviewLog.template_id, ReviewLog.seed, ReviewLog.quality, ReviewLog.mistake
            ).order_by(ReviewLog.id)
        ).all()
    database.close()
    return [tuple(row) for row in rows]


def test_plain_mistake_session_names_the_mistake_and_accepts_right_answers(
    monkeypatch, capsys, bundled_db
) -> None:
    first, second, third = peek(bundled_db, "kv_factor_2", 3)
    assert len({first.template_id, second.template_id, third.template_id}) == 3
    lines = [
        first.wrong_answer,  # the mistake itself
        expected_text(second.variant),
        expected_text(third.variant),
    ]  # then the pipe runs dry on the first question's return
    code, out = plain(
        monkeypatch, capsys, bundled_db, lines, "--mistake", "kv_factor_2", "--count", "3"
    )
    assert code == 0
    assert "Practising forgot the factor 2 for K and V (kv_factor_2)" in out
    assert SENTENCES["kv_factor_2"] in " ".join(out.split())  # re-flowed to the terminal
    assert out.count("Correct: ") == 2
    assert "[4/4]" in out  # the missed question comes back, with other numbers
    assert "Practised: forgot the factor 2 for K and V (kv_factor_2)." in out
    # Logged like any answer: the variants shown, the diagnosis for stats.
    rows = logged(bundled_db)
    assert [(template, seed, mistake) for template, seed, _, mistake in rows] == [
        (first.template_id, first.seed, "kv_factor_2"),
        (second.template_id, second.seed, None),
        (third.template_id, third.seed, None),
    ]
    assert [quality >= 4 for _, _, quality, _ in rows] == [False, True, True]


def test_an_unknown_code_is_one_line_listing_the_codes_and_exit_2(
    monkeypatch, capsys, bundled_db
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    code = main(["--db", bundled_db, "drill", "--plain", "--mistake", "kv_factr_2"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "'kv_factr_2' is not a mistake code (did you mean 'kv_factor_2'?)" in err
    assert "kv_factor_2, " in err and "sliding_window" not in err
    assert "weights_not_subtracted" not in err  # no bundled template makes it show


def test_a_code_no_template_can_show_is_one_sentence(monkeypatch, capsys, bundled_db) -> None:
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    code = main(["--db", bundled_db, "drill", "--plain", "--mistake", "weights_not_subtracted"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == (
        "kvdrill: None of your problem templates gives numbers where the mistake "
        "'weights_not_subtracted' shows, so there is nothing to practise it on.\n"
    )


def test_options_that_do_not_go_with_mistake_are_refused(monkeypatch, capsys, bundled_db) -> None:
    assert main(["--db", bundled_db, "drill", "--plain", "--count", "3"]) == 1
    assert "--count goes with --mistake" in capsys.readouterr().err
    assert main(["--db", bundled_db, "drill", "--mistake", "gb_vs_gib", "--pack", "x"]) == 1
    assert "--pack does not go with --mistake" in capsys.readouterr().err


def test_stats_text_closes_its_mistakes_with_one_to_practise(
    monkeypatch, capsys, bundled_db
) -> None:
    (first,) = peek(bundled_db, "gb_vs_gib", 1)
    plain(monkeypatch, capsys, bundled_db, [first.wrong_answer], "--mistake", "gb_vs_gib")
    assert main(["--db", bundled_db, "stats"]) == 0
    out = capsys.readouterr().out
    mistakes = out.split("\nMistakes:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert mistakes[0].startswith("  GB and GiB mixed up in 1 of your last 1")
    assert mistakes[-1] == "  practise one: kvdrill drill --mistake gb_vs_gib"


def test_stats_text_offers_no_mistake_no_template_can_show(capsys, stats_db) -> None:
    # The hand-built log holds a GB/GiB mistake, but this collection has no problem template.
    assert main(["--db", stats_db, "stats"]) == 0
    out = capsys.readouterr().out
    assert "GB and GiB mixed up" in out and "practise one" not in out


async def test_enter_on_a_mistake_in_stats_drills_variants_that_exercise_it(
    monkeypatch, capsys, bundled_db
) -> None:
    from stats_helpers import open_stats
    from textual.widgets import DataTable, Static
    from tui_helpers import make_app, settle, text_of

    from kvdrill.app.tui.screens.summary import summary_lines

    (first,) = peek(bundled_db, "gb_vs_gib", 1)
    plain(monkeypatch, capsys, bundled_db, [first.wrong_answer], "--mistake", "gb_vs_gib")
    exercises = peek(bundled_db, "gb_vs_gib", 10)
    app = make_app(bundled_db, start="home")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_stats(pilot)
        heading = str(app.screen.query_one("#mistakes", Static).render())
        assert heading == "Mistakes · Enter on one practises it"
        table = app.screen.query_one("#mistake-table", DataTable)
        assert [str(cell) for cell in table.get_row_at(0)] == [
            "GB and GiB mixed up in 1 of your last 1 diagnosed mistakes (1 in 30 days).",
            "gb_vs_gib",
        ]
        table.focus()
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert type(screen).__name__ == "DrillScreen"
        assert screen.narrow == {"mistake": "gb_vs_gib"}
        shown = screen.card.variant
        assert (shown.template_id, shown.seed) == (exercises[0].template_id, exercises[0].seed)
        assert screen.session.practised == "GB and GiB mixed up (gb_vs_gib)"
        # The same variants, in the same order, as the engine picked for this session.
        assert [(e.template_id, e.seed) for e in screen.session.exercises] == [
            (e.template_id, e.seed) for e in exercises
        ]
        # The mistake typed in the TUI is named, and the summary says what was practised.
        screen.query_one("#drill-input").value = exercises[0].wrong_answer
        await pilot.press("enter")
        await settle(pilot)
        assert "the gap between decimal and binary units" in text_of(app, "#drill-reveal")
        summary = "\n".join(line.plain for line in summary_lines(screen.session.summary()))
        assert "Practised        GB and GiB mixed up (gb_vs_gib)" in summary


async def test_drill_mistake_opens_the_tui_on_that_session(monkeypatch, bundled_db) -> None:
    from tui_helpers import settle

    import kvdrill.app.tui as tui

    create_app = tui.create_app
    launched = []

    class Launch:
        def __init__(self, *args, **kwargs) -> None:
            launched.append(kwargs["options"])

        def run(self) -> None:
            pass

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    monkeypatch.setattr(tui, "create_app", Launch)
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr(sys, "stdout", Terminal())
    assert main(["--db", bundled_db, "drill", "--mistake", "tp_missing", "--count", "4"]) == 0
    # No fast-start helper: it would read today's first card, not this session's.
    assert launched == [AppOptions(mistake="tp_missing", count=4)]

    exercises = peek(bundled_db, "tp_missing", 4)
    app = create_app(bundled_db, start="drill", options=replace(launched[0], bundled=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert (
            screen.session.practised == "forgot to divide across tensor-parallel GPUs (tp_missing)"
        )
        assert screen.session.remaining == 4
        assert screen.card.variant.seed == exercises[0].seed
