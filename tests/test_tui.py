"""The TUI driven with Pilot on the real stack: a tmp database holding a small fixture pack."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input
from tui_helpers import FIXTURES, NOW, logged, make_app, settle, text_of

ROOT = Path(__file__).resolve().parent.parent


def card_title(app) -> str:
    """The current card's title, with ``(follow-up)`` for a follow-up (it shares its title)."""
    card = app.screen.card
    if card is None:
        return ""
    return card.title + (" (follow-up)" if card.kind == "followup" else "")


def review_rows(db_url: str) -> list[tuple[str, int]]:
    from sqlalchemy import select

    from kvdrill.store.db import open_database
    from kvdrill.store.models import Card, ReviewLog

    database = open_database(db_url)
    with database.session() as session:
        rows = session.execute(
            select(Card.key, ReviewLog.quality).join(Card).order_by(ReviewLog.id)
        ).all()
    database.close()
    return [tuple(row) for row in rows]


async def test_reveal_and_grade_moves_on_and_logs_the_quality(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert card_title(app) == "KV bytes per token"
        prompt = text_of(app, "#drill-prompt")
        assert "[bold red]this[/]" in prompt  # pack text is never read as markup
        assert not app.screen.query_one("#drill-reveal").display
        await pilot.press("space")
        await settle(pilot)
        revealed = text_of(app, "#drill-reveal")
        assert "128 KiB" in revealed and "factor 2" in revealed and "Key numbers" in revealed
        await pilot.press("3")  # Good
        await settle(pilot)
        assert card_title(app) != "KV bytes per token"
    assert review_rows(drill_db) == [("kv-token", 4)]


async def test_exact_grade_with_g_then_a_digit(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "g", "5")
        await settle(pilot)
    assert review_rows(drill_db) == [("kv-token", 5)]


async def test_grades_need_the_answer_revealed_first(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert card_title(app) == "KV bytes per token"
    assert review_rows(drill_db) == []


async def test_follow_up_comes_after_its_parent(drill_db: str) -> None:
    app = make_app(drill_db)
    seen = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(6):
            card = app.screen.card
            if card is None or card.kind == "choice":
                break
            seen.append((card.kind, card_title(app)))
            await pilot.press("space", "4")
            await settle(pilot)
    kinds = [kind for kind, _ in seen]
    assert "followup" in kinds
    assert kinds.index("followup") > [t for _, t in seen].index("KV bytes per token")


async def test_a_missed_card_comes_back_marked_again(drill_db: str) -> None:
    app = make_app(drill_db)
    titles = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "1")  # Again on the first card
        await settle(pilot)
        for _ in range(8):
            card = app.screen.card
            if card is None:
                break
            titles.append((card_title(app), card.is_repeat, text_of(app, "#drill-where")))
            if card_title(app) == "KV bytes per token":
                break
            if card.kind == "choice":
                await pilot.press("c")
                await settle(pilot)
                await pilot.press("enter")
            else:
                await pilot.press("space", "4")
            await settle(pilot)
    assert titles[-1][0] == "KV bytes per token"
    assert titles[-1][1] and "again" in titles[-1][2]
    assert len(titles) > 1  # other cards came in between


async def drill_to_choice(pilot) -> None:
    for _ in range(6):
        if pilot.app.screen.card.kind == "choice":
            return
        await pilot.press("space", "4")
        await settle(pilot)
    raise AssertionError("no multiple-choice card reached")


async def test_multiple_choice_right_shows_explanation_and_related(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await drill_to_choice(pilot)
        await pilot.press(app.screen.card.correct_letters.lower())  # the order is shuffled
        await settle(pilot)
        assert app.screen.phase == "answered"
        assert "Correct" in text_of(app, "#drill-verdict")
        revealed = text_of(app, "#drill-reveal")
        assert "KV cache dominates" in revealed and "grouped-query" in revealed
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert type(screen).__name__ == "SummaryScreen" or screen.card.key != "binding"
    assert review_rows(drill_db)[-1] == ("binding", 4)


async def test_multiple_choice_wrong_names_the_right_letter(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await drill_to_choice(pilot)
        card = app.screen.card
        wrong = next(choice.letter for choice in card.choices if not choice.correct)
        await pilot.press(wrong.lower())  # a choice letter here, even b: not bury
        await settle(pilot)
        verdict = text_of(app, "#drill-verdict")
        assert "Not quite" in verdict and card.correct_letters in verdict
        assert f"✗ **{wrong}.**" in text_of(app, "#drill-choices")
    assert review_rows(drill_db)[-1] == ("binding", 1)


async def test_undo_puts_the_card_back_and_removes_the_answer(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "4")
        await settle(pilot)
        assert card_title(app) != "KV bytes per token"
        await pilot.press("u")
        await settle(pilot)
        assert card_title(app) == "KV bytes per token"
        assert app.screen.phase == "prompt"
    assert review_rows(drill_db) == []


async def test_suspend_takes_the_card_out(drill_db: str) -> None:
    from sqlalchemy import select

    from kvdrill.store.db import open_database
    from kvdrill.store.models import Card, CardState

    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert card_title(app) != "KV bytes per token"
    database = open_database(drill_db)
    with database.session() as session:
        suspended = session.scalar(
            select(CardState.suspended).join(Card).where(Card.key == "kv-token")
        )
    assert suspended is True


async def test_note_is_written_and_shown_on_reveal(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "n")
        await settle(pilot)
        await pilot.press(*"I forgot the 2")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "I forgot the 2" in text_of(app, "#drill-reveal")
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        assert "I forgot the 2" in text_of(app, "#drill-reveal")


async def test_leaving_mid_session_keeps_answers_and_home_counts_them(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "4")
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert type(app.screen).__name__ == "HomeScreen"
        assert "1 reviewed" in text_of(app, "#home-today")
    assert review_rows(drill_db) == [("kv-token", 5)]


async def test_the_whole_session_ends_with_a_summary(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        letter = "a"  # wrong the first time, right when it comes back
        for _ in range(10):
            screen = app.screen
            if type(screen).__name__ == "SummaryScreen":
                break
            if screen.card.kind == "choice":
                await pilot.press(letter)
                letter = "c"
                await settle(pilot)
                await pilot.press("enter")
            else:
                await pilot.press("space", "4")
            await settle(pilot)
        assert type(app.screen).__name__ == "SummaryScreen"
        summary = text_of(app, "#summary-text")
        assert "Session done" in summary
        assert "Cards done" in summary and "Topics missed" in summary and "kv-cache" in summary
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "HomeScreen"


async def test_home_shows_counts_per_pack(drill_db: str) -> None:
    app = make_app(drill_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#home-packs")
        row = table.get_row("tui-basics")
        assert [str(cell) for cell in row[1:]] == ["0", "4", "4"]
        await pilot.press("d")
        await settle(pilot)
        assert type(app.screen).__name__ == "DrillScreen"


async def test_question_mark_lists_the_keys_of_the_drill(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        keys = text_of(app, "#help-text")
        assert "exact SM-2 quality 0..5" in keys and "Again / Hard / Good / Easy" in keys
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "DrillScreen"


async def test_theme_toggles_between_light_and_dark(drill_db: str) -> None:
    app = make_app(drill_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        before = app.theme
        await pilot.press("ctrl+t")
        assert app.theme != before
        await pilot.press("ctrl+t")
        assert app.theme == before


async def test_import_lists_errors_as_path_line_message(drill_db: str) -> None:
    bad = FIXTURES / "bad"
    app = make_app(drill_db, start="import")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one("#import-path", Input).value = str(bad)
        await pilot.press("enter")
        await settle(pilot)
        errors = text_of(app, "#import-errors")
        assert f"{bad / 'broken.md'}:15: unknown section" in errors
        assert "4 errors: nothing will be imported" in text_of(app, "#import-status")
        await pilot.press("y")  # refused: there are errors
        await settle(pilot)
    from sqlalchemy import select

    from kvdrill.store.db import open_database
    from kvdrill.store.models import Pack

    database = open_database(drill_db)
    with database.session() as session:
        assert list(session.scalars(select(Pack.key))) == ["tui-basics"]


async def test_import_refuses_a_pack_that_takes_a_bundled_packs_id(
    drill_db: str, tmp_path: Path
) -> None:
    pack = tmp_path / "mine.md"
    text = (FIXTURES / "good" / "tui-basics.md").read_text(encoding="utf-8")
    pack.write_text(text.replace("pack: tui-basics", "pack: memory-and-capacity"), "utf-8")
    app = make_app(drill_db, start="import")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one("#import-path", Input).value = str(pack)
        await pilot.press("enter")
        await settle(pilot)
        errors = text_of(app, "#import-errors")
        assert f"{pack}:1: pack id 'memory-and-capacity' belongs to a bundled pack" in errors
        assert "nothing will be imported" in text_of(app, "#import-status")


async def test_import_dry_run_then_confirm(drill_db: str, tmp_path: Path) -> None:
    pack = tmp_path / "extra.md"
    text = (FIXTURES / "good" / "tui-basics.md").read_text(encoding="utf-8")
    pack.write_text(text.replace("pack: tui-basics", "pack: extra"), encoding="utf-8")
    app = make_app(drill_db, start="import")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one("#import-path", Input).value = str(tmp_path)
        await pilot.press("enter")
        await settle(pilot)
        row = app.screen.query_one("#import-diff").get_row("extra")
        assert [str(cell) for cell in row[1:]] == ["4", "0", "0", "0"]
        assert "Dry run" in text_of(app, "#import-status")
        await pilot.press("enter")  # Enter again on the scanned path imports it
        await settle(pilot)
        assert "Imported 1 pack" in text_of(app, "#import-status")
        assert app.screen.query_one("#import-progress").percentage == 1
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one("#home-packs").row_count == 2


async def test_fast_start_helper_card_is_shown_then_answered_through_the_session(
    drill_db: str,
) -> None:
    import gc

    from kvdrill.app.services.first_card import start

    helper = start(drill_db, "default", {})
    assert helper is not None
    app = make_app(drill_db, first_card=helper)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.first_card_source == "helper"  # painted before the session was open
        assert app.screen.session is not None
        assert gc.isenabled()  # paused for the start only
        assert card_title(app) == "KV bytes per token"
        await pilot.press("space", "3")
        await settle(pilot)
        assert card_title(app) == "KV bytes per token (follow-up)"
    assert review_rows(drill_db) == [("kv-token", 4)]


def problem_log(db_url: str) -> list[tuple[int, str | None, str | None]]:
    return logged(db_url, "quality", "typed_answer", "mistake")


async def type_answer(pilot, text: str) -> None:
    pilot.app.screen.query_one("#drill-input", Input).value = text
    await pilot.press("enter")
    await settle(pilot)


async def test_typed_answer_right_shows_verdict_and_solution(problem_db: str) -> None:
    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.card.kind == "problem"
        assert "Llama 3.1 8B" in text_of(app, "#drill-prompt")
        assert app.focused is app.screen.query_one("#drill-input")
        await type_answer(pilot, "128 KiB")
        assert app.screen.phase == "answered"
        assert "-correct" in app.screen.query_one("#drill-verdict").classes
        assert "Worked solution" in text_of(app, "#drill-reveal")
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "SummaryScreen"
    assert problem_log(problem_db)[0][:2] == (5, "128 KiB")


async def test_typed_answer_wrong_is_diagnosed_and_comes_back(problem_db: str) -> None:
    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_answer(pilot, "512 KiB")  # attention heads instead of KV heads
        assert app.screen.phase == "answered"
        assert "-wrong" in app.screen.query_one("#drill-verdict").classes
        verdict = text_of(app, "#drill-verdict")
        assert "128 KiB" in verdict and "You typed: 512 KiB" in verdict
        revealed = text_of(app, "#drill-reveal")
        assert "attention heads" in revealed  # the diagnosis
        assert "Worked solution" in revealed
        await pilot.press("enter")
        await settle(pilot)
        # Missed: the same template comes back in this session.
        assert app.screen.card is not None and app.screen.card.kind == "problem"
        assert "again" in text_of(app, "#drill-where")
    quality, typed, _ = problem_log(problem_db)[0]
    assert quality < 3 and typed == "512 KiB"


async def test_garbage_answer_is_not_graded_and_the_card_stays(problem_db: str) -> None:
    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_answer(pilot, "about a banana")
        assert app.screen.phase == "prompt"
        assert "Not graded, try again" in text_of(app, "#drill-verdict")
        assert app.focused is app.screen.query_one("#drill-input")
        await type_answer(pilot, "128 KiB")
        assert app.screen.phase == "answered"
    assert [row[:2] for row in problem_log(problem_db)] == [(5, "128 KiB")]


async def test_give_up_shows_the_solution_and_grades_zero(problem_db: str) -> None:
    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert app.screen.phase == "answered"
        assert "Worked solution" in text_of(app, "#drill-reveal")
    assert problem_log(problem_db)[0][0] == 0


async def test_a_note_written_after_a_wrong_answer_lands_on_that_card(problem_db: str) -> None:
    from sqlalchemy import select

    from kvdrill.store.db import open_database
    from kvdrill.store.models import Card, Note

    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await type_answer(pilot, "512 KiB")
        await pilot.press("n")
        await settle(pilot)
        await pilot.press(*"KV heads, not heads")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "KV heads, not heads" in text_of(app, "#drill-reveal")
        assert "Worked solution" in text_of(app, "#drill-reveal")  # the verdict stays
    database = open_database(problem_db)
    with database.session() as session:
        notes = session.execute(select(Card.key, Note.text).join(Card)).all()
    assert [tuple(n) for n in notes] == [("kv-token-fixed", "KV heads, not heads")]


async def test_home_names_the_weakest_topics_once_there_are_misses(drill_db: str) -> None:
    from kvdrill.app.services.drill import DrillSession
    from kvdrill.store.db import open_database

    database = open_database(drill_db)
    session = DrillSession.open(database)
    for _ in range(8):  # miss everything: each miss comes back in the session
        card = session.current
        if card is None:
            break
        if card.kind == "choice":
            session.answer_choice("A")
        else:
            session.grade(1)
    database.close()
    app = make_app(drill_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        weak = text_of(app, "#home-weak")
        assert weak.startswith("Weakest topics: ")
        assert "tag kv-cache" in weak and "#kv-cache" not in weak


async def test_countdown_pauses_and_says_when_time_is_up(drill_db: str) -> None:
    from kvdrill.app.tui.widgets.countdown import Countdown

    now = [0.0]
    app = make_app(drill_db, answer_seconds=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        timer = app.screen.query_one(Countdown)
        timer.clock = lambda: now[0]
        timer.restart()
        now[0] = 30.0
        await pilot.press("p")
        await pilot.pause()
        assert "paused 0:30" in str(timer.visual)
        now[0] = 100.0  # paused time does not count
        await pilot.press("p")
        await pilot.pause(0.3)
        assert "0:30" in str(timer.visual)
        now[0] = 131.0
        await pilot.pause(0.4)
        assert "time's up" in str(timer.visual)


async def test_an_unknown_pack_is_one_clear_line_on_screen(drill_db: str) -> None:
    app = make_app(drill_db, pack="nope")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "there is no pack 'nope'" in text_of(app, "#drill-verdict")
        await pilot.press("q")
        await settle(pilot)
        assert type(app.screen).__name__ == "HomeScreen"


async def test_typing_y_in_the_path_box_does_not_import(drill_db: str, tmp_path: Path) -> None:
    app = make_app(drill_db, start="import")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#import-path", Input)
        box.value = str(FIXTURES / "good")
        await pilot.press("enter")
        await settle(pilot)
        assert "Dry run" in text_of(app, "#import-status")
        box.focus()
        await pilot.press("end", "y")
        await settle(pilot)
        assert box.value.endswith("goody")
        assert "Dry run" in text_of(app, "#import-status")


async def test_escape_leaves_the_answer_box_so_a_problem_can_be_suspended(problem_db: str) -> None:
    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        assert type(app.screen).__name__ == "DrillScreen"
        await pilot.press("enter")  # back to typing
        assert app.focused is app.screen.query_one("#drill-input")
        await pilot.press("escape", "s")
        await settle(pilot)
        assert type(app.screen).__name__ == "SummaryScreen"  # the only card is set aside


async def test_bury_hides_the_card_until_tomorrow(drill_db: str) -> None:
    from sqlalchemy import select

    from kvdrill.store.db import open_database
    from kvdrill.store.models import Card, CardState

    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert card_title(app) != "KV bytes per token"
    database = open_database(drill_db)
    with database.session() as session:
        buried = session.scalar(
            select(CardState.buried_until).join(Card).where(Card.key == "kv-token")
        )
    assert buried is not None and buried.isoformat() > NOW[:10]


async def test_command_palette_opens_the_import_screen(drill_db: str) -> None:
    app = make_app(drill_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Import packs")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "ImportScreen"


def test_importing_the_tui_loads_no_database_or_math_library() -> None:
    """The first screen paints before SQLAlchemy, sympy or pint are imported (fast start), and
    before the screens a drill does not open first (their tables are built when first shown)."""
    import subprocess
    import sys

    heavy = (
        "sqlalchemy",
        "sympy",
        "pint",
        "pydantic",
        "kvdrill.app.tui.screens.home",
        "kvdrill.app.tui.screens.import_",
        "kvdrill.app.tui.screens.help",
        "kvdrill.app.services.importing",
        "kvdrill.store.fast_start",
    )
    code = (
        "import sys, kvdrill.app.tui, kvdrill.app.services.first_card; "
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.strip()
    assert loaded == ""


# Libraries the first card of a drill never needs: the store, the formula engine, units, the
# pack parser's YAML and pydantic.
NOT_BEFORE_THE_FIRST_CARD = ("sqlalchemy", "alembic", "pydantic", "sympy", "pint", "yaml")


def test_a_drill_paints_its_first_card_before_any_heavy_library_loads(drill_db: str) -> None:
    """What ``kvdrill drill`` does, in a new process, up to the first card on screen: the
    modules loaded at that moment (the daily backup and the session open the store after)."""
    import subprocess
    import sys

    code = f"""
import sys
from kvdrill.app.services.first_card import start
from kvdrill.app.app_options import AppOptions
from kvdrill.app.tui import create_app
from kvdrill.app.tui.screens.drill import DrillScreen

painted = DrillScreen._first_card_painted
loaded = []

def probe(self, source):
    names = {NOT_BEFORE_THE_FIRST_CARD!r}
    loaded.append((source, sorted(m for m in sys.modules if m.split(".")[0] in names)))
    painted(self, source)
    self.app.exit()

DrillScreen._first_card_painted = probe
helper = start({drill_db!r}, "default", {{}})
create_app({drill_db!r}, start="drill", options=AppOptions(bundled=False, first_card=helper)).run(
    headless=True
)
print(loaded)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[('helper', [])]"


BIDI_PACK = (
    '---\npack: bidi\ntitle: "Pack \u2067hidden\u2069"\nversion: 1\n---\n\n'
    "## Cost \u202egnp.exe\u202c of a\u200btoken {#cost}\n\n"
    "### Prompt\nWhich is bigger, \u2066A\u2069 or B\u200d?\n\n### Answer\nA, \u202ethen B.\n"
)


async def test_bidi_and_zero_width_characters_reach_the_screen_escaped(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kvdrill.app.cli import main

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    pack = tmp_path / "bidi.md"
    pack.write_text(BIDI_PACK, encoding="utf-8")
    assert main(["--db", db_url, "import", str(pack)]) == 0
    app = make_app(db_url)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        where = text_of(app, "#drill-where")
        assert "Pack \\u2067hidden\\u2069 · Cost \\u202egnp.exe\\u202c of a\\u200btoken" in where
        assert "Which is bigger, \\u2066A\\u2069 or B\\u200d?" in text_of(app, "#drill-prompt")
        await pilot.press("space")
        await settle(pilot)
        assert "A, \\u202ethen B." in text_of(app, "#drill-reveal")
        for selector in ("#drill-where", "#drill-prompt", "#drill-reveal"):
            text = text_of(app, selector)
            assert all(ch.isprintable() or ch in "\n\t" for ch in text), repr(text)


async def test_the_first_start_of_the_day_keeps_a_backup(drill_db: str, tmp_path: Path) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    assert [p.name for p in (tmp_path / "backups").iterdir()] == [f"kvdrill-{NOW[:10]}.db"]


async def test_focus_at_start_and_after_the_keys_overlay_is_as_the_screen_sets_it(
    drill_db: str,
) -> None:
    """The drill screen builds without auto focus (fast start) and gets it back once its
    session is open: a recall card starts with nothing focused, and closing the keys overlay
    focuses the card body, as before."""
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.card.kind == "recall" and app.focused is None
        await pilot.press("question_mark")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is app.screen.query_one("#drill-body")
