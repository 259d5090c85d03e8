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
from kvdrill.engine.wording import plural

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
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


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
                f"Practising {self.session.practised}: problems whose numbers make this mistake "
                "show."
            )
        if self.session.current is None:
            if self.reviews_only:
                self.say("Nothing to study now: no card is due, and --new 0 leaves out new cards.")
            else:
                self.say("Nothing to study now: no card is due and today's new cards are done.")
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
            ("follow-up", card.kind == "followup"),
            ("new", card.is_new),
            ("priority", card.priority),
            ("again", card.is_repeat),
            ("leech", card.leech),
        )
        marks = [mark for mark, on in flags if on]
        where = f"{literal(card.pack_title)} · {literal(card.title)}"
        self.say()
        if not self.counter_explained:
            self.counter_explained = True
            self.line(
                f"[1/{total}] counts the cards of this session; a card you miss comes back "
                "later and adds one."
            )
        self.line(
            f"── [{position}/{total}] {where}" + (f" ({', '.join(marks)})" if marks else ""),
            hang="   ",
        )
        if card.parent_title:
            self.line(f"Follow-up to: {literal(card.parent_title)}")
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
                self.say("Nothing to undo in this session.")
                return "stay"
            self.say("Undone: that card is back.")
        elif action == "suspend":
            self.session.suspend()
            self.say("Suspended: this card is out of your drills until you unsuspend it.")
        else:
            self.session.bury()
            self.say("Buried until tomorrow.")
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
            self.say(f"Your note: {literal(current)}")
        text = self.ask("New note (one line; empty keeps it, '-' deletes it): ")
        if text.strip() == "-":
            self.session.set_note("")
            self.say("Note deleted.")
        elif text.strip():
            self.session.set_note(text.strip())
            self.say("Note saved.")

    # --- card kinds ------------------------------------------------------------------------

    def drill_recall(self, card: CardView, started: float) -> None:
        while True:
            reply = self.ask(
                "[Enter] show the answer · u undo · s suspend · b bury · n note · q quit: "
            )
            done = self.command(reply)
            if done == "moved":
                return
            if done is None:
                break
            card = self.session.current or card  # a note edit renews the view
        self.show_answer(card)
        self.line(f"Grade: {grade_keys_help()}")
        if not self.hard_note_shown:
            self.hard_note_shown = True
            self.line(hard_note())
        while True:
            got = self.read_reply("Your grade (u s b n q): ", card)
            if got is None:
                return
            reply, card = got
            quality = parse_grade(reply)
            if quality is None:
                self.line(f"Type a grade: {grade_keys_help()}.")
                continue
            self.session.grade(quality, time.monotonic() - started)
            return

    def drill_choice(self, card: CardView, started: float) -> None:
        from kvdrill.app.services.drill import InvalidAnswer

        letters = "".join(choice.letter for choice in card.choices)
        while True:
            got = self.read_reply(
                f"Your choice ({letters[0]}-{letters[-1]}; u s n q, 'bury'): ",
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
            self.say(f"Right: {result.correct_letters}.")
        else:
            self.say(
                f"Not quite: the answer is {result.correct_letters} (you chose {result.chosen})."
            )
        self.show_answer(card)

    def drill_problem(self, card: CardView, started: float) -> None:
        from kvdrill.engine.problems.answers import bare_number_unit

        unit = bare_number_unit(card.variant.unit) if card.variant is not None else ""
        in_unit = f" (in {unit})" if unit else ""
        while True:
            got = self.read_reply(f"Your answer{in_unit}; ? gives up (u s b n q): ", card)
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
            self.say("Worked solution:")
            self.say(self.text(verdict.worked_solution))
        self.show_tip_and_note(card)

    def show_answer(self, card: CardView) -> None:
        for heading, body in card.answer_sections():
            self.say(f"{heading}:")
            if isinstance(body, str):
                self.say(self.card_text(card, body))
            else:
                for item in body:
                    self.say(self.text(item, lead="  - "))
        self.show_tip_and_note(card)

    def show_tip_and_note(self, card: CardView) -> None:
        if card.tip.strip():
            self.say(self.card_text(card, card.tip, lead="Tip: "))
        note = card.note
        if note.strip():
            self.line(f"Your note: {literal(note).strip()}")

    def print_summary(self, summary: SessionSummary) -> None:
        self.say()
        if summary.cards_done:
            accuracy = summary.accuracy or 0.0
            self.line(
                f"Session over: {plural(summary.cards_done, 'card')}, "
                f"{plural(summary.answers, 'answer')}, "
                f"{accuracy:.0%} right the first time, {format_duration(summary.seconds)}."
            )
        else:
            self.say("Session over: no cards answered.")
        if summary.practised:
            self.line(f"Practised: {summary.practised}.")
        back = f"Back tomorrow: {summary.session_due_tomorrow} of these cards"
        if summary.others_due_tomorrow:
            back += f", and {plural(summary.others_due_tomorrow, 'card')} from the rest of your collection"
        self.line(back + ".")
        if summary.topics_missed:
            missed = ", ".join(f"{literal(t)} ({n})" for t, n in summary.topics_missed)
            self.line(f"Topics missed: {missed}.")
        if summary.new_leeches:
            titles = "; ".join(literal(t) for t in summary.new_leeches)
            self.line(
                f"New leeches (missed {LEECH_LAPSES} times; consider rewriting them): {titles}."
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
            print(f"kvdrill: the bundled decks were not updated: {first}", file=sys.stderr)
        session = services.open_session(**drill_filters_of(args))
        return PlainDrill(session, stdin, stdout, reviews_only=args.new == 0).run()
    finally:
        services.close()


def _plain_image_line(alt: str, file: PurePath | None, target: str) -> str:
    """An image on a line of its own, escaped so the plain text shows it as written."""
    from kvdrill.engine.packs.media import image_text

    text = re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", image_text(alt, file, target))
    return f"\n\n{text}\n\n"
