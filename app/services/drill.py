"""The drill session service: the one place a daily session's logic lives.

Plain mode (app/plain.py) and the TUI (app/tui/screens/drill.py) drive a session through this class;
neither touches the queue or the database directly. Each answer is written in its own
transaction (card state and log row together) and committed before ``current`` moves on, so
killing the process loses at most the answer being typed.

Interface::

    session = DrillSession.open(database, profile="default", now=None,
                                pack=None, tag=None, lesson=None, new_limit=None,
                                limit=None)
    session.current -> CardView | None       # None: the session is over
    session.remaining -> int                 # cards left, current, owed repeats and follow-ups
    session.done -> int                      # answers given in this session (repeats included)
    session.set_aside -> int                 # cards suspended or buried in this session
    session.today -> date                    # the study day the session belongs to
    session.answer_seconds -> int            # the profile's answer time, for a countdown
    session.grade(quality, seconds) -> None  # recall / follow-up: self-graded 0..5
    session.answer_choice(letters, seconds) -> ChoiceResult   # multiple choice; grades too
    session.answer_problem(typed, seconds) -> Verdict   # problem; grades automatically, except
                                                        # an unreadable answer (verdict.unreadable)
    session.give_up(seconds) -> Verdict      # problem: quality 0, the verdict has the solution
    session.undo() -> bool                   # the last answer, suspend or bury, put back exactly
                                             # (UndoRefused if another kvdrill changed the card)
    session.suspend() / session.bury()       # the current card; both can be undone
    session.note() -> str / session.set_note(text)  # the current card's personal note
    session.set_note_on(card, text) -> CardView      # the note on a card answered (or current)
    session.summary() -> SessionSummary

``now`` is a datetime (the clock starts there and runs with real time, so ``KVDRILL_NOW`` can
set the day), a zero-argument callable returning the time, or None (app/services/environment.py:
``KVDRILL_NOW`` or the wall clock). The store is handed the time of every write. A wrong kind of call for the current card (``grade`` on a problem, say) raises
``WrongCardKind``; unreadable multiple-choice letters raise ``InvalidAnswer`` (a ``UserError``
whose message is the one-line reason), and the card stays current.

Multiple choice grades itself: all correct letters and no wrong one is quality 4 (Good),
anything else 1 (Again). A problem's quality comes from engine/problems/checker.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from kvdrill.app.services import environment
from kvdrill.engine.errors import UserError
from kvdrill.engine.packs.card_view import CHOICE_LETTERS, CHOICE_SEPARATORS, CardView, DrillState
from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.engine.records import unchecked
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.queue import SessionQueue, session_plan
from kvdrill.engine.study.rules import LEECH_LAPSES
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.seeds import presentation_seed
from kvdrill.engine.study.settings import COURSE_LANGUAGE, DEFAULT_DESIRED_RETENTION
from kvdrill.engine.study.sm2 import PASSING_QUALITY
from kvdrill.i18n import _
from kvdrill.store import reviews
from kvdrill.store.card_rows import card_view, problem_spec
from kvdrill.store.cards import card_view_row, due_by
from kvdrill.store.day_queue import check_filters, queue_cards, today_log
from kvdrill.store.db import Database
from kvdrill.store.profiles import get_or_create_profile, profile_settings

if TYPE_CHECKING:
    from kvdrill.store.sql import Sql

T = TypeVar("T")

__all__ = ["CardView", "DrillSession", "InvalidAnswer", "LEECH_LAPSES", "WrongCardKind"]

_LOCKED_MESSAGE = (
    "the database stayed locked by another kvdrill process; nothing was saved for this card, "
    "try again"
)
CHOICE_RIGHT_QUALITY = Grade.GOOD
CHOICE_WRONG_QUALITY = Grade.WRONG
GIVE_UP_QUALITY = Grade.BLACKOUT
_SEEDED_KINDS = ("problem", "choice")  # the kinds a showing's seed draws a variant or order for


class WrongCardKind(Exception):
    """A call that does not fit the current card (a programming error, not a user's)."""


class InvalidAnswer(UserError):
    """An answer that cannot be read; the message says why in one line. Nothing was graded."""


@dataclass(frozen=True)
class ChoiceResult:
    correct: bool
    quality: Grade
    chosen: str  # the letters read, e.g. "AC"
    correct_letters: str
    explanation: str


@dataclass(frozen=True)
class SessionSummary:
    cards_done: int  # distinct cards answered
    answers: int  # answers given, repeats included
    first_try_right: int  # cards whose first answer this session was 3 or more
    seconds: float  # real session time: from opening the session to the summary
    answer_seconds: float  # of which spent answering (each card's time before its answer)
    due_tomorrow: int  # reviews tomorrow's session will hold (before its caps)
    session_due_tomorrow: int  # of those, cards answered in this session
    topics_missed: list[tuple[str, int]]  # tag (or pack title) -> answers below 3, most first
    new_leeches: list[str]  # titles of cards that became leeches (LEECH_LAPSES) in this session
    practised: str | None = None  # a mistake session's mistake (app/services/mistakes.py)

    @property
    def others_due_tomorrow(self) -> int:
        """Cards due tomorrow that this session did not show (other packs, or kept for later)."""
        return self.due_tomorrow - self.session_due_tomorrow

    @property
    def accuracy(self) -> float | None:
        """Share of cards right at the first try, 0..1; None when nothing was answered."""
        return self.first_try_right / self.cards_done if self.cards_done else None


# Named tuples rather than dataclasses: one of each is made per answer and kept for the
# session, and a tuple is the cheapest to make (scripts/bench_vs_anki.py).
class _Answer(NamedTuple):
    card_id: int
    quality: Grade
    seconds: float
    topics: tuple[str, ...]
    leech_title: str | None


class _Undoable(NamedTuple):
    card_id: int
    log_id: int | None  # None: a suspend or bury
    prev_state: Schedule | None
    queue: object
    view: CardView | None
    answers: int
    # The card's state right after the action: undo goes ahead only if it is still that, so
    # an answer or suspend from another kvdrill since is never thrown away.
    after: Schedule | None = None


class UndoRefused(UserError):
    """The card changed since (another kvdrill answered or set it aside): nothing undone."""


def make_clock(now: datetime | Callable[[], datetime] | None) -> Callable[[], datetime]:
    """The session's clock: ``now`` if it is one, else real time running on from ``now`` (or
    from the environment's now, app/services/environment.py)."""
    if callable(now):
        return now
    start = now if now is not None else environment.now()
    started = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - started)


def _check_count(name: str, value: int | None, least: int = 0) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or value < least
    ):
        raise UserError(
            _("{name} must be a whole number {least} or more, got {value}").format(
                name=name, least=least, value=repr(value)
            )
        )


class DrillSession:
    """One daily session for one profile. Create it with ``DrillSession.open``."""

    practised: str | None = None  # a mistake session's mistake (app/services/mistakes.py)

    def __init__(
        self,
        database: Database,
        profile_id: int,
        rollover_hour: int,
        answer_seconds: int,
        clock: Callable[[], datetime],
        today: date,
        queue: SessionQueue,
        scheduler: str = "sm2",
        desired_retention: float = DEFAULT_DESIRED_RETENTION,
        fsrs_parameters: tuple[float, ...] | None = None,
        language: str = COURSE_LANGUAGE,
    ):
        self._database = database
        self.language = language  # the cards' text: an edition's in this language, if any
        self.scheduler = scheduler
        self.desired_retention = desired_retention
        self.fsrs_parameters = fsrs_parameters
        self.practice = False  # a cram session: answers logged, schedules left alone
        self.profile_id = profile_id
        self.rollover_hour = rollover_hour
        self.answer_seconds = answer_seconds
        self._clock = clock
        self._started = clock()
        self.today = today
        self._queue = queue
        self._view: CardView | None = None
        self._shown: dict[int, int] = {}  # card id -> times a view was built (variant seeds)
        self._answers: list[_Answer] = []
        self._history: list[_Undoable] = []

    @classmethod
    def open(
        cls,
        database: Database,
        profile: str = "default",
        now: datetime | Callable[[], datetime] | None = None,
        pack: str | None = None,
        tag: str | None = None,
        new_limit: int | None = None,
        limit: int | None = None,
        lesson: str | None = None,
        flag: str | None = None,
        cram: bool = False,
        ahead: int | None = None,
        card: str | None = None,
    ) -> DrillSession:
        """Today's session: plan the queue from the store (see engine/study/queue.py for the rules).

        ``lesson`` takes a lesson number as typed, ``"5"`` or ``"05"``; ``flag`` a colour
        (engine/study/flags.py): only the cards flagged with it.

        ``cram``: every available card the filters leave, seen or new, in pack order, answered
        as practice (logged, no schedule moved, no daily limit used). ``ahead``: the reviews
        due in the next ``ahead`` days as well, answered as early reviews (schedules move).

        ``card`` (``pack/card``): that one card now, as practice (a cram of one card)."""
        if card is not None:
            pack, cram = card.strip().partition("/")[0], True
        if cram and ahead is not None:
            raise UserError(_("--cram and --ahead do not go together: cram moves no schedule"))
        _check_count("--ahead", ahead, least=1)
        _check_count("--new", new_limit)
        _check_count("--limit", limit, least=1)  # --new 0, not --limit 0, skips new cards
        clock = make_clock(now)
        with database.session() as session:
            row = get_or_create_profile(session, profile, clock())
            today = study_day(clock(), row.rollover_hour)
            check_filters(session, pack, tag, lesson)
            counts, missed = today_log(session, row, today)
            # A pack asked for by name is studied whatever its language; otherwise the packs
            # offered in the profile's language (store/queries_sql.py ``_IN_LANGUAGE``).
            settings = profile_settings(row)
            lang = None if pack is not None else settings.language
            cards = queue_cards(
                session, row.id, missed, lang=lang, pack=pack, tag=tag, lesson=lesson, flag=flag
            )
            if card is not None:
                card_id = reviews.find_card(session, card).id
                cards = [queued for queued in cards if queued.card_id == card_id]
            profile_id, rollover, seconds = row.id, row.rollover_hour, row.answer_seconds
        plan = session_plan(
            cards, today, counts, new_limit=new_limit, limit=limit, cram=cram, ahead=ahead
        )
        opened = cls(
            database,
            profile_id,
            rollover,
            seconds,
            clock,
            today,
            SessionQueue(plan),
            settings.scheduler,
            settings.desired_retention,
            settings.fsrs_parameters,
            settings.language,
        )
        opened.practice = bool(cram)
        return opened

    # --- what is shown ---------------------------------------------------------------------

    @property
    def current(self) -> CardView | None:
        while self._view is None and self._queue.current is not None:
            view = self._build_view(self._queue.current)
            if view is None:  # a problem template the generator refuses: leave it out
                self._queue.drop_current(set_aside=False)
                continue
            self._view = view
        return self._view if self._queue.current is not None else None

    @property
    def remaining(self) -> int:
        return self._queue.remaining

    @property
    def done(self) -> int:
        return len(self._answers)

    @property
    def set_aside(self) -> int:
        """Cards suspended or buried in this session (with follow-ups held for them)."""
        return self._queue.set_aside

    @property
    def state(self) -> DrillState:
        """Where the session stands: the current card, the counts and the answer time."""
        return DrillState(self.current, self.remaining, self.done, self.answer_seconds)

    def _build_view(self, card_id: int) -> CardView | None:
        row = card_view_row(self._database, card_id, self.profile_id, self.language)
        showing = self._shown.get(card_id, 0)
        self._shown[card_id] = showing + 1
        # A fresh variant or choice order on every showing, reproducible from the logged seed
        # (a recall card has none: nothing to draw).
        seed = None
        if row["kind"] in _SEEDED_KINDS:
            seed = presentation_seed(self.profile_id, card_id, self.today, showing)
        variant = None
        if row["kind"] == "problem" and seed is not None:  # a problem's kind is seeded
            variant = self._make_variant(row, seed)
            if variant is None:
                return None
        return card_view(row, is_repeat=self._queue.is_repeat(card_id), variant=variant, seed=seed)

    def _make_variant(self, row: Any, seed: int) -> Variant | None:
        from kvdrill.engine.problems.generator import make_variant

        try:
            return make_variant(problem_spec(row), f"{row['pack_key']}/{row['key']}", seed)
        except (UserError, ValueError):
            return None

    # --- answers ---------------------------------------------------------------------------

    def _require(self, *kinds: str) -> CardView:
        view = self.current
        if view is None:
            raise WrongCardKind("the session is over: there is no current card")
        if view.kind not in kinds:
            raise WrongCardKind(f"the current card is a {view.kind} card, not {' or '.join(kinds)}")
        return view

    def grade(
        self,
        quality: Grade,
        seconds: float = 0.0,
        *,
        reveal_seconds: float | None = None,
        grade_seconds: float | None = None,
    ) -> None:
        """Self-grade the current recall or follow-up card, 0..5 (Again 1, Hard 3, Good 4, Easy 5)."""
        view = self._require("recall", "followup")
        self._record(
            view, Grade.of(quality), seconds, "self", times=(reveal_seconds, grade_seconds)
        )

    def answer_choice(
        self, letters: str, seconds: float = 0.0, *, reveal_seconds: float | None = None
    ) -> ChoiceResult:
        """Answer the current multiple-choice card with letters such as ``B`` or ``A C``."""
        view = self._require("choice")
        chosen = _read_letters(letters, len(view.choices))
        correct = chosen == view.correct_letters
        quality = CHOICE_RIGHT_QUALITY if correct else CHOICE_WRONG_QUALITY
        self._record(
            view, quality, seconds, "auto", typed=chosen, times=(reveal_seconds, None), choices=view
        )
        return ChoiceResult(correct, quality, chosen, view.correct_letters, view.explanation)

    def answer_problem(
        self, typed: str, seconds: float = 0.0, *, reveal_seconds: float | None = None
    ) -> Verdict:
        """Check a typed answer; graded unless unreadable (then the card stays current)."""
        from kvdrill.engine.problems.checker import check_answer

        view = self._require("problem")
        assert view.variant is not None
        verdict = check_answer(view.variant, typed, seconds)
        if not verdict.unreadable:
            self._record(
                view,
                verdict.quality,
                seconds,
                "auto",
                typed,
                view.variant,
                verdict,
                times=(reveal_seconds, None),
            )
        return verdict

    def give_up(self, seconds: float = 0.0, *, reveal_seconds: float | None = None) -> Verdict:
        """Give up on the current problem: graded 0, the verdict carries the worked solution."""
        from kvdrill.engine.problems.checker import give_up

        view = self._require("problem")
        assert view.variant is not None
        verdict = give_up(view.variant)
        self._record(
            view,
            GIVE_UP_QUALITY,
            seconds,
            "auto",
            None,
            view.variant,
            verdict,
            times=(reveal_seconds, None),
        )
        return verdict

    def _record(
        self,
        view: CardView,
        quality: Grade,
        seconds: float,
        graded_by: str,
        typed: str | None = None,
        variant: Variant | None = None,
        verdict: Verdict | None = None,
        times: tuple[float | None, float | None] = (None, None),
        choices: CardView | None = None,
    ) -> None:
        """``times``: real seconds to reveal the answer and from there to the grade."""
        reveal_seconds, grade_seconds = times

        snapshot = self._queue.snapshot()
        # Every field given (a test checks), so without the frozen dataclass's field-by-field
        # ``object.__setattr__`` (engine/records.py): this is the answer path. ``graded_by`` is
        # this class's own "self" or "auto".
        given = unchecked(
            reviews.GivenAnswer,
            {
                "profile_id": self.profile_id,
                "card_id": view.card_id,
                "quality": quality,
                "seconds": seconds,
                "graded_by": graded_by,
                "now": self._clock(),
                "rollover_hour": self.rollover_hour,
                "scheduler": self.scheduler,
                "desired_retention": self.desired_retention,
                "fsrs_parameters": self.fsrs_parameters,
                "typed_answer": typed,
                "variant": variant,
                "verdict": verdict,
                "reveal_seconds": reveal_seconds,
                "grade_seconds": grade_seconds,
                "choice_seed": choices.choice_seed if choices is not None else None,
                "choice_order": choices.choice_order if choices is not None else None,
                "practice": self.practice,
            },
        )
        recorded = reviews.commit_answer(self._database, given, _LOCKED_MESSAGE)
        after = recorded.schedule
        # The log row keeps the previous state; undo reads it from there.
        self._history.append(
            _Undoable(
                view.card_id, recorded.log_id, None, snapshot, view, len(self._answers), after
            )
        )
        topics = tuple(view.tags) or (view.pack_title,)
        leech_title = view.title if recorded.became_leech else None
        self._answers.append(_Answer(view.card_id, quality, seconds, topics, leech_title))
        self._queue.answered(quality)
        self._view = None

    def _write(self, action: Callable[[Sql], T]) -> T:
        """Run ``action`` in one write transaction (retried if another process held the
        lock or won a conflict); a database that stays locked is a UserError and nothing is saved."""
        return self._database.write(action, _LOCKED_MESSAGE)

    # --- actions ---------------------------------------------------------------------------

    def undo(self) -> bool:
        """Put back the last answer, suspend or bury of this session; False if there is none.

        ``UndoRefused`` when the card changed since (another kvdrill answered, suspended or
        buried it): undoing then would throw that away, so nothing is undone."""
        if not self._history:
            return False
        entry = self._history[-1]

        def write(sql: Sql) -> bool:
            sql.lock_card(self.profile_id, entry.card_id)
            if reviews.load_schedule(sql, self.profile_id, entry.card_id) != entry.after:
                return False
            if entry.log_id is not None:
                return reviews.undo_answer(sql, entry.log_id)
            reviews.restore_schedule(sql, self.profile_id, entry.card_id, entry.prev_state)
            return True

        if not self._write(write):
            self._history.pop()  # it can never be undone now
            raise UndoRefused(
                "that card was answered or changed in another kvdrill since; nothing was undone"
            )
        self._history.pop()
        del self._answers[entry.answers :]
        self._queue.restore(entry.queue)
        self._view = entry.view
        return True

    def suspend(self) -> None:
        """Suspend the current card: out of every drill until unsuspended."""
        self._set_aside(
            lambda s, card: reviews.set_suspended(s, self.profile_id, card, suspended=True)
        )

    def bury(self) -> None:
        """Bury the current card until tomorrow's study day."""
        self._set_aside(lambda s, card: reviews.bury(s, self.profile_id, card, self.today))

    def _set_aside(self, change: Callable[[Sql, int], None]) -> None:
        view = self.current
        if view is None:
            return

        def write(sql: Sql) -> tuple[Schedule | None, Schedule | None]:
            # The card's lock before reading what undo will restore (another machine's answer).
            sql.lock_card(self.profile_id, view.card_id)
            prev = reviews.load_schedule(sql, self.profile_id, view.card_id)
            change(sql, view.card_id)
            return prev, reviews.load_schedule(sql, self.profile_id, view.card_id)

        snapshot = self._queue.snapshot()
        prev, after = self._write(write)
        self._history.append(
            _Undoable(view.card_id, None, prev, snapshot, view, len(self._answers), after)
        )
        self._queue.drop_current()
        self._view = None

    def note(self) -> str:
        """The learner's note on the current card ("" when none)."""
        view = self.current
        return view.note if view is not None else ""

    def set_note(self, text: str) -> None:
        """Save the learner's note on the current card (empty text deletes it)."""
        view = self.current
        if view is not None:
            self.set_note_on(view, text)

    def set_note_on(self, card: CardView, text: str) -> CardView:
        """Save the learner's note on ``card``, the current one or one answered in this session
        (empty text deletes it); ``card`` with its new note."""
        self._write(
            lambda sql: reviews.set_note(sql, self.profile_id, card.card_id, text, self._clock())
        )
        note = text if text.strip() else ""
        if self._view is not None and self._view.card_id == card.card_id:
            self._view = replace(self._view, note=note)
        return replace(card, note=note)

    # --- the end ---------------------------------------------------------------------------

    def summary(self) -> SessionSummary:
        first: dict[int, int] = {}
        missed: dict[str, int] = {}
        for answer in self._answers:
            first.setdefault(answer.card_id, answer.quality)
            if answer.quality < PASSING_QUALITY:
                for topic in answer.topics:
                    missed[topic] = missed.get(topic, 0) + 1
        tomorrow = self.today + timedelta(days=1)
        with self._database.session() as session:
            due_tomorrow = due_by(session, self.profile_id, tomorrow)
            session_due = due_by(session, self.profile_id, tomorrow, card_ids=list(first))
        return SessionSummary(
            cards_done=len(first),
            answers=len(self._answers),
            first_try_right=sum(1 for q in first.values() if q >= PASSING_QUALITY),
            seconds=(self._clock() - self._started).total_seconds(),
            answer_seconds=sum(answer.seconds for answer in self._answers),
            due_tomorrow=due_tomorrow,
            session_due_tomorrow=session_due,
            topics_missed=sorted(missed.items(), key=lambda item: (-item[1], item[0])),
            new_leeches=[a.leech_title for a in self._answers if a.leech_title is not None],
            practised=self.practised,
        )


def _read_letters(text: str, count: int) -> str:
    """``"b"``, ``"A C"``, ``"a,c"`` -> sorted unique letters; InvalidAnswer when unreadable."""
    valid = CHOICE_LETTERS[:count]
    letters = [ch for ch in text.upper() if ch not in CHOICE_SEPARATORS]
    if not letters:
        raise InvalidAnswer(f"type a letter from {valid[0]} to {valid[-1]}")
    wrong = [ch for ch in letters if ch not in valid]
    if wrong:
        raise InvalidAnswer(
            f"'{wrong[0]}' is not one of the choices: type a letter from {valid[0]} to {valid[-1]}"
        )
    return "".join(sorted(set(letters)))
