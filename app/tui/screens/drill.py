"""The daily drill on screen: paints what the drill flow decides and forwards it the keys.

The rules (which key works when, reveal, undo, timing, keys typed ahead) are the pure
``DrillFlow`` of app/services/drill_flow.py; this screen turns its steps into widgets. Every
session call runs in one worker thread (it commits to the database and may load sympy to check
an answer), so the screen never blocks; its result goes back to the flow on the UI thread.
Card text comes from packs and is shown through the Markdown widget or as literal ``Content``
(widgets/card_markdown.py): it is never read as Rich/Textual markup.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Input, ProgressBar, Static

from kvdrill.app.services.drill_flow import (
    AWAY_FROM_ANSWER_BOX_HINT,
    TUI_KEYS,
    Action,
    Arg,
    DrillFlow,
    Phase,
)
from kvdrill.app.services.drill_steps import (
    Call,
    CardAction,
    FocusAnswer,
    Leave,
    Notice,
    OpenNote,
    ShowCard,
    ShowChoices,
    ShowChoiceVerdict,
    ShowHint,
    ShowNote,
    ShowProblemVerdict,
    ShowReveal,
    ShowSummary,
    Step,
)
from kvdrill.app.tui.card_text import (
    choice_markdown,
    correct_letters,
    prompt_markdown,
    reveal_markdown,
    verdict_markdown,
)
from kvdrill.app.tui.messages import (
    BundledDecksUpdated,
    CallDone,
    CallFailed,
    FirstCardRead,
    SessionFailed,
    SessionOpened,
    failures_reported,
)
from kvdrill.app.tui.screens.card_actions import CardActionsScreen
from kvdrill.app.tui.widgets.card_markdown import CardMarkdown
from kvdrill.app.tui.widgets.countdown import Countdown
from kvdrill.app.tui.widgets.keys_footer import KeysFooter
from kvdrill.engine.errors import printable
from kvdrill.engine.study.settings import DEFAULT_ANSWER_SECONDS
from kvdrill.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from kvdrill.app.services.drill import ChoiceResult, DrillSession
    from kvdrill.app.services.first_card import FirstCard
    from kvdrill.engine.packs.card_view import CardView, DrillState
    from kvdrill.engine.problems.types import Verdict


# The argument of the Esc that leaves the answer box (a binding of its own, for the footer).
ANSWER_BOX = "answer box"
LEAVE_MEANING = N_("home (answers are saved); Esc in the answer box leaves it")
# After a reveal, at least this many lines of the answer show under the question.
REVEAL_LINES_IN_VIEW = 3


def _frozen_clock() -> float:
    return 0.0


class DrillScreen(CardActionsScreen):
    """Today's cards: prompt, countdown, reveal and grade; typed answers; multiple choice."""

    BINDINGS = [
        *[
            Binding(
                key.keys,
                f"flow({key.action.value!r}, {key.arg!r})",
                key.label,
                show=key.show,
                priority=key.priority,
                tooltip=key.meaning,
            )
            for key in TUI_KEYS
        ],
        *[
            Binding(
                keys, f"scroll({where!r})", N_("Scroll"), show=False, tooltip=N_("scroll the card")
            )
            for keys, where in (
                ("down,j", "down"),
                ("up,k", "up"),
                ("pagedown", "page_down"),
                ("pageup", "page_up"),
            )
        ],
        # Esc in the answer box leaves the box (so the card's keys work); the footer says so
        # there, and Home everywhere else (Textual runs the first of a key's bindings enabled).
        Binding(
            "q,escape",
            f"flow({Action.LEAVE.value!r}, None)",
            N_("Home"),
            tooltip=LEAVE_MEANING,
        ),
        Binding(
            "escape",
            f"flow({Action.LEAVE.value!r}, {ANSWER_BOX!r})",
            N_("Leave box"),
            tooltip=LEAVE_MEANING,  # one row of the key list for both
        ),
    ]

    def __init__(self, narrow: dict[str, str | int | None] | None = None) -> None:
        super().__init__()
        # The filters given (Services.open_session keywords), without the unset ones.
        self.narrow: dict[str, Any] = {
            key: value for key, value in (narrow or {}).items() if value is not None
        }
        self.session: DrillSession | None = None
        self.flow = DrillFlow(time.monotonic)
        self.painted_first_card = False
        self.reveal_extra = ""  # the verdict's Markdown, shown above the answer
        self.card_painted = threading.Event()
        self._listing_keys = False  # the footer asks which keys work (see active_bindings)
        # No auto focus while the screen is built: it would focus the answer box, which the
        # first card then hides and blurs, each a restyle before the first card paints. The screen sets focus itself (show_card); the class default is back once
        # the session is open, for screens closing over this one.
        self.AUTO_FOCUS = ""  # type: ignore[misc]  # Textual reads the instance's

    @property
    def card(self) -> CardView | None:
        return self.flow.card

    @property
    def phase(self) -> Phase:
        return self.flow.phase

    def compose(self) -> ComposeResult:
        # Snapshot tests freeze the countdown; KVDRILL_NOW only moves the wall date.
        if self.app.options.frozen_countdown:
            self.flow.timer.clock = _frozen_clock
        with Horizontal(id="drill-top"):
            yield Static(Content(_("Loading today's cards…")), id="drill-where")
            yield Static(Content(""), id="drill-left")
            yield Countdown(DEFAULT_ANSWER_SECONDS, timer=self.flow.timer, id="drill-timer")
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
        yield KeysFooter(compact=True)

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

    # --- keys -----------------------------------------------------------------------------------

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        # The footer lists the keys that work on the card shown; a key pressed while a step is
        # under way is taken all the same (check_action), and waits in the flow's queue.
        self._listing_keys = True
        try:
            return super().active_bindings
        finally:
            self._listing_keys = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "flow":
            return True
        name, arg = parameters
        flow_action = Action(str(name))
        if flow_action is Action.LEAVE:
            return (arg == ANSWER_BOX) == isinstance(self.focused, Input)
        argument = arg if isinstance(arg, int | str) else None
        if self._listing_keys or (
            # In the answer box Enter is the box's: its answer reaches the flow as a check.
            flow_action in (Action.NEXT, Action.SUBMIT) and isinstance(self.focused, Input)
        ):
            return self.flow.allows(flow_action, argument)
        return self.flow.takes(flow_action, argument)

    async def action_flow(self, name: str, arg: Arg) -> None:
        await self.perform(self.flow.press(Action(name), arg))

    @on(Input.Submitted, "#drill-input")
    async def check_typed_answer(self, event: Input.Submitted) -> None:
        event.stop()
        await self.perform(self.flow.press(Action.CHECK, event.value))

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#drill-body", VerticalScroll)
        getattr(body, f"scroll_{where}")(animate=False)

    # --- carrying out the flow's steps ------------------------------------------------------------

    async def perform(self, step: Step | None) -> None:
        """Carry out ``step``, then each step the keys typed meanwhile ask for, in order."""
        while step is not None:
            if isinstance(step, Call):
                self.call_session(step)  # its CallDone carries on
                return
            if isinstance(step, OpenNote):
                self.open_note_editor(step.text)  # closing it carries on
                return
            if isinstance(step, ShowSummary):
                from kvdrill.app.tui.screens.summary import SummaryScreen

                self.app.switch_screen(SummaryScreen(step.summary))
                return
            await self.paint(step)
            step = self.flow.ready()
        self.query_one(Countdown).tick()
        self.refresh_bindings()

    async def paint(self, step: Step) -> None:
        if isinstance(step, ShowCard):
            await self.show_card(step.state)
            if step.notice:
                self.notify(step.notice, timeout=3, markup=False)
        elif isinstance(step, ShowReveal):
            await self.show_reveal(lead=step.lead)
            self.set_hint(self.flow.hint)
        elif isinstance(step, ShowHint):
            self.set_hint(self.flow.hint)
        elif isinstance(step, ShowChoices):
            assert self.card is not None
            await self.query_one("#drill-choices", CardMarkdown).update(
                choice_markdown(self.card, self.flow.selected)
            )
        elif isinstance(step, FocusAnswer):
            self.query_one("#drill-input", Input).focus()  # back to the answer box
            self.set_hint(self.flow.hint)
        elif isinstance(step, Notice):
            self.notify(step.text, timeout=step.timeout, markup=False)
        elif isinstance(step, ShowChoiceVerdict):
            await self.show_choice_verdict(step.result)
        elif isinstance(step, ShowProblemVerdict):
            await self.show_problem_verdict(step.verdict)
        elif isinstance(step, ShowNote):
            if self.phase in (Phase.REVEALED, Phase.ANSWERED):
                await self.show_reveal()
            self.notify(_("Note saved."), timeout=2)
        elif isinstance(step, Leave):
            self.leave()
        elif isinstance(step, CardAction):
            if step.action == "flag":
                self.pick_flag(step.reference)
            else:
                self.edit_card(step.reference)

    @work(thread=True, group="session", exit_on_error=False)
    def call_session(self, call: Call) -> None:
        """One session call, off the UI thread; its result goes back as ``CallDone``."""
        assert self.session is not None
        try:
            done = call.run(self.session)
        except Exception as error:  # noqa: BLE001 - shown to the learner, never a traceback
            self.post_message(CallDone(None, error))
            return
        self.post_message(CallDone(done, None))

    async def on_call_done(self, message: CallDone) -> None:
        if message.done is None:
            self.notify(str(message.error), title=_("Not done"), severity="error", markup=False)
            await self.perform(self.flow.ready())
            return
        await self.perform(self.flow.finished(message.done))

    def open_note_editor(self, text: str) -> None:
        from kvdrill.app.tui.screens.note import NoteScreen

        async def closed(new_text: str | None) -> None:
            await self.perform(self.flow.note_closed(text, new_text))

        assert self.card is not None
        self.app.push_screen(NoteScreen(self.card.title, text), closed)

    def leave(self) -> None:
        if isinstance(self.focused, Input):
            # First Escape leaves the answer box, so the card's keys work on a problem too.
            self.set_focus(None)
            self.set_hint(_(AWAY_FROM_ANSWER_BOX_HINT))
            return
        # Every answer is committed as it is given: leaving loses nothing.
        self.app.action_go_home()

    # --- opening the session ---------------------------------------------------------------------

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

    def on_session_failed(self, message: SessionFailed) -> None:
        self.auto_focus_as_usual()
        self.app.after_start()
        self.flow.open_failed()
        self.query_one("#drill-where", Static).update(Content(_("Could not start the drill")))
        self.query_one(Countdown).display = False
        self.query_one("#drill-progress").display = False
        self.query_one("#drill-verdict", Static).display = True
        self.query_one("#drill-verdict", Static).update(Content(str(message.error)))
        self.set_hint(self.flow.hint)
        self.refresh_bindings()

    def on_call_failed(self, message: CallFailed) -> None:
        self.notify(str(message.error), title=_("Not done"), severity="error", markup=False)

    def on_bundled_decks_updated(self, message: BundledDecksUpdated) -> None:
        self.notify(_("The bundled decks were updated: new cards join your next session."))

    async def on_first_card_read(self, message: FirstCardRead) -> None:
        """The fast-start helper's first card, shown until the session is open (then checked)."""
        await self.perform(self.flow.early(message.state))

    async def on_session_opened(self, message: SessionOpened) -> None:
        self.session = message.session
        self.app.restore_theme()
        self.app.after_start()
        self.auto_focus_as_usual()
        if self.narrow.get("cram_when_empty") and self.session.practice:
            self.notify(
                _("Nothing is due here now: these cards come as practice, no schedule moves."),
                markup=False,
            )
        if self.session.practised:
            self.notify(_("Practising {what}.").format(what=self.session.practised), markup=False)
        await self.perform(self.flow.opened(message.state))

    # --- painting ---------------------------------------------------------------------------------

    async def show_card(self, state: DrillState) -> None:
        """Show ``state.card`` fresh (prompt phase); with none, the session is over."""
        self.reveal_extra = ""
        self.update_progress(state)
        card = state.card
        if card is None:
            self.query_one(Countdown).tick()
            return  # the flow's next step is the summary
        kind = card.kind
        self.query_one("#drill-where", Static).update(Content(printable(card_label(card))))
        # The previous card's text must not show while the new one is laid out: hide, fill, show.
        body = self.query_one("#drill-body", VerticalScroll)
        body.display = False
        self.query_one("#drill-verdict", Static).display = False
        reveal = self.query_one("#drill-reveal", CardMarkdown)
        reveal.display = False
        context = self.query_one("#drill-context", Static)
        context.display = kind == "followup" and bool(card.parent_title)
        context.update(
            Content(printable(_("Follow-up to: {title}").format(title=card.parent_title)))
        )
        await self.query_one("#drill-prompt", CardMarkdown).update(prompt_markdown(card))
        choices = self.query_one("#drill-choices", CardMarkdown)
        choices.display = kind == "choice"
        if kind == "choice":
            await choices.update(choice_markdown(card, self.flow.selected))
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
                _("e.g. {number} or {number} {unit}").format(number=example, unit=unit)
                if unit
                else _("e.g. {number}").format(number=example)
            )
        unit_line.display = kind == "problem"
        unit_line.update(Content(answer_unit_line(unit)))
        await reveal.update("")
        body.display = True
        body.scroll_home(animate=False)
        self.query_one(Countdown).tick()
        if kind == "problem":
            answer_box.focus()
        else:
            self.set_focus(None)
        self.set_hint(self.flow.hint)
        self.refresh_bindings()
        if kind != "problem":  # a problem's reveal leads with its verdict
            self.call_after_refresh(self._prefill_reveal, card)
        if not self.painted_first_card:
            self.painted_first_card = True
            source = "session" if self.session is not None else "helper"
            self.call_after_refresh(self._first_card_painted, source)

    def _prefill_reveal(self, card: CardView) -> None:
        """Lay out the answer, hidden, while the learner reads the prompt: the reveal key then
        only shows it (show_reveal finds the same text there)."""
        if self.card is card and self.phase is Phase.PROMPT:
            self.query_one("#drill-reveal", CardMarkdown).update(reveal_markdown(card))

    def _first_card_painted(self, source: str) -> None:
        # The app is told first: once set, the event wakes the session worker, whose imports
        # take the GIL as soon as this thread waits on anything (the start benchmark's write).
        self.app.first_card_painted(source)
        self.card_painted.set()

    def update_progress(self, state: DrillState) -> None:
        bar = self.query_one("#drill-progress", ProgressBar)
        total = state.done + state.remaining
        bar.update(total=max(total, 1), progress=state.done)
        self.query_one("#drill-left", Static).update(
            Content(
                ngettext("{count} left", "{count} left", state.remaining).format(
                    count=state.remaining
                )
            )
        )

    def set_hint(self, text: str) -> None:
        self.query_one("#drill-hint", Static).update(Content(text))

    async def show_reveal(self, extra: str | None = None, lead: str = "") -> None:
        """The answer under the card; filled before it shows, so no stale text flashes."""
        assert self.card is not None
        if extra is not None:
            self.reveal_extra = extra
        reveal = self.query_one("#drill-reveal", CardMarkdown)
        await reveal.update(lead + self.reveal_extra + reveal_markdown(self.card))
        reveal.display = True
        self.call_after_refresh(self._scroll_to_reveal)

    def _scroll_to_reveal(self) -> None:
        """Bring the start of what was revealed into view, but never scroll the question out:
        a long answer goes on below it, for ↓ to read."""
        body = self.query_one("#drill-body", VerticalScroll)
        verdict = self.query_one("#drill-verdict")
        shown = verdict if verdict.display else self.query_one("#drill-reveal")
        context = self.query_one("#drill-context")
        question = context if context.display else self.query_one("#drill-prompt")
        first_lines = min(shown.virtual_region.height, REVEAL_LINES_IN_VIEW)
        needed = shown.virtual_region.y + first_lines - body.scrollable_content_region.height
        body.scroll_to(y=max(0, min(needed, question.virtual_region.y)), animate=False)

    async def show_choice_verdict(self, result: ChoiceResult) -> None:
        card = self.card
        assert card is not None
        self.query_one("#drill-choices", CardMarkdown).update(
            choice_markdown(card, self.flow.selected, reveal=True)
        )
        correct = result.correct
        right = ", ".join(sorted(letter.upper() for letter in correct_letters(card)))
        verdict = self.query_one("#drill-verdict", Static)
        verdict.display = True
        if correct:
            verdict.update(Content.from_markup("[b $success]$correct[/]", correct=_("Correct.")))
        else:
            verdict.update(
                Content.from_markup(
                    "[b $error]$not_quite[/] $answer",
                    not_quite=_("Not quite:"),
                    answer=_("the answer is {letters}").format(letters=right),
                )
            )
        verdict.set_class(bool(correct), "-correct")
        verdict.set_class(not correct, "-wrong")
        await self.show_reveal()
        self.set_hint(self.flow.hint)

    async def show_problem_verdict(self, verdict: Verdict) -> None:
        box = self.query_one("#drill-verdict", Static)
        box.display = True
        if verdict.unreadable:
            # Not graded: the learner tries again on the same card.
            box.update(
                Content.from_markup(
                    "[b $warning]$not_graded[/] $why",
                    not_graded=_("Not graded, try again:"),
                    why=verdict.diagnosis or verdict.headline,
                )
            )
            box.set_class(False, "-correct")
            box.set_class(True, "-wrong")
            self.query_one("#drill-input", Input).focus()
            return
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
                    f"[b {style}]$headline[/]\n$typed",
                    headline=headline,
                    typed=_("You typed: {answer}").format(answer=typed),
                )
            )
        else:
            box.update(Content.from_markup(f"[b {style}]$headline[/]", headline=headline))
        box.set_class(correct, "-correct")
        box.set_class(not correct, "-wrong")
        await self.show_reveal(verdict_markdown(verdict))
        self.set_hint(self.flow.hint)

    # A dialog over the card (keys, note, command palette) holds the countdown while it is open.
    def on_screen_suspend(self) -> None:
        self.flow.hold_countdown()
        self.query_one(Countdown).tick()

    def on_screen_resume(self) -> None:
        self.flow.release_countdown()
        self.query_one(Countdown).tick()


def card_label(card: CardView) -> str:
    """The line above the card: badges first (a long title is cut at the right edge)."""
    parts = []
    if card.kind == "followup":
        parts.append(_("follow-up"))
    if card.is_repeat:
        parts.append(_("again"))
    if card.priority:
        parts.append("★ " + _("priority"))
    if card.is_new:
        parts.append(_("new"))
    parts += [card.pack_title, card.title]
    return " · ".join(part for part in parts if part)


def answer_unit_line(unit: str) -> str:
    """What the answer box reads a bare number as (engine/problems/answers.py decides)."""
    if not unit:
        return _("Answer: a number.")
    return _("Answer in {unit}: a bare number is read in {unit}, or type another unit.").format(
        unit=unit
    )
