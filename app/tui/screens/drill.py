"""The daily drill: one card at a time, from the keyboard.

Every call into the session runs in a worker thread (it commits to the database and may load
sympy to check an answer), so the screen never blocks. Card text comes from packs and is shown
through the Markdown widget or as literal ``Content`` (widgets/card_markdown.py): it is never
read as Rich/Textual markup.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, ProgressBar, Static

from kvdrill.app.tui.card_text import (
    choice_markdown,
    correct_letters,
    reveal_markdown,
    shown,
    verdict_markdown,
)
from kvdrill.app.tui.messages import (
    AnswerSaved,
    AnswerUndone,
    BundledDecksUpdated,
    CallFailed,
    CardSetAside,
    ChoiceChecked,
    FirstCardRead,
    NoteLoaded,
    NoteSaved,
    ProblemChecked,
    SessionFailed,
    SessionOpened,
    SummaryReady,
    failures_reported,
)
from kvdrill.app.tui.widgets.card_markdown import CardMarkdown
from kvdrill.app.tui.widgets.countdown import Countdown
from kvdrill.engine.errors import printable
from kvdrill.engine.packs.card_view import CHOICE_LETTERS, CardView, DrillState
from kvdrill.engine.study.grades import LABELLED_GRADES
from kvdrill.engine.study.settings import DEFAULT_ANSWER_SECONDS

if TYPE_CHECKING:
    from kvdrill.app.services.drill import DrillSession
    from kvdrill.app.services.first_card import FirstCard

# The keys that pick a choice: one per possible choice.
LETTERS = CHOICE_LETTERS.lower()

KEYS = [
    ("space", "reveal the answer (recall cards)"),
    ("1 2 3 4", "grade Again / Hard / Good / Easy (SM-2 quality 1 / 3 / 4 / 5)"),
    ("g then 0-5", "grade with an exact SM-2 quality 0..5"),
    (f"{LETTERS[0]}-{LETTERS[-1]}", "pick a choice (Enter submits several)"),
    ("Enter", "check a typed answer; after a verdict: next card"),
    ("ctrl+g", "give up on a problem: see the worked solution"),
    ("p · n · u", "pause the countdown · write a note · undo the last answer"),
    ("s · b", "suspend the card · bury it until tomorrow (ctrl+b on choices)"),
    ("↓ ↑ j k PgDn", "scroll the card"),
    ("Escape", "leave the answer box, so s b n p work"),
    ("q", "home: every answer given is already saved"),
    ("?", "this list"),
]


def _frozen_clock() -> float:
    return 0.0


# Said on the reveal screen until the learner has seen it once in this app run: Anki users
# expect Hard to push a card out, but SM-2 (step 7) shows every card graded below 4 again today.
HARD_COMES_BACK = (
    "*Grading: 1 Again and 2 Hard bring this card back later in this session; "
    "3 Good and 4 Easy schedule it for another day.*\n\n"
)


class DrillScreen(Screen[None]):
    """Today's cards: prompt, countdown, reveal and grade; typed answers; multiple choice."""

    KEYS = KEYS
    BINDINGS = [
        Binding("space", "reveal", "Reveal"),
        Binding("1", "digit(1)", "Again"),
        Binding("2", "digit(2)", "Hard"),
        Binding("3", "digit(3)", "Good"),
        Binding("4", "digit(4)", "Easy"),
        Binding("0", "digit(0)", "0", show=False),
        Binding("5", "digit(5)", "5", show=False),
        Binding("g", "raw_grade", "0-5", show=False),
        *[Binding(letter, f"choose('{letter}')", letter.upper(), show=False) for letter in LETTERS],
        Binding("enter", "submit", "Submit", show=False),
        Binding("enter", "next_card", "Next", priority=True),
        Binding("ctrl+g", "give_up", "Give up", priority=True),
        Binding("p", "pause", "Pause"),
        Binding("n", "edit_note", "Note"),
        Binding("u", "undo", "Undo"),
        Binding("s", "suspend", "Suspend", show=False),
        Binding("b", "bury_key", "Bury", show=False),
        Binding("ctrl+b", "bury", "Bury", show=False),
        Binding("down,j", "scroll('down')", "Scroll", show=False),
        Binding("up,k", "scroll('up')", "Scroll", show=False),
        Binding("pagedown", "scroll('page_down')", "Scroll", show=False),
        Binding("pageup", "scroll('page_up')", "Scroll", show=False),
        Binding("q,escape", "leave", "Home"),
    ]

    def __init__(self, narrow: dict[str, str | int | None] | None = None) -> None:
        super().__init__()
        self.narrow = {key: value for key, value in (narrow or {}).items() if value is not None}
        self.session: DrillSession | None = None
        self.card: CardView | None = None
        self.phase = "loading"  # loading | prompt | revealed | answered | over
        self.busy = True
        self.raw_grade = False
        self.selected: set[str] = set()
        self.next_state: DrillState | None = None
        self.answer_seconds = DEFAULT_ANSWER_SECONDS
        self.painted_first_card = False
        self.reveal_extra = ""  # the verdict's Markdown, shown above the answer
        self.card_painted = threading.Event()
        self.shown_at = time.monotonic()  # when the current card appeared (real time)
        self.revealed_at: float | None = None  # when its answer showed
        self.held_by_overlay = False  # the countdown paused because a dialog covers the card
        self.grading_explained = False  # HARD_COMES_BACK shown once per drill session
        # No auto focus while the screen is built: it would focus the answer box, which the
        # first card then hides and blurs, each a restyle (about 40 ms of CPU before the first
        # card). The screen sets focus itself (show_state); the class default is back once
        # the session is open, for screens closing over this one.
        self.AUTO_FOCUS = ""

    def compose(self) -> ComposeResult:
        # Snapshot tests freeze the countdown; KVDRILL_NOW only moves the wall date.
        frozen = self.app.options.frozen_countdown
        with Horizontal(id="drill-top"):
            yield Static(Content("Loading today's cards…"), id="drill-where")
            yield Static(Content(""), id="drill-left")
            yield Countdown(
                DEFAULT_ANSWER_SECONDS,
                clock=_frozen_clock if frozen else time.monotonic,
                id="drill-timer",
            )
        yield ProgressBar(total=1, id="drill-progress", show_eta=False, show_percentage=False)
        with VerticalScroll(id="drill-body"):
            yield Static(Content(""), id="drill-context")
            yield CardMarkdown(id="drill-prompt")
            yield CardMarkdown(id="drill-choices")
            yield Static(Content(""), id="drill-unit")
            yield Input(placeholder="a number with its unit, e.g. 3.5 GiB", id="drill-input")
            yield Static(Content(""), id="drill-verdict")
            yield CardMarkdown(id="drill-reveal")
        yield Static(Content(""), id="drill-hint")
        yield Footer(compact=True)

    async def on_mount(self) -> None:
        hidden = (
            "#drill-choices",
            "#drill-input",
            "#drill-unit",
            "#drill-verdict",
            "#drill-reveal",
        )
        for selector in hidden + ("#drill-context",):
            self.query_one(selector).display = False
        first_card = self.app.take_first_card()
        if first_card is not None and first_card.has_answered():
            # Usually so by now: the card goes into the screen's first paint, not a second one.
            early = first_card.read_state()
            first_card = None
            if early is not None:
                await self.on_first_card_read(FirstCardRead(early))
        self.open_session(first_card)

    def auto_focus_as_usual(self) -> None:
        """The class's AUTO_FOCUS again, once the start is over (see ``__init__``)."""
        vars(self).pop("AUTO_FOCUS", None)

    # --- session calls, in worker threads: each posts one message, handled below -------------
    # The caller sets ``busy`` first; the handler of the message clears it.

    @work(thread=True, group="load", exit_on_error=False)
    def open_session(self, first_card: FirstCard | None = None) -> None:
        """Open today's session; with a fast-start helper, show its first card meanwhile."""
        early = first_card.read_state() if first_card is not None else None
        if early is not None:
            self.post_message(FirstCardRead(early))
        if early is not None or self.painted_first_card:
            # Importing the store holds the GIL for long stretches: let the card paint first.
            self.card_painted.wait(timeout=2)
        # The first card may have painted without the Markdown widget (widgets/card_markdown):
        # loaded here, off the UI thread, the answer does not wait for it on reveal.
        from textual.widgets import Markdown  # noqa: F401

        try:
            session = self.app.backend.open_session(**self.narrow)
            state = session.state
        except Exception as error:  # noqa: BLE001 - shown to the learner, never a traceback
            self.post_message(SessionFailed(error))
            return
        seconds = self.app.options.answer_seconds
        if seconds:
            state = dataclasses.replace(state, answer_seconds=int(seconds))
        self.post_message(SessionOpened(session, state))
        with failures_reported(self):
            if self.app.backend.sync_bundled():
                self.post_message(BundledDecksUpdated())

    @work(thread=True, group="session", exit_on_error=False)
    def save_grade(self, quality: int, seconds: float, times: tuple[float, float]) -> None:
        with failures_reported(self):
            reveal, grade = times
            self.session.grade(quality, seconds, reveal_seconds=reveal, grade_seconds=grade)
            self.post_message(AnswerSaved(self.session.state))

    @work(thread=True, group="session", exit_on_error=False)
    def check_choice(self, letters: str, seconds: float, reveal: float) -> None:
        with failures_reported(self):
            result = self.session.answer_choice(letters, seconds, reveal_seconds=reveal)
            self.post_message(ChoiceChecked(result, self.session.state))

    @work(thread=True, group="session", exit_on_error=False)
    def check_problem(self, typed: str, seconds: float, reveal: float) -> None:
        with failures_reported(self):
            verdict = self.session.answer_problem(typed, seconds, reveal_seconds=reveal)
            self.post_message(ProblemChecked(verdict, self.session.state))

    @work(thread=True, group="session", exit_on_error=False)
    def solve_problem(self, seconds: float, reveal: float) -> None:
        """Give up: the problem counts as missed and the worked solution shows."""
        with failures_reported(self):
            verdict = self.session.give_up(seconds, reveal_seconds=reveal)
            self.post_message(ProblemChecked(verdict, self.session.state))

    @work(thread=True, group="session", exit_on_error=False)
    def undo_last_answer(self) -> None:
        with failures_reported(self):
            undone = self.session.undo()
            self.post_message(AnswerUndone(undone, self.session.state))

    @work(thread=True, group="session", exit_on_error=False)
    def set_card_aside(self, bury: bool) -> None:
        """Bury the card until tomorrow, or suspend it until the learner brings it back."""
        with failures_reported(self):
            if bury:
                self.session.bury()
            else:
                self.session.suspend()
            self.post_message(CardSetAside(self.session.state, buried=bury))

    @work(thread=True, exclusive=True, group="session", exit_on_error=False)
    def load_note(self) -> None:
        with failures_reported(self):
            self.post_message(NoteLoaded(self.session.note() or ""))

    @work(thread=True, group="session", exit_on_error=False)
    def save_note(self, text: str) -> None:
        """The note on the current card (the one the session still holds)."""
        with failures_reported(self):
            self.session.set_note(text)
            self.post_message(NoteSaved(self.session.current))

    @work(thread=True, group="session", exit_on_error=False)
    def save_answered_note(self, text: str) -> None:
        """The note on the card just answered: the session has moved on, the screen has not."""
        with failures_reported(self):
            self.app.backend.set_note_on(self.session.profile_id, self.card.card_id, text)
            self.post_message(NoteSaved(dataclasses.replace(self.card, note=text)))

    @work(thread=True, exclusive=True, group="session", exit_on_error=False)
    def summarise(self) -> None:
        with failures_reported(self):
            summary = self.session.summary() if self.session is not None else None
            self.post_message(SummaryReady(summary))

    # --- UI side ------------------------------------------------------------------------------

    def on_session_failed(self, message: SessionFailed) -> None:
        self.auto_focus_as_usual()
        self.app.after_start()
        error = message.error
        self.phase = "over"
        self.busy = False
        self.query_one("#drill-where", Static).update(Content("Could not start the drill"))
        self.query_one(Countdown).display = False
        self.query_one("#drill-progress").display = False
        self.query_one("#drill-verdict", Static).display = True
        self.query_one("#drill-verdict", Static).update(Content(str(error)))
        self.set_hint("q: back home")

    def on_call_failed(self, message: CallFailed) -> None:
        self.busy = False
        self.notify(str(message.error), title="Not done", severity="error", markup=False)

    def on_bundled_decks_updated(self, message: BundledDecksUpdated) -> None:
        self.notify("The bundled decks were updated: new cards join your next session.")

    async def on_first_card_read(self, message: FirstCardRead) -> None:
        """The fast-start helper's first card, shown until the session is open (then checked)."""
        if self.session is not None:
            return
        self.answer_seconds = message.state.answer_seconds
        await self.show_state(message.state)
        self.busy = True  # answers wait for the real session; reading and revealing do not

    async def on_session_opened(self, message: SessionOpened) -> None:
        self.session = message.session
        state = message.state
        self.app.restore_theme()
        self.app.after_start()
        self.auto_focus_as_usual()
        self.answer_seconds = state.answer_seconds
        if self.session.practised:
            self.notify(f"Practising {self.session.practised}.", markup=False)
        shown = self.card
        if shown is not None and state.card is not None and _same_card(shown, state.card):
            self.card = state.card  # keep the screen as it is (maybe revealed already)
            self.busy = False
            return
        await self.show_state(state)

    async def show_state(self, state: DrillState) -> None:
        """Show ``state.card`` fresh (prompt phase), or the summary when the session is over."""
        self.busy = False
        self.raw_grade = False
        self.selected = set()
        self.next_state = None
        self.reveal_extra = ""
        self.card = state.card
        self.update_progress(state)
        if state.card is None:
            self.finish()
            return
        card = state.card
        kind = card.kind
        self.phase = "prompt"
        self.query_one("#drill-where", Static).update(Content(printable(card_label(card))))
        # The previous card's text must not show while the new one is laid out: hide, fill, show.
        body = self.query_one("#drill-body", VerticalScroll)
        body.display = False
        self.query_one("#drill-verdict", Static).display = False
        reveal = self.query_one("#drill-reveal", CardMarkdown)
        reveal.display = False
        context = self.query_one("#drill-context", Static)
        context.display = kind == "followup" and bool(card.parent_title)
        context.update(Content(printable(f"Follow-up to: {card.parent_title}")))
        await self.query_one("#drill-prompt", CardMarkdown).update(shown(card.prompt))
        choices = self.query_one("#drill-choices", CardMarkdown)
        choices.display = kind == "choice"
        if kind == "choice":
            await choices.update(choice_markdown(card, self.selected))
        answer_box = self.query_one("#drill-input", Input)
        answer_box.display = kind == "problem"
        answer_box.disabled = kind != "problem"
        answer_box.value = ""
        unit_line = self.query_one("#drill-unit", Static)
        unit = ""
        if card.variant is not None:  # a problem: the engine is loaded already
            from kvdrill.engine.problems.answers import EXAMPLE_NUMBER, bare_number_unit

            unit = bare_number_unit(card.variant.unit)
            example = EXAMPLE_NUMBER
            answer_box.placeholder = (
                f"e.g. {example} or {example} {unit}" if unit else f"e.g. {example}"
            )
        unit_line.display = kind == "problem"
        unit_line.update(Content(answer_unit_line(unit)))
        await reveal.update("")
        body.display = True
        body.scroll_home(animate=False)
        self.shown_at = time.monotonic()
        self.revealed_at = None
        timer = self.query_one(Countdown)
        timer.restart(self.answer_seconds)
        if kind == "problem":
            answer_box.focus()
        else:
            self.set_focus(None)
        self.set_hint(self.prompt_hint(kind))
        self.refresh_bindings()
        if not self.painted_first_card:
            self.painted_first_card = True
            source = "session" if self.session is not None else "helper"
            self.call_after_refresh(self._first_card_painted, source)

    def _first_card_painted(self, source: str) -> None:
        # The app is told first: once set, the event wakes the session worker, whose imports
        # take the GIL as soon as this thread waits on anything (the start benchmark's write).
        self.app.first_card_painted(source)
        self.card_painted.set()

    def prompt_hint(self, kind: str) -> str:
        if kind == "choice":
            many = len(correct_letters(self.card)) > 1
            pick = "pick every correct letter, then Enter" if many else "press the letter"
            return f"{pick} · s suspend · ctrl+b bury · ? all keys"
        if kind == "problem":
            return "type the answer, Enter checks · ctrl+g solution · Esc more keys"
        return "answer out loud, then space to check · s suspend · b bury · ? all keys"

    def update_progress(self, state: DrillState) -> None:
        bar = self.query_one("#drill-progress", ProgressBar)
        total = state.done + state.remaining
        bar.update(total=max(total, 1), progress=state.done)
        self.query_one("#drill-left", Static).update(Content(f"{state.remaining} left"))

    def set_hint(self, text: str) -> None:
        self.query_one("#drill-hint", Static).update(Content(text))

    def finish(self) -> None:
        self.phase = "over"
        self.query_one(Countdown).stop()
        self.busy = True
        self.summarise()

    def on_summary_ready(self, message: SummaryReady) -> None:
        from kvdrill.app.tui.screens.summary import SummaryScreen

        self.app.switch_screen(SummaryScreen(message.summary))

    # --- bindings -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        kind = self.card.kind if self.card is not None else None
        phase = self.phase
        if action in ("leave", "show_keys", "scroll"):
            return True
        if phase in ("loading", "over"):
            return False
        if action == "reveal":
            return phase == "prompt" and kind in ("recall", "followup")
        if action == "digit":
            if phase != "revealed":
                return False
            return self.raw_grade or parameters[0] in (1, 2, 3, 4)
        if action == "raw_grade":
            return phase == "revealed"
        if action == "choose":
            return phase == "prompt" and kind == "choice" and _has_letter(self.card, parameters)
        if action == "submit":
            if kind == "problem":
                return phase == "prompt" and not isinstance(self.focused, Input)
            return phase == "prompt" and kind == "choice" and bool(self.selected)
        if action == "next_card":
            return phase == "answered"
        if action == "give_up":
            return phase == "prompt" and kind == "problem"
        if action == "bury_key" and kind == "choice" and phase == "prompt":
            return False  # "b" picks choice B here; ctrl+b still buries
        if action == "edit_note":
            return phase in ("prompt", "revealed", "answered")
        if action == "pause":
            return phase == "prompt"  # the countdown stops at the reveal
        if action in ("suspend", "bury", "bury_key"):
            return phase in ("prompt", "revealed")
        if action == "undo":
            return True
        return True

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#drill-body", VerticalScroll)
        getattr(body, f"scroll_{where}")(animate=False)

    def waiting_for_session(self) -> bool:
        """True (with a word to the learner) while the early card shows and the session opens."""
        if self.session is None and self.card is not None:
            self.notify("One moment: opening your collection…", timeout=2)
            return True
        return False

    async def action_reveal(self) -> None:
        # Revealing needs only the card, so it works while the session is still opening.
        if self.busy and self.session is not None:
            return
        self.phase = "revealed"
        # Stop the countdown first: its active time then never exceeds the time to reveal.
        self.query_one(Countdown).stop()
        self.revealed_at = time.monotonic()
        await self.show_reveal(explain_grades=True)
        self.set_hint("how did it go? 1-4 grades, or g then 0-5 · ↓ scrolls · n note")
        self.refresh_bindings()

    async def show_reveal(self, extra: str | None = None, explain_grades: bool = False) -> None:
        """The answer under the card; filled before it shows, so no stale text flashes."""
        if extra is not None:
            self.reveal_extra = extra
        grading = ""
        if explain_grades and not self.grading_explained:
            self.grading_explained = True
            grading = HARD_COMES_BACK
        reveal = self.query_one("#drill-reveal", CardMarkdown)
        await reveal.update(grading + self.reveal_extra + reveal_markdown(self.card))
        reveal.display = True
        self.call_after_refresh(self._scroll_to_reveal)

    def _scroll_to_reveal(self) -> None:
        self.query_one("#drill-body", VerticalScroll).scroll_to_widget(
            self.query_one("#drill-verdict")
            if self.query_one("#drill-verdict").display
            else self.query_one("#drill-reveal"),
            animate=False,
            top=True,
        )

    def action_raw_grade(self) -> None:
        self.raw_grade = True
        self.set_hint("exact SM-2 quality: press 0 1 2 3 4 5 (0-2 means it comes back today)")
        self.refresh_bindings()

    def action_digit(self, digit: int) -> None:
        if self.waiting_for_session() or self.busy or self.phase != "revealed":
            return
        quality = digit if self.raw_grade else LABELLED_GRADES[digit][1]
        self.busy = True
        now = time.monotonic()
        revealed = self.revealed_at if self.revealed_at is not None else now
        times = (revealed - self.shown_at, now - revealed)
        self.save_grade(quality, self.query_one(Countdown).spent, times)

    async def on_answer_saved(self, message: AnswerSaved) -> None:
        await self.show_state(message.state)

    def action_choose(self, letter: str) -> None:
        if self.waiting_for_session() or self.busy or self.phase != "prompt":
            return
        if len(correct_letters(self.card)) <= 1:
            self.selected = {letter}
            self.action_submit()
            return
        self.selected ^= {letter}
        choices = self.query_one("#drill-choices", CardMarkdown)
        choices.update(choice_markdown(self.card, self.selected))
        self.refresh_bindings()

    def action_submit(self) -> None:
        if self.card.kind == "problem":
            self.query_one("#drill-input", Input).focus()  # back to the answer box
            self.set_hint(self.prompt_hint("problem"))
            return
        if self.busy or not self.selected:
            return
        letters = "".join(sorted(self.selected)).upper()
        self.query_one(Countdown).stop()
        self.busy = True
        self.check_choice(letters, self.query_one(Countdown).spent, self.seconds_shown())

    def seconds_shown(self) -> float:
        """Real seconds since the current card appeared (its time to reveal, when answered)."""
        return time.monotonic() - self.shown_at

    async def on_choice_checked(self, message: ChoiceChecked) -> None:
        result = message.result
        self.busy = False
        self.phase = "answered"
        self.next_state = message.state
        self.query_one("#drill-choices", CardMarkdown).update(
            choice_markdown(self.card, self.selected, reveal=True)
        )
        correct = result.correct
        right = ", ".join(sorted(letter.upper() for letter in correct_letters(self.card)))
        verdict = self.query_one("#drill-verdict", Static)
        verdict.display = True
        if correct:
            verdict.update(Content.from_markup("[b $success]Correct.[/]"))
        else:
            verdict.update(
                Content.from_markup("[b $error]Not quite:[/] the answer is $right", right=right)
            )
        verdict.set_class(bool(correct), "-correct")
        verdict.set_class(not correct, "-wrong")
        await self.show_reveal()
        self.set_hint("Enter: next card · ↓ scrolls · u undo · ? keys")
        self.refresh_bindings()

    @on(Input.Submitted, "#drill-input")
    def check_typed_answer(self, event: Input.Submitted) -> None:
        event.stop()
        if self.waiting_for_session() or self.busy or self.phase != "prompt":
            return
        typed = event.value.strip()
        if not typed:
            self.notify("Type an answer with its unit, or press ctrl+g to see the solution.")
            return
        self.busy = True
        self.check_problem(typed, self.query_one(Countdown).spent, self.seconds_shown())

    def action_give_up(self) -> None:
        if self.busy or self.phase != "prompt":
            return
        self.busy = True
        self.solve_problem(self.query_one(Countdown).spent, self.seconds_shown())

    async def on_problem_checked(self, message: ProblemChecked) -> None:
        verdict = message.verdict
        self.busy = False
        box = self.query_one("#drill-verdict", Static)
        box.display = True
        if verdict.unreadable:
            # Not graded: the learner tries again on the same card.
            box.update(
                Content.from_markup(
                    "[b $warning]Not graded, try again:[/] $why",
                    why=verdict.diagnosis or verdict.headline,
                )
            )
            box.set_class(False, "-correct")
            box.set_class(True, "-wrong")
            self.query_one("#drill-input", Input).focus()
            return
        self.phase = "answered"
        self.next_state = message.state
        self.query_one(Countdown).stop()
        answer_box = self.query_one("#drill-input", Input)
        typed = answer_box.value.strip()
        answer_box.disabled = True
        answer_box.display = False  # the verdict repeats what was typed; room for the solution
        self.query_one("#drill-unit").display = False
        correct = verdict.correct
        style = "$success" if correct else "$error"
        headline = verdict.headline
        if typed:
            box.update(
                Content.from_markup(
                    f"[b {style}]$headline[/]\nYou typed: $typed", headline=headline, typed=typed
                )
            )
        else:
            box.update(Content.from_markup(f"[b {style}]$headline[/]", headline=headline))
        box.set_class(correct, "-correct")
        box.set_class(not correct, "-wrong")
        await self.show_reveal(verdict_markdown(verdict))
        self.set_hint("Enter: next card · ↓ scrolls · u undo · ? keys")
        self.refresh_bindings()

    async def action_next_card(self) -> None:
        if self.busy or self.phase != "answered" or self.next_state is None:
            return
        await self.show_state(self.next_state)

    def action_pause(self) -> None:
        paused = self.query_one(Countdown).toggle_pause()
        self.notify("Countdown paused: p resumes." if paused else "Countdown running.", timeout=2)

    def action_undo(self) -> None:
        if self.busy or self.session is None:
            return
        self.busy = True
        self.undo_last_answer()

    async def on_answer_undone(self, message: AnswerUndone) -> None:
        if not message.undone:
            self.busy = False
            self.notify("Nothing to undo in this session.", timeout=3)
            return
        await self.show_state(message.state)
        self.notify("Last answer undone: the card is back.", timeout=3)

    def action_suspend(self) -> None:
        if self.busy or self.phase not in ("prompt", "revealed"):
            return
        self.busy = True
        self.set_card_aside(bury=False)

    def action_bury(self) -> None:
        if self.busy or self.phase not in ("prompt", "revealed"):
            return
        self.busy = True
        self.set_card_aside(bury=True)

    def action_bury_key(self) -> None:
        self.action_bury()

    async def on_card_set_aside(self, message: CardSetAside) -> None:
        title = self.card.title
        await self.show_state(message.state)
        what = "Buried until tomorrow" if message.buried else "Suspended"
        self.notify(f"{what}: {title}", timeout=3, markup=False)

    # A dialog over the card (keys, note, command palette) holds the countdown while it is open.
    def on_screen_suspend(self) -> None:
        timer = self.query_one(Countdown)
        if self.phase == "prompt" and not timer.paused:
            self.held_by_overlay = timer.toggle_pause()

    def on_screen_resume(self) -> None:
        if self.held_by_overlay:
            self.held_by_overlay = False
            timer = self.query_one(Countdown)
            if timer.paused:
                timer.toggle_pause()

    def action_edit_note(self) -> None:
        if self.busy or self.phase not in ("prompt", "revealed", "answered"):
            return
        if self.phase == "answered":
            # The session has moved on: the note is on the card just answered.
            self._open_note_editor(self.card.note)
            return
        self.busy = True
        self.load_note()

    def on_note_loaded(self, message: NoteLoaded) -> None:
        self._open_note_editor(message.text)

    def _open_note_editor(self, text: str) -> None:
        from kvdrill.app.tui.screens.note import NoteScreen

        self.busy = False

        def saved(new_text: str | None) -> None:
            if new_text is None or new_text == text:
                return
            self.busy = True
            if self.phase == "answered":
                self.save_answered_note(new_text)
            else:
                self.save_note(new_text)

        self.app.push_screen(NoteScreen(self.card.title, text), saved)

    async def on_note_saved(self, message: NoteSaved) -> None:
        self.busy = False
        self.card = message.card if message.card is not None else self.card
        if self.phase in ("revealed", "answered"):
            await self.show_reveal()
        self.notify("Note saved.", timeout=2)

    def action_leave(self) -> None:
        if isinstance(self.focused, Input):
            # First Escape leaves the answer box, so the card's keys work on a problem too.
            self.set_focus(None)
            self.set_hint("s suspend · b bury · n note · p pause · Enter: back to typing · q home")
            self.refresh_bindings()
            return
        # Every answer is committed as it is given: leaving loses nothing.
        self.app.action_go_home()


def card_label(card: CardView) -> str:
    """The line above the card: badges first (a long title is cut at the right edge)."""
    parts = []
    if card.kind == "followup":
        parts.append("follow-up")
    if card.is_repeat:
        parts.append("again")
    if card.priority:
        parts.append("★ priority")
    if card.is_new:
        parts.append("new")
    parts += [card.pack_title, card.title]
    return " · ".join(part for part in parts if part)


def answer_unit_line(unit: str) -> str:
    """What the answer box reads a bare number as (engine/problems/answers.py decides)."""
    if not unit:
        return "Answer: a number."
    return f"Answer in {unit}: a bare number is read in {unit}, or type another unit."


def _same_card(shown: CardView, card: CardView) -> bool:
    """Whether the early card is the session's current one (same card, same problem variant)."""
    if shown.card_id != card.card_id:
        return False
    return _seed(shown) == _seed(card)


def _seed(card: CardView) -> int | None:
    return card.variant.seed if card.variant is not None else None


def _has_letter(card: CardView | None, parameters: tuple[object, ...]) -> bool:
    letter = str(parameters[0]) if parameters else ""
    return card is not None and letter in LETTERS[: len(card.choices)]
