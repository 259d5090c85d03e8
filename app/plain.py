"""Plain mode: a whole drill session on stdin/stdout, one line at a time.

For ssh, scripts and screen readers. Works when stdin is a pipe: end of input ends the session
cleanly, with its summary. Card Markdown is printed as plain text (no fences or bold markers,
see app/plain_text.py); control, bidi and zero-width characters from a pack are shown as
escapes so a pack can neither drive the terminal nor disguise what it shows.

Keys at any prompt: ``u`` undo, ``s`` suspend, ``b`` bury, ``n`` note, ``q`` quit (also as the
words undo, suspend, bury, note, quit). On a multiple-choice card a choice letter is always an
answer, so bury there is the word ``bury``.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING, TextIO

from kvdrill.app.app_options import drill_filters_of
from kvdrill.app.plain_text import markdown_to_plain, terminal_width, wrap
from kvdrill.engine.errors import DatabaseUnusable, PackErrors, UserError, printable
from kvdrill.engine.study.grades import grade_keys_help, hard_note, parse_grade
from kvdrill.engine.study.rules import LEECH_LAPSES
from kvdrill.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from kvdrill.app.services.drill import DrillSession, SessionSummary
    from kvdrill.engine.packs.card_view import CardView

COMMANDS = {
    "u": "undo",
    "undo": "undo",
    "s": "suspend",
    "suspend": "suspend",
    "b": "bury",
    "bury": "bury",
    "n": "note",
    "note": "note",
    "q": "quit",
    "quit": "quit",
}


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
    """Runs one ``DrillSession`` on a pair of text streams."""

    def __init__(
        self, session: DrillSession, stdin: TextIO, stdout: TextIO, reviews_only: bool = False
    ):
        self.session = session
        self.reviews_only = reviews_only  # --new 0
        self.stdin = stdin
        self.stdout = stdout
        self.echo_input = not _is_terminal(stdin)
        self.hard_note_shown = False  # engine/study/grades.py hard_note, once a session
        self.counter_explained = False
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
        try:
            while (card := self.session.current) is not None:
                self.show_card(card)
                try:
                    self.drill_card(card)
                except DatabaseUnusable:
                    raise  # nothing more can be saved: stop, with the reason on stderr
                except UserError as exc:
                    # Nothing was saved for this card (a locked database, say): it stays.
                    self.say(f"kvdrill: {exc}")
        except (EndOfInput, Quit):
            pass
        except KeyboardInterrupt:
            self.say()
            code = 130
        self.print_summary(self.session.summary())
        return code

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

    def drill_card(self, card: CardView) -> None:
        started = time.monotonic()
        if card.kind == "choice":
            self.drill_choice(card, started)
        elif card.kind == "problem":
            self.drill_problem(card, started)
        else:
            self.drill_recall(card, started)

    def command(self, text: str) -> str | None:
        """Run ``text`` if it is a command: "moved" when another card is now current (undo,
        suspend, bury), "stay" when the same card goes on; None when it is no command."""
        action = COMMANDS.get(text.strip().lower())
        if action is None:
            return None
        if action == "quit":
            raise Quit
        if action == "note":
            self.edit_note()
            return "stay"
        if action == "undo":
            if not self.session.undo():
                self.say(_("Nothing to undo in this session."))
                return "stay"
            self.say(_("Undone: that card is back."))
        elif action == "suspend":
            self.session.suspend()
            self.say(_("Suspended: this card is out of your drills until you unsuspend it."))
        else:
            self.session.bury()
            self.say(_("Buried until tomorrow."))
        return "moved"

    def read_reply(
        self,
        prompt: str,
        card: CardView,
        not_a_command: Callable[[str], bool] = lambda reply: False,
    ) -> tuple[str, CardView] | None:
        """The next non-empty reply that is not a command, with the card as it now reads (a note
        edit renews it); None when a command moved the session to another card."""
        while True:
            reply = self.ask(prompt)
            done = None if not_a_command(reply) else self.command(reply)
            if done == "moved":
                return None
            if done == "stay":
                card = self.session.current or card
                continue
            if reply.strip():
                return reply, card

    def edit_note(self) -> None:
        current = self.session.note()
        if current:
            self.say(_("Your note: {note}").format(note=literal(current)))
        text = self.ask(_("New note (one line; empty keeps it, '-' deletes it): "))
        if text.strip() == "-":
            self.session.set_note("")
            self.say(_("Note deleted."))
        elif text.strip():
            self.session.set_note(text.strip())
            self.say(_("Note saved."))

    # --- card kinds ------------------------------------------------------------------------

    def drill_recall(self, card: CardView, started: float) -> None:
        while True:
            reply = self.ask(
                _("[Enter] show the answer · u undo · s suspend · b bury · n note · q quit: ")
            )
            done = self.command(reply)
            if done == "moved":
                return
            if done is None:
                break
            card = self.session.current or card  # a note edit renews the view
        self.show_answer(card)
        self.line(_("Grade: {keys}").format(keys=grade_keys_help()))
        if not self.hard_note_shown:
            self.hard_note_shown = True
            self.line(hard_note())
        while True:
            got = self.read_reply(_("Your grade (u s b n q): "), card)
            if got is None:
                return
            reply, card = got
            quality = parse_grade(reply)
            if quality is None:
                self.line(_("Type a grade: {keys}.").format(keys=grade_keys_help()))
                continue
            self.session.grade(quality, time.monotonic() - started)
            return

    def drill_choice(self, card: CardView, started: float) -> None:
        from kvdrill.app.services.drill import InvalidAnswer

        letters = "".join(choice.letter for choice in card.choices)
        while True:
            got = self.read_reply(
                _("Your choice ({first}-{last}; u s n q, 'bury'): ").format(
                    first=letters[0], last=letters[-1]
                ),
                card,
                not_a_command=lambda reply: _all_letters(reply, letters),
            )
            if got is None:
                return
            reply, card = got
            try:
                result = self.session.answer_choice(reply, time.monotonic() - started)
            except InvalidAnswer as exc:
                self.say(str(exc))
                continue
            break
        if result.correct:
            self.say(_("Right: {letters}.").format(letters=result.correct_letters))
        else:
            self.say(
                _("Not quite: the answer is {letters} (you chose {chosen}).").format(
                    letters=result.correct_letters, chosen=result.chosen
                )
            )
        self.show_answer(card)

    def drill_problem(self, card: CardView, started: float) -> None:
        from kvdrill.engine.problems.answers import bare_number_unit

        unit = bare_number_unit(card.variant.unit) if card.variant is not None else ""
        if unit:
            question = _("Your answer (in {unit}); ? gives up (u s b n q): ").format(unit=unit)
        else:
            question = _("Your answer; ? gives up (u s b n q): ")
        while True:
            got = self.read_reply(question, card)
            if got is None:
                return
            reply, card = got
            seconds = time.monotonic() - started
            if reply.strip() == "?":
                verdict = self.session.give_up(seconds)
            else:
                verdict = self.session.answer_problem(reply, seconds)
                if verdict.unreadable:
                    self.say(literal(verdict.headline))
                    continue
            break
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
                    accuracy=f"{accuracy:.0%}",
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


def _all_letters(reply: str, letters: str) -> bool:
    text = reply.strip().upper()
    return bool(text) and all(ch in letters or ch in " ,;/+" for ch in text)


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
