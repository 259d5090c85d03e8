"""Plain mode: a whole drill session on stdin/stdout, one line at a time.

For ssh, scripts and screen readers. Works when stdin is a pipe: end of input ends the session
cleanly, with its summary. Card Markdown is printed as plain text (no fences or bold markers,
see app/plain_text.py); control, bidi and zero-width characters from a pack are shown as
escapes so a pack can neither drive the terminal nor disguise what it shows.

The words at any prompt are the drill flow's (app/services/drill_flow.py ``PLAIN_WORDS``): ``u``
undo, ``s`` suspend, ``b`` bury, ``n`` note, ``q`` quit (also as the words undo, suspend, bury,
note, quit). On a multiple-choice card a choice letter is always an answer, so bury there is the
word ``bury``. Which line does what when, the timing and what follows are the flow's, as in the
TUI; this module prints its steps.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import PurePath
from typing import TYPE_CHECKING, TextIO

from kvdrill.app import shown_numbers
from kvdrill.app.app_options import drill_filters_of
from kvdrill.app.plain_text import markdown_to_plain, terminal_width, wrap
from kvdrill.engine.errors import DatabaseUnusable, PackErrors, UserError, printable
from kvdrill.engine.study.grades import grade_keys_help
from kvdrill.engine.study.rules import LEECH_LAPSES
from kvdrill.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from kvdrill.app.services.drill import ChoiceResult, DrillSession, SessionSummary
    from kvdrill.app.services.drill_steps import Step
    from kvdrill.engine.packs.card_view import CardView
    from kvdrill.engine.problems.types import Verdict


class EndOfInput(Exception):
    """stdin is exhausted (a pipe ran dry, or Ctrl-D)."""


class Quit(Exception):
    """The learner typed q."""


def literal(text: str) -> str:
    """Text as typed in the pack, with anything a terminal would act on (control, bidi and
    zero-width characters) shown as ``\\x1b``-style escapes; line breaks kept."""
    return printable(text, multiline=True)


def shown(markdown: str, width: int | None = None, lead: str = "") -> str:
    """Card Markdown as it is printed: plain text wrapped to ``width`` (after ``lead``), control
    characters escaped, no blank lines around it."""
    return markdown_to_plain(literal(markdown), width, lead).strip("\n")


def format_duration(seconds: float) -> str:
    whole = round(seconds)
    minutes, secs = divmod(whole, 60)
    if minutes:
        return _("{minutes} min {seconds} s").format(minutes=minutes, seconds=secs)
    return _("{seconds} s").format(seconds=secs)


class PlainDrill:
    """Runs one ``DrillSession`` on a pair of text streams, through the drill flow
    (app/services/drill_flow.py) as the TUI does: each line is the key it stands for there
    (``DrillFlow.read_line``), and this class prints the steps that come out."""

    def __init__(
        self, session: DrillSession, stdin: TextIO, stdout: TextIO, reviews_only: bool = False
    ):
        from kvdrill.app.services.drill_flow import DrillFlow

        self.session = session
        self.flow = DrillFlow(time.monotonic)
        self.reviews_only = reviews_only  # --new 0
        self.stdin = stdin
        self.stdout = stdout
        self.echo_input = not _is_terminal(stdin)
        self.counter_explained = False
        self.summarised = False
        self.width = terminal_width()

    def text(self, markdown: str, lead: str = "") -> str:
        """Card Markdown as printed here: plain, wrapped to the terminal, after ``lead``."""
        return shown(markdown, self.width, lead)

    def card_text(self, card: CardView, markdown: str, lead: str = "") -> str:
        """A card's Markdown as ``text`` prints it, each image a placeholder with its path."""
        from kvdrill.engine.packs.media import with_image_lines

        if "![" in markdown:
            markdown = with_image_lines(markdown, card.pack_path, _plain_image_line)
        return self.text(markdown, lead)

    def line(self, text: str, hang: str = "") -> None:
        """Print plain ``text`` wrapped to the terminal, wrapped lines indented by ``hang``."""
        self.say(wrap(text, self.width, hang))

    # --- I/O -------------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.say()
            raise EndOfInput
        reply = line.rstrip("\r\n")
        if not self.echo_input:
            return reply
        # Piped input is not echoed by a terminal: echo it, so the transcript reads like one.
        self.say(reply)
        return reply

    # --- the session -----------------------------------------------------------------------

    def run(self) -> int:
        """Drill until the queue is empty, ``q``, or end of input; then print the summary."""
        from kvdrill.app.services.drill_flow import Action, Phase

        code = 0
        if self.session.practised:
            self.line(
                _("Practising {what}: problems whose numbers make this mistake show.").format(
                    what=self.session.practised
                )
            )
        if self.session.current is None:
            if self.reviews_only:
                self.say(
                    _("Nothing to study now: no card is due, and --new 0 leaves out new cards.")
                )
            else:
                self.say(_("Nothing to study now: no card is due and today's new cards are done."))
        flow = self.flow
        try:
            self.perform(flow.opened(self.session.state))
            while flow.phase is not Phase.OVER:
                if flow.phase is Phase.ANSWERED:
                    # A verdict is printed whole: the next card follows without an Enter.
                    self.perform(flow.press(Action.NEXT))
                    continue
                reply = self.ask(self.question())
                key = flow.read_line(reply)
                if key is None:
                    if reply.strip():
                        self.line(_("Type a grade: {keys}.").format(keys=grade_keys_help()))
                    continue
                self.perform(flow.press(*key))
        except (EndOfInput, Quit):
            pass
        except KeyboardInterrupt:
            self.say()
            code = 130
        if not self.summarised:
            self.print_summary(self.session.summary())
        return code

    def question(self) -> str:
        """What the prompt asks for, by the card shown and its phase."""
        from kvdrill.app.services.drill_flow import Phase

        card = self.flow.card
        assert card is not None
        if self.flow.phase is Phase.REVEALED:
            return _("Your grade (u s b n q): ")
        if card.kind == "choice":
            letters = "".join(choice.letter for choice in card.choices)
            return _("Your choice ({first}-{last}; u s n q, 'bury'): ").format(
                first=letters[0], last=letters[-1]
            )
        if card.kind == "problem":
            from kvdrill.engine.problems.answers import bare_number_unit

            unit = bare_number_unit(card.variant.unit) if card.variant is not None else ""
            if unit:
                return _("Your answer (in {unit}); ? gives up (u s b n q): ").format(unit=unit)
            return _("Your answer; ? gives up (u s b n q): ")
        return _("[Enter] show the answer · u undo · s suspend · b bury · n note · q quit: ")

    def perform(self, step: Step | None) -> None:
        """Carry out ``step``, then each step that follows from it, as the TUI's drill screen
        does: a session call runs here in line and its result goes back to the flow."""
        from kvdrill.app.services.drill import InvalidAnswer
        from kvdrill.app.services.drill_steps import Call, OpenNote

        flow = self.flow
        while step is not None:
            if isinstance(step, Call):
                try:
                    done = step.run(self.session)
                except DatabaseUnusable:
                    raise  # nothing more can be saved: stop, with the reason on stderr
                except InvalidAnswer as exc:
                    self.say(str(exc))  # asked again
                    step = flow.ready()
                    continue
                except UserError as exc:
                    # Nothing was saved (a locked database, say): the card stays where it was.
                    self.say(f"kvdrill: {exc}")
                    step = flow.ready()
                    continue
                step = flow.finished(done)
                continue
            if isinstance(step, OpenNote):
                step = flow.note_closed(step.text, self.edit_note(step.text))
                continue
            self.paint(step)
            step = flow.ready()

    def paint(self, step: Step) -> None:
        from kvdrill.app.services import drill_steps as steps

        card = self.flow.card
        if isinstance(step, steps.ShowCard):
            if step.notice:
                self.say(step.notice)
            if step.state.card is not None:
                self.show_card(step.state.card)
        elif isinstance(step, steps.Notice):
            self.line(step.text)
        elif isinstance(step, steps.ShowReveal):
            assert card is not None
            self.show_answer(card)
            self.line(_("Grade: {keys}").format(keys=grade_keys_help()))
            if step.lead:
                self.say(self.text(step.lead))
        elif isinstance(step, steps.ShowChoiceVerdict):
            assert card is not None
            self.show_choice_verdict(card, step.result)
        elif isinstance(step, steps.ShowProblemVerdict):
            assert card is not None
            self.show_problem_verdict(card, step.verdict)
        elif isinstance(step, steps.ShowNote):
            assert card is not None
            self.say(_("Note saved.") if card.note else _("Note deleted."))
        elif isinstance(step, steps.ShowSummary):
            self.summarised = True
            if step.summary is not None:
                self.print_summary(step.summary)
        elif isinstance(step, steps.Leave):
            raise Quit
        # Plain mode has no keys for the other steps (the TUI's picks, hints, flag and edit).

    def show_card(self, card: CardView) -> None:
        # Cards answered or set aside, then this one; of the session's cards, each return of a
        # missed card counted again. A bury keeps the total; a miss adds one; undo takes back.
        dealt_with = self.session.done + self.session.set_aside
        position = dealt_with + 1
        total = dealt_with + self.session.remaining
        flags = (
            (N_("follow-up"), card.kind == "followup"),
            (N_("new"), card.is_new),
            (N_("priority"), card.priority),
            (N_("again"), card.is_repeat),
            (N_("leech"), card.leech),
        )
        marks = [_(mark) for mark, on in flags if on]
        where = f"{literal(card.pack_title)} · {literal(card.title)}"
        self.say()
        if not self.counter_explained:
            self.counter_explained = True
            self.line(
                _(
                    "[1/{total}] counts the cards of this session; a card you miss comes back "
                    "later and adds one."
                ).format(total=total)
            )
        self.line(
            f"── [{position}/{total}] {where}" + (f" ({', '.join(marks)})" if marks else ""),
            hang="   ",
        )
        if card.parent_title:
            self.line(_("Follow-up to: {title}").format(title=literal(card.parent_title)))
        self.say(self.card_text(card, card.prompt))
        if card.kind == "choice":
            for choice in card.choices:
                self.say(self.text(choice.text, lead=f"  {choice.letter}. "))

    def edit_note(self, current: str) -> str | None:
        """The note typed for the card that reads ``current``: None keeps it, "" deletes it."""
        if current:
            self.say(_("Your note: {note}").format(note=literal(current)))
        text = self.ask(_("New note (one line; empty keeps it, '-' deletes it): ")).strip()
        if text == "-":
            return ""
        return text or None

    # --- what an answer shows ----------------------------------------------------------------

    def show_choice_verdict(self, card: CardView, result: ChoiceResult) -> None:
        if result.correct:
            self.say(_("Right: {letters}.").format(letters=result.correct_letters))
        else:
            self.say(
                _("Not quite: the answer is {letters} (you chose {chosen}).").format(
                    letters=result.correct_letters, chosen=result.chosen
                )
            )
        self.show_answer(card)

    def show_problem_verdict(self, card: CardView, verdict: Verdict) -> None:
        if verdict.unreadable:
            self.say(literal(verdict.headline))  # asked again
            return
        self.line(literal(verdict.headline))
        if verdict.diagnosis:
            self.say(self.text(verdict.diagnosis))
        if verdict.worked_solution:
            self.say(_("Worked solution:"))
            self.say(self.text(verdict.worked_solution))
        self.show_tip_and_note(card)

    def show_answer(self, card: CardView) -> None:
        for heading, body in card.answer_sections():
            self.say(f"{_(heading)}:")
            if isinstance(body, str):
                self.say(self.card_text(card, body))
            else:
                for item in body:
                    self.say(self.text(item, lead="  - "))
        self.show_tip_and_note(card)

    def show_tip_and_note(self, card: CardView) -> None:
        if card.tip.strip():
            self.say(self.card_text(card, card.tip, lead=_("Tip:") + " "))
        note = card.note
        if note.strip():
            self.line(_("Your note: {note}").format(note=literal(note).strip()))

    def print_summary(self, summary: SessionSummary) -> None:
        self.say()
        if summary.cards_done:
            accuracy = summary.accuracy or 0.0
            self.line(
                _(
                    "Session over: {cards}, {answers}, {accuracy} right the first time, {duration}."
                ).format(
                    cards=ngettext("{count} card", "{count} cards", summary.cards_done).format(
                        count=summary.cards_done
                    ),
                    answers=ngettext("{count} answer", "{count} answers", summary.answers).format(
                        count=summary.answers
                    ),
                    accuracy=shown_numbers.percent(accuracy),
                    duration=format_duration(summary.seconds),
                )
            )
        else:
            self.say(_("Session over: no cards answered."))
        if summary.practised:
            self.line(_("Practised: {what}.").format(what=summary.practised))
        others = summary.others_due_tomorrow
        if others:
            back = _(
                "Back tomorrow: {count} of these cards, and {others} from the rest of your "
                "collection."
            )
        else:
            back = _("Back tomorrow: {count} of these cards.")
        others_text = ngettext("{count} card", "{count} cards", others).format(count=others)
        self.line(back.format(count=summary.session_due_tomorrow, others=others_text))
        if summary.topics_missed:
            missed = ", ".join(f"{literal(t)} ({n})" for t, n in summary.topics_missed)
            self.line(_("Topics missed: {topics}.").format(topics=missed))
        if summary.new_leeches:
            titles = "; ".join(literal(t) for t in summary.new_leeches)
            self.line(
                _("New leeches (missed {lapses} times; consider rewriting them): {titles}.").format(
                    lapses=LEECH_LAPSES, titles=titles
                )
            )


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def run_plain(args, stdin: TextIO, stdout: TextIO) -> int:
    """``kvdrill drill --plain``: import the bundled decks, open today's session, drill."""
    from kvdrill.app.services.backend import Services

    services = Services(args.db, args.profile)
    try:
        warning = services.daily_backup()
        if warning:
            print(f"kvdrill: {warning}", file=sys.stderr)
        services.database.on_server_lost = lambda line: print(f"kvdrill: {line}", file=sys.stderr)
        try:
            services.sync_bundled()
        except PackErrors as exc:
            # A broken bundled deck is a release bug, not the learner's: drill what is stored.
            first = exc.problems[0] if exc.problems else exc
            warning = _("the bundled decks were not updated: {problem}").format(problem=first)
            print(f"kvdrill: {warning}", file=sys.stderr)
        session = services.open_session(**drill_filters_of(args))
        return PlainDrill(session, stdin, stdout, reviews_only=args.new == 0).run()
    finally:
        services.close()


def _plain_image_line(alt: str, file: PurePath | None, target: str) -> str:
    """An image on a line of its own, escaped so the plain text shows it as written."""
    from kvdrill.engine.packs.media import image_text

    text = re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", image_text(alt, file, target))
    return f"\n\n{text}\n\n"
