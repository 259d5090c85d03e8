"""What a new learner tripped on in the TUI (issue 13), driven with Pilot on the real stack."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from textual.widgets import Input
from tui_helpers import (
    FIXTURES,
    NOW,
    import_fixture,
    logged,
    make_app,
    record_notices,
    settle,
    text_of,
)

from kvdrill.app.tui.widgets.card_markdown import CardMarkdown
from kvdrill.app.tui.widgets.countdown import Countdown


async def test_the_answer_box_says_which_unit_a_bare_number_is_read_in(problem_db: str) -> None:
    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        line = text_of(app, "#drill-unit")
        assert app.screen.query_one("#drill-unit").display
        assert "Answer in KiB" in line and "bare number is read in KiB" in line


@pytest.mark.parametrize("width", [80, 100])
async def test_the_worked_solution_wraps_instead_of_being_cut(
    db_url: str, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    from textual.widgets._markdown import MarkdownFence

    monkeypatch.setenv("KVDRILL_NOW", NOW)
    app = make_app(import_fixture(db_url, "long-solution"))
    async with app.run_test(size=(width, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        solution = app.screen.card.variant.context
        fences = list(app.screen.query_one("#drill-reveal").query(MarkdownFence))
        assert fences and solution
        widest = max(len(line) for fence in fences for line in fence.code.splitlines())
        assert widest > width - 4  # the test means something: a line wider than the screen
        for fence in fences:
            assert fence.max_scroll_x == 0  # nothing hidden to the right
            assert fence.query_one("#code-content").region.right <= fence.region.right


async def test_a_priority_card_carries_a_badge(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.card.title == "KV bytes per token"
        assert "priority" in text_of(app, "#drill-where")
        await pilot.press("space", "3")
        await settle(pilot)
        assert "priority" not in text_of(app, "#drill-where").split(" · KV")[1:]


async def test_after_the_dry_run_typed_letters_go_to_the_path_box(
    drill_db: str, tmp_path: Path
) -> None:
    pack = tmp_path / "extra.md"
    text = (FIXTURES / "good" / "tui-basics.md").read_text(encoding="utf-8")
    pack.write_text(text.replace("pack: tui-basics", "pack: extra"), encoding="utf-8")
    app = make_app(drill_db, start="import")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#import-path", Input)
        box.value = str(tmp_path)
        await pilot.press("enter")
        await settle(pilot)
        assert "Dry run" in text_of(app, "#import-status")
        changes = text_of(app, "#import-changes")
        assert "added  TUI basics: KV bytes per token" in changes
        await pilot.press("/", "m", "y")  # typing on, without clicking back into the box
        await settle(pilot)
        assert box.value == f"{tmp_path}/my"
        assert "Imported" not in text_of(app, "#import-status")


async def test_suspend_and_bury_say_which(drill_db: str) -> None:
    app = make_app(drill_db)
    said = record_notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        while app.screen.card.kind == "choice":  # there b is a choice letter: answer it
            await pilot.press(app.screen.card.correct_letters.lower(), "enter")
            await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
    # Its follow-up, new too, is held for it: the notice says where it went.
    assert "Suspended: KV bytes per token · its follow-up waits for it" in said
    assert any(note.startswith("Buried until tomorrow: ") for note in said)


async def test_the_countdown_holds_behind_the_keys_overlay(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        timer = app.screen.query_one(Countdown)
        assert not timer.paused
        await pilot.press("question_mark")
        await settle(pilot)
        assert timer.paused
        await pilot.press("escape")
        await settle(pilot)
        assert not timer.paused


async def test_with_kvdrill_now_the_countdown_runs_and_reviews_log_real_seconds(
    drill_db: str,
) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.pause(0.05)
        assert app.screen.query_one(Countdown).spent > 0
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
    [(seconds, reveal, grade)] = logged(drill_db, "seconds", "reveal_seconds", "grade_seconds")
    assert seconds > 0 and reveal is not None and grade is not None
    assert reveal >= seconds and grade > 0


async def test_no_text_of_the_previous_card_shows_while_the_next_is_laid_out(
    problem_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Card text fills in after ``update``: it must be hidden meanwhile (the Ctrl+G flash)."""
    seen: list[tuple[str, bool]] = []
    original = CardMarkdown.update

    def watched(self, markdown: str):
        body = self.screen.query_one("#drill-body")
        seen.append((self.id, bool(self.display and body.display)))
        return original(self, markdown)

    monkeypatch.setattr(CardMarkdown, "update", watched)
    app = make_app(problem_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen.clear()  # from the first card on
        await pilot.press("ctrl+g")
        await settle(pilot)
        await pilot.press("enter")  # the same problem again: it was missed
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
    shown_while_filled = [name for name, shown in seen if shown and name != "drill-choices"]
    assert seen and shown_while_filled == []


async def test_a_follow_up_names_its_parent(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#drill-context").display
        await pilot.press("space", "3")
        await settle(pilot)
        assert app.screen.card.kind == "followup"
        assert app.screen.query_one("#drill-context").display
        assert text_of(app, "#drill-context") == "Follow-up to: KV bytes per token"


async def test_the_first_reveal_says_hard_brings_the_card_back_today(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        assert "2 Hard bring this card back later in this session" in text_of(app, "#drill-reveal")
        await pilot.press("3", "space")
        await settle(pilot)
        assert "2 Hard" not in text_of(app, "#drill-reveal")  # once per session


async def test_home_counts_suspended_cards_and_names_the_kind_of_weak_topics(
    drill_db: str,
) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")  # suspend KV bytes per token: its follow-up waits with it
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        table = app.screen.query_one("#home-packs")
        assert [str(cell) for cell in table.get_row("tui-basics")[1:]] == ["0", "2", "4"]
        assert "1 suspended" in text_of(app, "#home-today")


async def test_unseen_leaves_out_the_follow_up_of_a_buried_card(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")  # bury KV bytes per token until tomorrow
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        table = app.screen.query_one("#home-packs")
        assert [str(cell) for cell in table.get_row("tui-basics")[1:]] == ["0", "2", "4"]


def test_weak_topics_say_tag_or_pack() -> None:
    from kvdrill.app.services.overview import topic_name

    titles = {"memory": "Memory and capacity"}
    assert topic_name("tag", "kv-cache", titles) == "tag kv-cache"
    assert topic_name("pack", "memory", titles) == "pack Memory and capacity"
    assert topic_name("lesson", "17", titles) == "lesson 17"


async def test_at_80x24_the_footer_and_the_keys_fit(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        footer = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert "Keys" in footer and "palette" in footer
        await pilot.press("question_mark")
        await settle(pilot)
        box = app.screen.query_one("#help-box")
        assert box.max_scroll_y == 0  # every key visible without scrolling
