"""What the drill flow (app/services/drill_flow.py) asks its driver to do, and what comes back.

A key given to the flow yields at most one step. A ``Show...`` step, ``Notice``, ``OpenNote``,
``FocusAnswer`` and ``Leave`` are for the screen alone. A session call (``Grade``,
``AnswerChoice``...) talks to the store: the TUI runs its ``run`` in a worker thread, plain mode
runs it in line; either way the ``Done`` it returns goes back to ``DrillFlow.finished`` on the
driver's own thread, which turns it into the next step. Nothing here imports the store or
Textual: the session is reached only through the ``DrillSession`` object handed to ``run``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvdrill.app.services.drill import ChoiceResult, DrillSession, SessionSummary
    from kvdrill.engine.packs.card_view import CardView, DrillState
    from kvdrill.engine.problems.types import Verdict


# --- results of session calls, from the worker back to the flow ---------------------------------


@dataclass(frozen=True)
class Moved:
    """The session moved on (graded, undone, set aside): ``state`` holds its current card."""

    state: DrillState
    notice: str = ""  # said to the learner once the card shows ("" says nothing)
    undone: bool = True  # False: an undo found nothing to undo, nothing moved


@dataclass(frozen=True)
class ChoiceDone:
    result: ChoiceResult
    state: DrillState  # the next card, shown on Enter


@dataclass(frozen=True)
class ProblemDone:
    """A typed answer checked or given up on; an unreadable one is not graded."""

    verdict: Verdict
    state: DrillState


@dataclass(frozen=True)
class NoteRead:
    text: str


@dataclass(frozen=True)
class NoteWritten:
    card: CardView  # the card with its new note


@dataclass(frozen=True)
class SummaryDone:
    summary: SessionSummary | None


Done = Moved | ChoiceDone | ProblemDone | NoteRead | NoteWritten | SummaryDone


# --- session calls ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grade:
    """Self-grade the current recall card with an SM-2 quality."""

    quality: int
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


@dataclass(frozen=True)
class AnswerChoice:
    letters: str
    seconds: float
    reveal_seconds: float

    def run(self, session: DrillSession) -> Done:
        result = session.answer_choice(
            self.letters, self.seconds, reveal_seconds=self.reveal_seconds
        )
        return ChoiceDone(result, session.state)


@dataclass(frozen=True)
class AnswerProblem:
    typed: str
    seconds: float
    reveal_seconds: float

    def run(self, session: DrillSession) -> Done:
        verdict = session.answer_problem(
            self.typed, self.seconds, reveal_seconds=self.reveal_seconds
        )
        return ProblemDone(verdict, session.state)


@dataclass(frozen=True)
class GiveUp:
    """Give up on a problem: it counts as missed and the worked solution shows."""

    seconds: float
    reveal_seconds: float

    def run(self, session: DrillSession) -> Done:
        verdict = session.give_up(self.seconds, reveal_seconds=self.reveal_seconds)
        return ProblemDone(verdict, session.state)


@dataclass(frozen=True)
class Undo:
    def run(self, session: DrillSession) -> Done:
        if not session.undo():
            return Moved(session.state, "Nothing to undo in this session.", undone=False)
        return Moved(session.state, "Last answer undone: the card is back.")


@dataclass(frozen=True)
class SetAside:
    """Bury the current card until tomorrow, or suspend it until the learner brings it back."""

    bury: bool
    title: str  # the card's, for the notice

    def run(self, session: DrillSession) -> Done:
        if self.bury:
            session.bury()
        else:
            session.suspend()
        what = "Buried until tomorrow" if self.bury else "Suspended"
        return Moved(session.state, f"{what}: {self.title}")


@dataclass(frozen=True)
class LoadNote:
    def run(self, session: DrillSession) -> Done:
        return NoteRead(session.note() or "")


@dataclass(frozen=True)
class SaveNote:
    """The note on ``card``: the current one, or the one just answered (the session has moved
    on, the screen has not)."""

    card: CardView
    text: str

    def run(self, session: DrillSession) -> Done:
        return NoteWritten(session.set_note_on(self.card, self.text))


@dataclass(frozen=True)
class Summarise:
    def run(self, session: DrillSession) -> Done:
        return SummaryDone(session.summary())


Call = (
    Grade
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


@dataclass(frozen=True)
class ShowCard:
    """Show ``state.card`` fresh, at its prompt; with no card, the session is over."""

    state: DrillState
    notice: str = ""


@dataclass(frozen=True)
class ShowReveal:
    """Show the answer under the card, after ``lead`` (Markdown; "" for none)."""

    lead: str = ""


@dataclass(frozen=True)
class ShowChoices:
    """The choices again, the learner's picks marked."""


@dataclass(frozen=True)
class ShowHint:
    """The hint line again (``DrillFlow.hint``)."""


@dataclass(frozen=True)
class FocusAnswer:
    """Back to the answer box of a problem."""


@dataclass(frozen=True)
class Notice:
    text: str
    timeout: float = 3  # seconds on screen


@dataclass(frozen=True)
class ShowChoiceVerdict:
    result: ChoiceResult


@dataclass(frozen=True)
class ShowProblemVerdict:
    """The verdict; when ``verdict.unreadable`` the card stays at its prompt for another try."""

    verdict: Verdict


@dataclass(frozen=True)
class OpenNote:
    """Let the learner edit the note on the card shown, which reads ``text`` now."""

    text: str


@dataclass(frozen=True)
class ShowNote:
    """The note changed on the card shown (its answer, if showing, again)."""


@dataclass(frozen=True)
class ShowSummary:
    summary: SessionSummary | None


@dataclass(frozen=True)
class Leave:
    """The learner asked to go (Escape in the answer box only leaves the box)."""


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
)
