"""What the drill flow (app/services/drill_flow.py) asks its driver to do, and what comes back.

A key given to the flow yields at most one step. A ``Show...`` step, ``Notice``, ``OpenNote``,
``FocusAnswer`` and ``Leave`` are for the screen alone. A session call (``GradeCard``,
``AnswerChoice``...) talks to the store: the TUI runs its ``run`` in a worker thread, plain mode
runs it in line; either way the ``Done`` it returns goes back to ``DrillFlow.finished`` on the
driver's own thread, which turns it into the next step. Steps are named tuples: one is made
per key, and a tuple class is the cheapest to define on the way to the first card. Nothing here imports the store or
Textual: the session is reached only through the ``DrillSession`` object handed to ``run``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.app.services.drill import ChoiceResult, DrillSession, SessionSummary
    from kvdrill.engine.packs.card_view import CardView, DrillState
    from kvdrill.engine.problems.types import Verdict
    from kvdrill.engine.study.grades import Grade


# --- results of session calls, from the worker back to the flow ---------------------------------


class Moved(NamedTuple):
    """The session moved on (graded, undone, set aside): ``state`` holds its current card."""

    state: DrillState
    notice: str = ""  # said to the learner once the card shows ("" says nothing)
    undone: bool = True  # False: an undo found nothing to undo, nothing moved


class ChoiceDone(NamedTuple):
    result: ChoiceResult
    state: DrillState  # the next card, shown on Enter


class ProblemDone(NamedTuple):
    """A typed answer checked or given up on; an unreadable one is not graded."""

    verdict: Verdict
    state: DrillState


class NoteRead(NamedTuple):
    text: str


class NoteWritten(NamedTuple):
    card: CardView  # the card with its new note


class SummaryDone(NamedTuple):
    summary: SessionSummary | None


Done = Moved | ChoiceDone | ProblemDone | NoteRead | NoteWritten | SummaryDone


# --- session calls ------------------------------------------------------------------------------


class GradeCard(NamedTuple):
    """Self-grade the current recall card."""

    quality: Grade
    seconds: float  # active countdown time
    reveal_seconds: float  # real seconds from the card to its answer
    grade_seconds: float  # and from the answer to the grade

    def run(self, session: DrillSession) -> Done:
        session.grade(
            self.quality,
            self.seconds,
            reveal_seconds=self.reveal_seconds,
            grade_seconds=self.grade_seconds,
        )
        return Moved(session.state)


class AnswerChoice(NamedTuple):
    letters: str
    seconds: float
    reveal_seconds: float

    def run(self, session: DrillSession) -> Done:
        result = session.answer_choice(
            self.letters, self.seconds, reveal_seconds=self.reveal_seconds
        )
        return ChoiceDone(result, session.state)


class AnswerProblem(NamedTuple):
    typed: str
    seconds: float
    reveal_seconds: float

    def run(self, session: DrillSession) -> Done:
        verdict = session.answer_problem(
            self.typed, self.seconds, reveal_seconds=self.reveal_seconds
        )
        return ProblemDone(verdict, session.state)


class GiveUp(NamedTuple):
    """Give up on a problem: it counts as missed and the worked solution shows."""

    seconds: float
    reveal_seconds: float

    def run(self, session: DrillSession) -> Done:
        verdict = session.give_up(self.seconds, reveal_seconds=self.reveal_seconds)
        return ProblemDone(verdict, session.state)


class Undo(NamedTuple):
    def run(self, session: DrillSession) -> Done:
        if not session.undo():
            return Moved(session.state, _("Nothing to undo in this session."), undone=False)
        return Moved(session.state, _("Last answer undone: the card is back."))


class SetAside(NamedTuple):
    """Bury the current card until tomorrow, or suspend it until the learner brings it back."""

    bury: bool
    title: str  # the card's, for the notice

    def run(self, session: DrillSession) -> Done:
        before = session.set_aside
        if self.bury:
            session.bury()
        else:
            session.suspend()
        what = _("Buried until tomorrow") if self.bury else _("Suspended")
        notice = f"{what}: {self.title}"
        if session.set_aside - before > 1:  # its follow-up, held for it, goes with it
            notice += " · " + (
                _("its follow-up too") if self.bury else _("its follow-up waits for it")
            )
        return Moved(session.state, notice)


class LoadNote(NamedTuple):
    def run(self, session: DrillSession) -> Done:
        return NoteRead(session.note() or "")


class SaveNote(NamedTuple):
    """The note on ``card``: the current one, or the one just answered (the session has moved
    on, the screen has not)."""

    card: CardView
    text: str

    def run(self, session: DrillSession) -> Done:
        return NoteWritten(session.set_note_on(self.card, self.text))


class Summarise(NamedTuple):
    def run(self, session: DrillSession) -> Done:
        return SummaryDone(session.summary())


Call = (
    GradeCard
    | AnswerChoice
    | AnswerProblem
    | GiveUp
    | Undo
    | SetAside
    | LoadNote
    | SaveNote
    | Summarise
)


# --- for the screen alone -----------------------------------------------------------------------


class ShowCard(NamedTuple):
    """Show ``state.card`` fresh, at its prompt; with no card, the session is over."""

    state: DrillState
    notice: str = ""


class ShowReveal(NamedTuple):
    """Show the answer under the card, after ``lead`` (Markdown; "" for none)."""

    lead: str = ""


class ShowChoices(NamedTuple):
    """The choices again, the learner's picks marked."""


class ShowHint(NamedTuple):
    """The hint line again (``DrillFlow.hint``)."""


class FocusAnswer(NamedTuple):
    """Back to the answer box of a problem."""


class Notice(NamedTuple):
    text: str
    timeout: float = 3  # seconds on screen


class ShowChoiceVerdict(NamedTuple):
    result: ChoiceResult


class ShowProblemVerdict(NamedTuple):
    """The verdict; when ``verdict.unreadable`` the card stays at its prompt for another try."""

    verdict: Verdict


class OpenNote(NamedTuple):
    """Let the learner edit the note on the card shown, which reads ``text`` now."""

    text: str


class ShowNote(NamedTuple):
    """The note changed on the card shown (its answer, if showing, again)."""


class ShowSummary(NamedTuple):
    summary: SessionSummary | None


class Leave(NamedTuple):
    """The learner asked to go (Escape in the answer box only leaves the box)."""


class CardAction(NamedTuple):
    """A card action the screen carries out itself, beside the session: ``flag`` (ask for a
    colour) or ``edit`` (open the card's pack file), on the card ``reference`` (pack/card)."""

    action: str
    reference: str


Step = (
    Call
    | ShowCard
    | ShowReveal
    | ShowChoices
    | ShowHint
    | FocusAnswer
    | Notice
    | ShowChoiceVerdict
    | ShowProblemVerdict
    | OpenNote
    | ShowNote
    | ShowSummary
    | Leave
    | CardAction
)
