"""The drill's rules in one pure object: which key does what in which phase, and what follows.

``DrillFlow`` knows the phase of the card shown, the learner's picks, the countdown and the
real seconds to reveal and to grade. A key goes in through ``press``; out comes at most one
step (app/services/drill_steps.py) for the driver: the TUI drill screen paints a ``Show...``
step and runs a session call in a worker; plain mode does both in line. The driver reports a
call's result with ``finished`` and the end of each step with ``ready``, which applies the keys
that came meanwhile. No Textual, no store: the clock is passed in.

Keys typed ahead are never dropped: while a step is under way (a card loading, an answer
committing, the screen painting), a key is queued and applied in order once the step is done,
against the phase it then finds. A key that does not fit that phase does nothing, as when it is
pressed there (a grade before the reveal, say).

Plain mode (app/plain.py) drives the same flow a line at a time: ``read_line`` turns a typed
line into the key it stands for (``PLAIN_WORDS``), so a rule holds in both modes at once.

Adding a key is one change here: an ``Action`` member, its ``RULES`` row (the phases and card
kinds it works in), its ``_on_<action>`` method returning the step, a ``TUI_KEYS`` row (the
terminal key, the footer's word and what ``?`` says of it) and, if plain mode has it, a
``PLAIN_WORDS`` row. A step of a new kind (a session call)
goes in drill_steps.py; the screen paints only the steps it knows.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from kvdrill.app.services.answer_timer import AnswerTimer
from kvdrill.app.services.drill_steps import (
    AnswerChoice,
    AnswerProblem,
    CardAction,
    ChoiceDone,
    Done,
    FocusAnswer,
    GiveUp,
    GradeCard,
    Leave,
    LoadNote,
    Moved,
    NoteRead,
    NoteWritten,
    Notice,
    OpenNote,
    ProblemDone,
    SaveNote,
    SetAside,
    ShowCard,
    ShowChoices,
    ShowChoiceVerdict,
    ShowHint,
    ShowNote,
    ShowProblemVerdict,
    ShowReveal,
    ShowSummary,
    Step,
    Summarise,
    SummaryDone,
    Undo,
)
from kvdrill.engine.packs.card_view import CHOICE_LETTERS, CHOICE_SEPARATORS
from kvdrill.engine.study.grades import LABELLED_GRADES, RAW_QUALITIES, Grade, parse_grade
from kvdrill.engine.study.settings import DEFAULT_ANSWER_SECONDS
from kvdrill.i18n import N_, _

if TYPE_CHECKING:
    from kvdrill.engine.packs.card_view import CardView, DrillState

# The keys that pick a choice: one per possible choice.
LETTERS = CHOICE_LETTERS.lower()
BURY_LETTER = "b"  # bury, except on a choice card's prompt, where it picks choice B


class Phase(StrEnum):
    LOADING = "loading"  # no card yet: the session is opening
    PROMPT = "prompt"  # the card's question, the countdown running
    REVEALED = "revealed"  # a recall card's answer, waiting for the grade
    ANSWERED = "answered"  # a choice's or a problem's verdict, waiting for Enter
    OVER = "over"  # no card left (or the session could not open)


class Action(StrEnum):
    """What a key asks for; the values are the argument of the screen's ``flow`` action."""

    REVEAL = "reveal"
    DIGIT = "digit"  # 1-4 a labelled grade; after RAW_GRADE, 0-5 an exact quality
    RAW_GRADE = "raw_grade"
    GRADE = "grade"  # an SM-2 quality 0..5 as read by engine/study/grades.parse_grade
    CHOOSE = "choose"  # a letter: picks a choice; b elsewhere buries
    SUBMIT = "submit"  # Enter at a prompt: the picked letters, or back to the answer box
    CHECK = "check"  # a typed answer: a problem's; in plain mode also a choice's letters
    GIVE_UP = "give_up"
    NEXT = "next_card"
    PAUSE = "pause"
    NOTE = "edit_note"
    UNDO = "undo"
    SUSPEND = "suspend"
    BURY = "bury"
    FLAG = "flag"
    EDIT = "edit_card"
    LEAVE = "leave"


Arg = int | str | None

RECALL = frozenset({"recall", "followup"})
CARDS = frozenset({Phase.PROMPT, Phase.REVEALED, Phase.ANSWERED})


class Rule(NamedTuple):
    """Where an action works: the phases, the kinds of card (None: any), whether it needs the
    session open (an early card shows before), and any further condition on its argument."""

    phases: frozenset[Phase]
    kinds: frozenset[str] | None = None
    needs_session: bool = True
    fits: Callable[[DrillFlow, Arg], bool] | None = None


def _digit_fits(flow: DrillFlow, digit: Arg) -> bool:
    return digit in (RAW_QUALITIES if flow.raw_grade else LABELLED_GRADES)


def _quality_fits(flow: DrillFlow, quality: Arg) -> bool:
    return quality in RAW_QUALITIES


def _letter_fits(flow: DrillFlow, letter: Arg) -> bool:
    return flow.card is not None and str(letter) in LETTERS[: len(flow.card.choices)]


def _picked(flow: DrillFlow, arg: Arg) -> bool:
    return flow.card is not None and (flow.card.kind == "problem" or bool(flow.selected))


RULES: dict[Action, Rule] = {
    Action.REVEAL: Rule(frozenset({Phase.PROMPT}), RECALL, needs_session=False),
    Action.DIGIT: Rule(frozenset({Phase.REVEALED}), fits=_digit_fits),
    Action.RAW_GRADE: Rule(frozenset({Phase.REVEALED}), needs_session=False),
    Action.GRADE: Rule(frozenset({Phase.REVEALED}), fits=_quality_fits),
    Action.CHOOSE: Rule(frozenset({Phase.PROMPT}), frozenset({"choice"}), fits=_letter_fits),
    Action.SUBMIT: Rule(frozenset({Phase.PROMPT}), frozenset({"choice", "problem"}), fits=_picked),
    Action.CHECK: Rule(frozenset({Phase.PROMPT}), frozenset({"choice", "problem"})),
    Action.GIVE_UP: Rule(frozenset({Phase.PROMPT}), frozenset({"problem"})),
    Action.NEXT: Rule(frozenset({Phase.ANSWERED})),
    # The countdown stops at the reveal.
    Action.PAUSE: Rule(frozenset({Phase.PROMPT}), needs_session=False),
    Action.NOTE: Rule(CARDS),
    Action.UNDO: Rule(CARDS),
    Action.SUSPEND: Rule(frozenset({Phase.PROMPT, Phase.REVEALED})),
    Action.BURY: Rule(frozenset({Phase.PROMPT, Phase.REVEALED})),
    Action.FLAG: Rule(CARDS),
    Action.EDIT: Rule(CARDS),
    Action.LEAVE: Rule(frozenset(Phase), needs_session=False),
}


class TuiKey(NamedTuple):
    """A terminal key of the drill screen (Textual key names, comma-separated)."""

    keys: str
    action: Action
    label: str  # the footer's word
    arg: Arg = None
    show: bool = True
    priority: bool = False
    meaning: str = ""  # what ``?`` says it does; keys of the same meaning share a row


# In footer order.
TUI_KEYS = [
    TuiKey("space", Action.REVEAL, N_("Reveal"), meaning=N_("reveal the answer (recall cards)")),
    *[
        TuiKey(
            str(key),
            Action.DIGIT,
            label,
            key,
            meaning=N_("grade Again / Hard / Good / Easy (SM-2 quality 1 / 3 / 4 / 5)"),
        )
        for key, (label, _quality) in LABELLED_GRADES.items()
    ],
    TuiKey("0", Action.DIGIT, "0", 0, show=False, meaning=N_("after g: quality 0 or 5")),
    TuiKey("5", Action.DIGIT, "5", 5, show=False, meaning=N_("after g: quality 0 or 5")),
    TuiKey(
        "g",
        Action.RAW_GRADE,
        "0-5",
        show=False,
        meaning=N_("grade with an exact SM-2 quality 0..5"),
    ),
    *[
        TuiKey(
            letter,
            Action.CHOOSE,
            letter.upper(),
            letter,
            show=False,
            meaning=N_("pick a choice (Enter submits several)"),
        )
        for letter in LETTERS
    ],
    TuiKey(
        "enter",
        Action.SUBMIT,
        N_("Submit"),
        show=False,
        meaning=N_("check a typed answer; after a verdict: next card"),
    ),
    TuiKey(
        "enter",
        Action.NEXT,
        N_("Next"),
        priority=True,
        meaning=N_("check a typed answer; after a verdict: next card"),
    ),
    TuiKey(
        "ctrl+g",
        Action.GIVE_UP,
        N_("Give up"),
        priority=True,
        meaning=N_("give up on a problem: see the worked solution"),
    ),
    TuiKey("p", Action.PAUSE, N_("Pause"), meaning=N_("pause the countdown")),
    TuiKey("n", Action.NOTE, N_("Note"), meaning=N_("write a note on the card")),
    TuiKey("u", Action.UNDO, N_("Undo"), meaning=N_("undo the last answer")),
    TuiKey("s", Action.SUSPEND, N_("Suspend"), show=False, meaning=N_("suspend the card")),
    TuiKey(
        "ctrl+b",
        Action.BURY,
        N_("Bury"),
        show=False,
        meaning=N_("bury it and its follow-up till tomorrow (b too, not on choices)"),
    ),
    TuiKey("x", Action.FLAG, N_("Flag"), show=False, meaning=N_("flag the card")),
    TuiKey(
        "ctrl+e",
        Action.EDIT,
        N_("Edit"),
        show=False,
        meaning=N_("edit its pack file in $EDITOR, then import it"),
    ),
]

# Plain mode's words, typed as a line at any prompt (app/plain.py); on a choice card's prompt a
# line of choice letters is the answer first, so there bury is the word.
PLAIN_WORDS: dict[str, Action] = {
    "u": Action.UNDO,
    "undo": Action.UNDO,
    "s": Action.SUSPEND,
    "suspend": Action.SUSPEND,
    "b": Action.BURY,
    "bury": Action.BURY,
    "n": Action.NOTE,
    "note": Action.NOTE,
    "q": Action.LEAVE,
    "quit": Action.LEAVE,
}
GIVE_UP_WORD = "?"  # on a problem's prompt, in plain mode

# Said on the reveal screen until the learner has seen it once in this app run: Anki users
# expect Hard to push a card out, but SM-2 (step 7) shows every card graded below 4 again today.
HARD_COMES_BACK = N_(
    "*Grading: 1 Again and 2 Hard bring this card back later in this session; "
    "3 Good and 4 Easy schedule it for another day.*\n\n"
)
REVEALED_HINT = N_("how did it go? 1-4 grades, or g then 0-5 · ↓ scrolls · n note")
# SM-2 shows again today a card graded below 4 (engine/study/sm2.py SESSION_REPEAT_BELOW).
RAW_GRADE_HINT = N_("exact SM-2 quality: press 0 1 2 3 4 5 (0-3 means it comes back today)")
ANSWERED_HINT = N_("Enter: next card · ↓ scrolls · u undo · ? keys")
AWAY_FROM_ANSWER_BOX_HINT = N_(
    "s suspend · b bury · n note · p pause · Enter: back to typing · q home"
)
FAILED_HINT = N_("q: back home")
EMPTY_ANSWER = N_("Type an answer with its unit, or press ctrl+g to see the solution.")


class DrillFlow:
    """One drill on screen. ``clock``: real monotonic seconds (reveal and grade times);
    ``countdown_clock``: the countdown's (snapshot tests freeze it)."""

    def __init__(
        self,
        clock: Callable[[], float],
        countdown_clock: Callable[[], float] | None = None,
    ) -> None:
        self.clock = clock
        self.timer = AnswerTimer(countdown_clock or clock)
        self.phase = Phase.LOADING
        self.card: CardView | None = None
        self.next_state: DrillState | None = None  # after a verdict: what Enter shows
        self.selected: set[str] = set()  # the choice letters picked, lower case
        self.raw_grade = False  # g was pressed: the next digit is an exact quality
        self.answer_seconds = DEFAULT_ANSWER_SECONDS
        self.session_open = False
        self.busy = False  # a step is under way; keys wait in the queue
        self.grading_explained = False  # HARD_COMES_BACK shown once
        self.shown_at = clock()  # when the current card appeared
        self.revealed_at: float | None = None
        self._held = False  # the countdown paused because a dialog covers the card
        self._summarised = False
        self._queue: deque[tuple[Action, Arg]] = deque()

    # --- keys -------------------------------------------------------------------------------

    def allows(self, action: Action, arg: Arg = None) -> bool:
        """Whether ``action`` does something in the phase shown now (the footer shows it)."""
        rule = RULES[self._meaning(action, arg)]
        kind = self.card.kind if self.card is not None else None
        if self.phase not in rule.phases:
            return False
        if rule.kinds is not None and kind not in rule.kinds:
            return False
        return rule.fits is None or rule.fits(self, arg)

    def takes(self, action: Action, arg: Arg = None) -> bool:
        """Whether a key for ``action`` is taken now: done, or queued behind a step."""
        return self._waits(action) or self.allows(action, arg)

    def press(self, action: Action, arg: Arg = None) -> Step | None:
        """A key: its step (the flow is busy until ``ready``), or None when it did nothing
        or waits in the queue."""
        if self._waits(action):
            self._queue.append((action, arg))
            return None
        return self._apply(action, arg)

    def ready(self) -> Step | None:
        """The driver finished the last step: the next one, from the keys typed meanwhile."""
        self.busy = False
        if self.phase is Phase.OVER and self.session_open and not self._summarised:
            self._summarised = True
            return self._start(Summarise())
        while self._queue and not self._cannot_start(self._queue[0][0]):
            action, arg = self._queue.popleft()
            step = self._apply(self._as_typed_ahead(action), arg)
            if step is not None:
                return step
        return None

    def read_line(self, line: str) -> tuple[Action, Arg] | None:
        """A line typed in plain mode as the key it stands for here; None when it stands for
        none (an empty line after the reveal, a word that is no grade)."""
        reply = line.strip()
        card = self.card
        if card is None or self.phase not in (Phase.PROMPT, Phase.REVEALED):
            return None
        at_prompt = self.phase is Phase.PROMPT
        if at_prompt and card.kind == "choice" and _letters_only(reply, len(card.choices)):
            return Action.CHECK, reply
        word = PLAIN_WORDS.get(reply.lower())
        if word is not None:
            return word, None
        if not at_prompt:
            quality = parse_grade(reply)
            return (Action.GRADE, int(quality)) if quality is not None else None
        if card.kind in RECALL:
            return Action.REVEAL, None  # any line shows the answer
        if not reply:
            return None
        if card.kind == "problem" and reply == GIVE_UP_WORD:
            return Action.GIVE_UP, None
        return Action.CHECK, line  # the session reads it and says what is wrong with it

    def _waits(self, action: Action) -> bool:
        return self.busy or bool(self._queue) or self._cannot_start(action)

    def _cannot_start(self, action: Action) -> bool:
        if action is Action.LEAVE:
            return False
        if self.phase is Phase.LOADING:
            return True
        return RULES[action].needs_session and not self.session_open

    def _meaning(self, action: Action, arg: Arg) -> Action:
        """b is a choice letter on a choice card's prompt and bury everywhere else."""
        if action is Action.CHOOSE and arg == BURY_LETTER:
            kind = self.card.kind if self.card is not None else None
            if not (kind == "choice" and self.phase is Phase.PROMPT):
                return Action.BURY
        return action

    def _as_typed_ahead(self, action: Action) -> Action:
        """A queued Enter means what Enter means on the card it finds: the next card after a
        verdict (so "check, then next" typed in one go does both), else the prompt's Enter."""
        if action in (Action.SUBMIT, Action.NEXT, Action.CHECK) and self.phase is Phase.ANSWERED:
            return Action.NEXT
        if action is Action.NEXT:
            return Action.SUBMIT
        return action

    def _apply(self, action: Action, arg: Arg) -> Step | None:
        if not self.allows(action, arg):
            return None
        meaning = self._meaning(action, arg)
        handler: Callable[[Arg], Step | None] = getattr(self, f"_on_{meaning.value}")
        step = handler(arg)
        return self._start(step) if step is not None else None

    def _start(self, step: Step) -> Step:
        self.busy = True
        return step

    # --- what each key does ------------------------------------------------------------------

    def _on_reveal(self, arg: Arg) -> Step:
        self.phase = Phase.REVEALED
        # The countdown stops first: its active time then never exceeds the time to reveal.
        self.timer.stop()
        self.revealed_at = self.clock()
        lead = ""
        if not self.grading_explained:
            self.grading_explained = True
            lead = _(HARD_COMES_BACK)
        return ShowReveal(lead)

    def _on_raw_grade(self, arg: Arg) -> Step:
        self.raw_grade = True
        return ShowHint()

    def _on_digit(self, digit: Arg) -> Step:
        assert isinstance(digit, int)
        return self._on_grade(digit if self.raw_grade else LABELLED_GRADES[digit][1])

    def _on_grade(self, quality: Arg) -> Step:
        assert isinstance(quality, int)
        now = self.clock()
        revealed = self.revealed_at if self.revealed_at is not None else now
        return GradeCard(Grade(quality), self.timer.spent, revealed - self.shown_at, now - revealed)

    def _on_choose(self, letter: Arg) -> Step:
        assert self.card is not None
        letter = str(letter)
        if len(self.card.correct_letters) <= 1:
            self.selected = {letter}
            return self._on_submit(None)
        self.selected ^= {letter}
        return ShowChoices()

    def _on_submit(self, arg: Arg) -> Step:
        assert self.card is not None
        if self.card.kind == "problem":
            return FocusAnswer()
        letters = "".join(sorted(self.selected)).upper()
        self.timer.stop()
        return AnswerChoice(letters, self.timer.spent, self.seconds_shown())

    def _on_check(self, typed: Arg) -> Step:
        assert self.card is not None
        text = str(typed or "").strip()
        if self.card.kind == "choice":
            return AnswerChoice(text, self.timer.spent, self.seconds_shown())
        if not text:
            return Notice(_(EMPTY_ANSWER), timeout=5)
        return AnswerProblem(text, self.timer.spent, self.seconds_shown())

    def _on_give_up(self, arg: Arg) -> Step:
        return GiveUp(self.timer.spent, self.seconds_shown())

    def _on_next_card(self, arg: Arg) -> Step | None:
        return self._show(self.next_state) if self.next_state is not None else None

    def _on_pause(self, arg: Arg) -> Step:
        paused = self.timer.toggle_pause()
        return Notice(_("Countdown paused: p resumes.") if paused else _("Countdown running."), 2)

    def _on_edit_note(self, arg: Arg) -> Step:
        assert self.card is not None
        if self.phase is Phase.ANSWERED:
            # The session has moved on: the note is on the card just answered.
            return OpenNote(self.card.note)
        return LoadNote()

    def _on_undo(self, arg: Arg) -> Step:
        return Undo()

    def _on_suspend(self, arg: Arg) -> Step:
        assert self.card is not None
        return SetAside(bury=False, title=self.card.own_title)

    def _on_bury(self, arg: Arg) -> Step:
        assert self.card is not None
        return SetAside(bury=True, title=self.card.own_title)

    def _on_flag(self, arg: Arg) -> Step:
        assert self.card is not None
        return CardAction("flag", f"{self.card.pack_key}/{self.card.key}")

    def _on_edit_card(self, arg: Arg) -> Step:
        assert self.card is not None
        return CardAction("edit", f"{self.card.pack_key}/{self.card.key}")

    def _on_leave(self, arg: Arg) -> Step:
        return Leave()

    # --- results ----------------------------------------------------------------------------

    def early(self, state: DrillState) -> Step | None:
        """The fast-start helper's first card, shown until the session is open."""
        if self.session_open:
            return None
        self.answer_seconds = state.answer_seconds
        return self._start(self._show(state))

    def opened(self, state: DrillState) -> Step | None:
        """The session is open: its card, unless the early card shown is that one (then the
        screen stays as it is, maybe revealed already, and the keys waiting apply)."""
        self.session_open = True
        self.answer_seconds = state.answer_seconds
        shown = self.card
        if shown is not None and state.card is not None and _same_card(shown, state.card):
            self.card = state.card
            return None if self.busy else self.ready()
        return self._start(self._show(state))

    def open_failed(self) -> None:
        self.phase = Phase.OVER
        self.timer.stop()

    def finished(self, done: Done) -> Step:
        """A session call's result (back on the driver's thread): what to show."""
        if isinstance(done, Moved):
            if not done.undone:
                return Notice(done.notice)
            return self._show(done.state, done.notice)
        if isinstance(done, ChoiceDone):
            self.phase = Phase.ANSWERED
            self.timer.stop()
            self.next_state = done.state
            return ShowChoiceVerdict(done.result)
        if isinstance(done, ProblemDone):
            if not done.verdict.unreadable:  # unreadable: not graded, the learner tries again
                self.phase = Phase.ANSWERED
                self.next_state = done.state
                self.timer.stop()
            return ShowProblemVerdict(done.verdict)
        if isinstance(done, NoteRead):
            return OpenNote(done.text)
        if isinstance(done, NoteWritten):
            self.card = done.card
            return ShowNote()
        assert isinstance(done, SummaryDone)
        return ShowSummary(done.summary)

    def note_closed(self, before: str, after: str | None) -> Step | None:
        """The note editor closed (``after`` None: cancelled): the save, if the text changed;
        else the next step, as ``ready``."""
        if after is None or after == before or self.card is None:
            return self.ready()
        return SaveNote(self.card, after)

    def _show(self, state: DrillState, notice: str = "") -> Step:
        self.raw_grade = False
        self.selected = set()
        self.next_state = None
        self.card = state.card
        self.revealed_at = None
        self.shown_at = self.clock()
        if state.card is None:
            self.phase = Phase.OVER
            self.timer.stop()
        else:
            self.phase = Phase.PROMPT
            self.timer.restart(self.answer_seconds)
        return ShowCard(state, notice)

    # --- time -------------------------------------------------------------------------------

    def seconds_shown(self) -> float:
        """Real seconds since the current card appeared (its time to reveal, when answered)."""
        return self.clock() - self.shown_at

    def hold_countdown(self) -> None:
        """A dialog covers the card: the countdown holds while it is open."""
        if self.phase is Phase.PROMPT and not self.timer.paused:
            self._held = self.timer.toggle_pause()

    def release_countdown(self) -> None:
        if self._held:
            self._held = False
            if self.timer.paused:
                self.timer.toggle_pause()

    # --- words for the screen ------------------------------------------------------------------

    @property
    def hint(self) -> str:
        """The hint line for the phase shown."""
        if self.phase is Phase.REVEALED:
            return _(RAW_GRADE_HINT if self.raw_grade else REVEALED_HINT)
        if self.phase is Phase.ANSWERED:
            return _(ANSWERED_HINT)
        if self.phase is Phase.OVER or self.card is None:
            return _(FAILED_HINT)
        if self.card.kind == "choice":
            if len(self.card.correct_letters) > 1:
                return _(
                    "pick every correct letter, then Enter · s suspend · ctrl+b bury · ? all keys"
                )
            return _("press the letter · s suspend · ctrl+b bury · ? all keys")
        if self.card.kind == "problem":
            return _("type the answer, Enter checks · ctrl+g solution · Esc more keys")
        return _("answer out loud, then space to check · s suspend · b bury · ? all keys")


def _letters_only(reply: str, choices: int) -> bool:
    """Whether ``reply`` is made of choice letters alone (``b``, ``A C``), such as there are."""
    text = reply.upper()
    letters = CHOICE_LETTERS[:choices]
    return bool(text) and all(ch in letters or ch in CHOICE_SEPARATORS for ch in text)


def _same_card(shown: CardView, card: CardView) -> bool:
    """Whether the early card is the session's current one (same card, same problem variant)."""
    if shown.card_id != card.card_id:
        return False
    return _seed(shown) == _seed(card)


def _seed(card: CardView) -> int | None:
    return card.variant.seed if card.variant is not None else None
