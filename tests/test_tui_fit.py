"""What did not fit at 80x24 (issue 25): each screen keeps in view what the learner reads."""

from __future__ import annotations

import pytest
from tui_helpers import (
    NOW,
    import_fixture,
    make_app,
    record_notices,
    screen_lines,
    settle,
    text_of,
)


async def test_after_the_reveal_the_question_stays_in_view_at_80x24(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", NOW)
    app = make_app(import_fixture(db_url, "long-solution"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")  # give up: the answer and its long worked solution
        await settle(pilot)
        shown = "\n".join(screen_lines(app))
        assert "vLLM starts Llama 3.1 8B" in shown  # the question's first line
        assert "The answer: 10x" in shown
        body = app.screen.query_one("#drill-body")
        assert body.max_scroll_y > 0  # the answer goes on below, for the arrows to read


async def test_a_toast_leaves_the_hint_line_over_the_footer_readable(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("s")  # suspend: a toast says which card
        for _ in range(50):
            await settle(pilot)
            if app.screen.query("Toast"):
                break
        await settle(pilot)
        lines = screen_lines(app)
        assert any("Suspended: KV bytes per token" in line for line in lines)
        hint = text_of(app, "#drill-hint")
        assert hint and lines[-2].strip() == hint.strip()


async def test_at_60x20_every_home_column_shows_whole_numbers(db_url: str) -> None:
    from textual.widgets import DataTable

    from kvdrill.app.app_options import AppOptions
    from kvdrill.app.tui import create_app

    app = create_app(db_url, start="home", options=AppOptions(bundled=True))
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#home-packs", DataTable)
        assert table.row_count > 5
        assert table.max_scroll_x == 0  # no column runs off to the right
        lines = screen_lines(app)
        assert any(line.split()[-1:] == ["Cards"] for line in lines)
        totals = {str(table.get_row_at(row)[3]) for row in range(table.row_count)}
        assert any(len(total) == 2 for total in totals)
        shown = " ".join(lines)
        for row in range(3):  # the first rows, on screen: each count whole at its line's end
            title, *counts = (str(cell) for cell in table.get_row_at(row))
            assert " ".join(counts) in " ".join(shown.split())


async def test_a_note_pasted_in_one_burst_and_saved_at_once_keeps_all_of_it(
    drill_db: str,
) -> None:
    from textual import events
    from textual.keys import _character_to_key

    pasted = (
        "Remember: K and V both count, so the factor is 2; GQA keeps 8 KV heads of 32 "
        "on Llama 3.1 8B."
    )
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "n")
        await settle(pilot)
        assert type(app.screen).__name__ == "NoteScreen"
        # As a terminal delivers a paste: every key at once, none waiting for the screen.
        for character in pasted:
            key = character if character.isalnum() else _character_to_key(character)
            app.post_message(events.Key(key, character))
        app.post_message(events.Key("ctrl+s", None))
        await settle(pilot)
        assert type(app.screen).__name__ == "DrillScreen"
        assert app.screen.card.note == pasted


async def test_on_a_problem_the_footer_and_the_key_list_say_esc_leaves_the_answer_box(
    problem_db: str,
) -> None:
    from kvdrill.app.tui.screens.help import key_rows

    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = screen_lines(app)[-1]
        assert "esc Leave box" in footer and "Home" not in footer
        meanings = {meaning: keys for keys, meaning in key_rows(app.screen)[0]}
        leaving = meanings["home (answers are saved); Esc in the answer box leaves it"]
        assert set(leaving.split()) == {"q", "Esc"}
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "DrillScreen"  # still on the card
        assert "q Home" in screen_lines(app)[-1]
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "HomeScreen"


FOLLOW_UP = "follow-up: How much KV does a 4,096-token chat take on that model?"


async def test_a_follow_up_set_aside_is_named_by_its_own_question(
    drill_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from kvdrill.app.cli import main

    app = make_app(drill_db)
    said = record_notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "3")  # KV bytes per token, Hard: its follow-up comes next
        await settle(pilot)
        assert app.screen.card.kind == "followup"
        await pilot.press("s")
        await settle(pilot)
    assert f"Suspended: {FOLLOW_UP}" in said
    assert main(["--db", drill_db, "drill", "--suspended"]) == 0
    assert capsys.readouterr().out == f"tui-basics/kv-token/follow-up  {FOLLOW_UP}\n"


async def test_burying_a_card_says_its_follow_up_goes_too(drill_db: str) -> None:
    app = make_app(drill_db)
    said = record_notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.card.title == "KV bytes per token"
        await pilot.press("b")
        await settle(pilot)
    assert said == ["Buried until tomorrow: KV bytes per token · its follow-up too"]


async def test_the_card_browser_pages_every_matching_card_onto_its_table(
    db_url: str, tmp_path
) -> None:
    from textual.widgets import DataTable

    from kvdrill.app.cli import main
    from kvdrill.app.tui.screens.cards import SHOWN_ROWS

    count = SHOWN_ROWS + 20
    cards = "".join(
        f"## Card {n} {{#c{n}}}\n\n### Prompt\n\nWhat is {n}?\n\n### Answer\n\n{n}.\n\n"
        for n in range(count)
    )
    pack = tmp_path / "many.md"
    pack.write_text(f"---\npack: many\ntitle: Many\nversion: 1\n---\n\n{cards}", encoding="utf-8")
    assert main(["--db", db_url, "import", str(pack)]) == 0
    app = make_app(db_url, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        table = app.screen.query_one("#cards-table", DataTable)
        assert table.row_count == SHOWN_ROWS
        assert f"{count} cards ({SHOWN_ROWS} shown, more at the end)" in text_of(
            app, "#cards-summary"
        )
        table.focus()
        await pilot.press("ctrl+end")  # to the last row shown: the next page joins
        await settle(pilot)
        assert table.row_count == count
        assert str(table.get_row_at(count - 1)[0]) == f"many/c{count - 1}"
        assert "shown" not in text_of(app, "#cards-summary")
