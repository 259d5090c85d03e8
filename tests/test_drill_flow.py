"""The drill flow on its own (app/services/drill_flow.py): no screen, no database, a fake clock."""

from __future__ import annotations

from kvdrill.app.services.drill import ChoiceResult
from kvdrill.app.services.drill_flow import HARD_COMES_BACK, Action, DrillFlow, Phase
from kvdrill.app.services.drill_steps import (
    AnswerChoice,
    AnswerProblem,
    ChoiceDone,
    GradeCard,
    Moved,
    ProblemDone,
    SetAside,
    ShowCard,
    ShowReveal,
    Summarise,
)
from kvdrill.engine.packs.card_view import CardView, DrillState
from kvdrill.engine.problems.types import Verdict


def card(card_id: int, kind: str = "recall") -> CardView:
    return CardView(
        card_id=card_id,
        key=f"c{card_id}",
        pack_key="p",
        pack_title="P",
        title=f"Card {card_id}",
        kind=kind,
        prompt="?",
    )


def state(*cards: CardView) -> DrillState:
    return DrillState(cards[0] if cards else None, len(cards), 0, 60)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def opened(*cards: CardView) -> tuple[DrillFlow, Clock]:
    clock = Clock()
    flow = DrillFlow(clock)
    assert isinstance(flow.opened(state(*cards)), ShowCard)
    assert flow.ready() is None
    return flow, clock


def test_reveal_then_grade_times_the_card_and_asks_for_the_grade() -> None:
    flow, clock = opened(card(1), card(2))
    clock.now += 5
    reveal = flow.press(Action.REVEAL)
    assert reveal == ShowReveal(HARD_COMES_BACK) and flow.phase is Phase.REVEALED
    assert flow.ready() is None
    clock.now += 2
    grade = flow.press(Action.DIGIT, 3)
    assert grade == GradeCard(quality=4, seconds=5.0, reveal_seconds=5.0, grade_seconds=2.0)


def test_a_grade_before_the_reveal_does_nothing() -> None:
    flow, _ = opened(card(1))
    assert flow.press(Action.DIGIT, 4) is None
    assert flow.phase is Phase.PROMPT


def test_keys_typed_while_an_answer_commits_apply_in_order_on_the_next_card() -> None:
    flow, _ = opened(card(1), card(2), card(3))
    flow.press(Action.REVEAL)
    flow.ready()
    assert isinstance(flow.press(Action.DIGIT, 4), GradeCard)
    # While the grade commits: the next card's reveal and grade, then bury.
    for action, arg in ((Action.REVEAL, None), (Action.DIGIT, 1), (Action.CHOOSE, "b")):
        assert flow.takes(action, arg)
        assert flow.press(action, arg) is None
    shown = flow.finished(Moved(state(card(2), card(3))))
    assert isinstance(shown, ShowCard) and flow.card == card(2)
    assert isinstance(flow.ready(), ShowReveal)  # the queued space, on card 2
    assert flow.ready() == GradeCard(1, 0.0, 0.0, 0.0)  # then its grade: Again
    flow.finished(Moved(state(card(3))))
    step = flow.ready()  # b on a recall card buries it
    assert step == SetAside(bury=True, title="Card 3")


def test_enter_typed_ahead_after_a_checked_answer_goes_to_the_next_card() -> None:
    flow, _ = opened(card(1, "problem"), card(2))
    assert isinstance(flow.press(Action.CHECK, "128 KiB"), AnswerProblem)
    assert flow.press(Action.CHECK, "128 KiB") is None  # Enter again, while it is checked
    verdict = Verdict(True, 5, "Right", "128 KiB", worked_solution="")
    flow.finished(ProblemDone(verdict, state(card(2))))
    assert flow.phase is Phase.ANSWERED
    assert isinstance(flow.ready(), ShowCard) and flow.card == card(2)


def test_keys_before_the_session_opens_wait_for_it() -> None:
    flow = DrillFlow(Clock())
    assert flow.press(Action.REVEAL) is None  # nothing on screen yet
    assert isinstance(flow.early(state(card(1))), ShowCard)
    assert isinstance(flow.ready(), ShowReveal)  # the early card can be revealed
    flow.ready()
    assert flow.press(Action.DIGIT, 4) is None  # a grade needs the session
    assert isinstance(flow.opened(state(card(1))), GradeCard)


def test_the_last_answer_leads_to_the_summary() -> None:
    flow, _ = opened(card(1))
    flow.press(Action.REVEAL)
    flow.ready()
    flow.press(Action.DIGIT, 4)
    assert isinstance(flow.finished(Moved(state())), ShowCard)
    assert flow.phase is Phase.OVER
    assert flow.ready() == Summarise()


def choice_card(card_id: int) -> CardView:
    from dataclasses import replace

    from kvdrill.engine.packs.card_view import choice_views

    choices = choice_views([{"text": "x", "correct": True}, {"text": "y"}, {"text": "z"}])
    return replace(card(card_id, "choice"), choices=choices)


def test_plain_mode_lines_are_the_flow_s_keys_for_the_phase_shown() -> None:
    """A line in plain mode stands for the key the TUI would press, by card kind and phase."""
    flow, _ = opened(card(1), choice_card(2), card(3, "problem"))
    assert flow.read_line("") == (Action.REVEAL, None)  # any line shows a recall answer
    assert flow.read_line("b") == (Action.BURY, None)
    assert flow.read_line("Quit") == (Action.LEAVE, None)
    flow.press(Action.REVEAL)
    flow.ready()
    assert flow.read_line("") is None  # after the reveal only a grade or a word counts
    assert flow.read_line("great") is None
    assert flow.read_line("3") == (Action.GRADE, 4)  # the labelled grade Good
    assert flow.read_line("g0") == (Action.GRADE, 0)
    flow.press(*flow.read_line("2"))
    flow.finished(Moved(state(choice_card(2), card(3, "problem"))))
    flow.ready()
    # On a choice card's prompt letters answer first: b is choice B, bury the word.
    assert flow.read_line("b") == (Action.CHECK, "b")
    assert flow.read_line("a, c") == (Action.CHECK, "a, c")
    assert flow.read_line("bury") == (Action.BURY, None)
    answer = flow.press(*flow.read_line("a"))
    assert isinstance(answer, AnswerChoice) and answer.letters == "a"
    flow.finished(ChoiceDone(ChoiceResult(True, 5, "A", "A", ""), state(card(3, "problem"))))
    assert flow.phase is Phase.ANSWERED and flow.read_line("u") is None  # Enter comes first
    flow.ready()
    assert isinstance(flow.press(Action.NEXT), ShowCard)
    flow.ready()
    assert flow.read_line("?") == (Action.GIVE_UP, None)
    assert flow.read_line(" 12 GiB") == (Action.CHECK, " 12 GiB")
    assert flow.read_line("") is None
