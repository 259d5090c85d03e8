"""Anki's schedules and review log as kvdrill's, and the file that carries them from
``kvdrill convert`` to ``kvdrill import``; and back, kvdrill's as Anki's for
``kvdrill export --format apkg --with-scheduling``. Pure: the caller reads and writes the
files and turns epoch times into local times and back.

``convert`` writes ``PACK.anki-history.json`` beside ``PACK.md`` when the package carries
scheduling; ``import PACK.md`` reads it when it is there. What is carried over:

- Each answer in Anki's review log (``revlog``) becomes a review-log row marked as imported
  (``anki:<revlog id>``, so importing again adds no duplicate): its time, the grade, the time
  taken, and the interval and ease factor Anki gave after it. Anki's buttons map to kvdrill's
  grade keys one to one: Again, Hard, Good, Easy (ease 1-4) are SM-2 quality 1, 3, 4, 5, what
  kvdrill's keys 1-4 give (engine/study/grades.py). Rows with no button (ease 0: a manual
  reschedule, "set due date", "forget") are left out and counted.
- Each review card (and each card relearning after a lapse) gets Anki's schedule: its due day
  (a review's due is a day number counted from the collection's creation day), its interval,
  SM-2's easiness from Anki's ease factor (permille: 2500 is EF 2.5, at least SM-2's 1.3),
  its lapses, suspended and buried. Repetitions are the passes in a row at the end of its log,
  at least 2 for a review card, so SM-2's next pass multiplies Anki's interval rather than
  starting over at 1 and 6 days. The FSRS memory state (stability, difficulty) comes along
  where the collection used FSRS.
- New cards, and cards still in their first learning steps, stay new: kvdrill has no learning
  steps, so their answers are left out (and counted) and they start fresh.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import PurePath
from typing import Any, TypedDict

from kvdrill.engine.errors import UserError
from kvdrill.engine.interop.notes import AnkiCard
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.grades import LABELLED_GRADES, Grade, quality_for_key
from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI, Schedule, ScheduleJson
from kvdrill.engine.study.sm2 import MIN_EASINESS_MILLI, PASSING_QUALITY

HISTORY_SUFFIX = ".anki-history.json"
HISTORY_FORMAT = "kvdrill-anki-history"
HISTORY_VERSION = 1
IMPORTED_PREFIX = "anki:"
# Anki card types and queues (rslib/src/card/mod.rs).
_REVIEW, _RELEARNING = 2, 3
_SUSPENDED, _BURIED = -1, (-2, -3)
_BURIED_BY_HAND = -3  # Anki's "manually buried": unburied when its next day starts
# A due above this is a time (epoch seconds: a card relearning within the day), not a day number.
_DUE_IS_TIME = 1_000_000_000
# A review card's repetitions at least this: SM-2's next pass is then ceil(interval * EF).
_REVIEW_REPETITIONS = 2

GRADE_MAPPING = ", ".join(
    f"{label} (ease {key}) -> SM-2 quality {quality}"
    for key, (label, quality) in LABELLED_GRADES.items()
)


@dataclass(frozen=True)
class ImportedReview:
    """One answer from Anki's review log, as a kvdrill review-log row will hold it."""

    id: str  # ``anki:<revlog id>``: the row's identity, so a second import adds nothing
    reviewed_at: datetime  # naive local time
    quality: Grade
    seconds: float
    interval_days: int  # after the answer (0 while learning)
    easiness_milli: int | None  # after the answer; None when Anki logged none


@dataclass(frozen=True)
class CardHistory:
    schedule: Schedule  # Anki's schedule; ``reviews`` and ``last_review_at`` from the log
    reviews: tuple[ImportedReview, ...]


@dataclass(frozen=True)
class PackHistory:
    pack: str
    source: str  # the package's file name
    cards: dict[str, CardHistory]  # card id in the pack -> its history
    left_new: int = 0  # cards new or still learning in Anki: they start new
    answers_left_out: int = 0  # their answers, and rows with no button

    @property
    def review_count(self) -> int:
        return sum(len(card.reviews) for card in self.cards.values())


def history_path(pack_file: PurePath) -> PurePath:
    """Where ``convert`` puts the history of the pack ``pack_file``: beside it."""
    return pack_file.with_name(pack_file.stem + HISTORY_SUFFIX)


def quality_of_ease(ease: int) -> Grade:
    """Anki's answer button (1 Again .. 4 Easy) as an SM-2 quality."""
    return quality_for_key(ease)


def _easiness(factor: int) -> int:
    return max(MIN_EASINESS_MILLI, factor) if factor > 0 else NEW_CARD_EASINESS_MILLI


def _passes_in_a_row(reviews: tuple[ImportedReview, ...]) -> int:
    count = 0
    for review in reversed(reviews):
        if review.quality < PASSING_QUALITY:
            break
        count += 1
    return count


def card_history(
    card: AnkiCard,
    created_day: date,
    modified_day: date | None,
    local_time: Callable[[float], datetime],
) -> CardHistory | None:
    """Anki's schedule and answers of one card; None for a card that stays new."""
    if card.type not in (_REVIEW, _RELEARNING):
        return None
    reviews = tuple(
        ImportedReview(
            id=f"{IMPORTED_PREFIX}{row.id}",
            reviewed_at=local_time(row.id / 1000),
            quality=quality_of_ease(row.ease),
            seconds=max(0, row.taken_ms) / 1000,
            interval_days=max(0, row.interval),
            easiness_milli=_easiness(row.factor) if row.factor > 0 else None,
        )
        for row in card.reviews
        if row.ease in LABELLED_GRADES
    )
    if card.due > _DUE_IS_TIME:
        due_day = local_time(card.due).date()
    else:
        due_day = created_day + timedelta(days=card.due)
    relearning = card.type == _RELEARNING
    repetitions = _passes_in_a_row(reviews)
    schedule = Schedule(
        repetitions=0 if relearning else max(_REVIEW_REPETITIONS, repetitions),
        easiness_milli=_easiness(card.factor),
        interval_days=max(1, card.interval),
        due_day=due_day,
        lapses=max(0, card.lapses),
        reviews=len(reviews),
        last_review_at=reviews[-1].reviewed_at if reviews else None,
        suspended=card.queue == _SUSPENDED,
        buried_until=(
            modified_day + timedelta(days=1)
            if card.queue in _BURIED and modified_day is not None
            else None
        ),
    )
    if card.stability is not None and card.difficulty is not None:
        schedule = replace(
            schedule, fsrs=fsrs_memory(card.stability, card.difficulty, due_day, schedule)
        )
    return CardHistory(schedule, reviews)


def fsrs_memory(
    stability: float, difficulty: float, due_day: date, schedule: Schedule
) -> dict[str, Any]:
    """An FSRS review state in the shape ``fsrs.Card.to_dict`` gives (engine/study/
    fsrs_memory.py keeps it so): naive local times read as UTC, as kvdrill's FSRS does."""
    last = schedule.last_review_at or datetime.combine(due_day, datetime.min.time())
    return {
        "state": 2,  # fsrs.State.Review
        "step": None,
        "stability": stability,
        "difficulty": difficulty,
        "due": datetime.combine(due_day, datetime.min.time(), tzinfo=UTC).isoformat(),
        "last_review": last.replace(tzinfo=UTC).isoformat(),
    }


def anki_history(
    pack: str,
    source: str,
    cards: dict[str, AnkiCard],
    created: int | None,
    modified: int | None,
    local_time: Callable[[float], datetime],
) -> PackHistory | None:
    """The history of a converted package's cards; None when it carries no scheduling."""
    if created is None:
        return None
    created_day = local_time(created).date()
    modified_day = local_time(modified).date() if modified is not None else None
    histories: dict[str, CardHistory] = {}
    left_new = answers_left_out = 0
    for key, card in cards.items():
        history = card_history(card, created_day, modified_day, local_time)
        answered = sum(1 for row in card.reviews if row.ease in LABELLED_GRADES)
        if history is None:
            left_new += bool(card.reviews) or card.type != 0
            answers_left_out += answered
            continue
        histories[key] = history
        answers_left_out += len(card.reviews) - answered
    if not histories:
        return None
    return PackHistory(pack, source, histories, left_new, answers_left_out)


# --- the file -----------------------------------------------------------------------------------

# One answer in the file: Anki's id (``anki:<revlog id>``), the time (ISO), the SM-2 quality, the
# seconds taken, the interval and ease factor (permille, or None) Anki gave after it.
HistoryReviewJson = tuple[str, str, int, float, int, int | None]


class HistoryCardJson(TypedDict):
    schedule: ScheduleJson
    reviews: list[HistoryReviewJson]


class HistoryFileJson(TypedDict):
    """``PACK.anki-history.json``, as ``history_text`` writes it and ``read_history`` reads it."""

    format: str
    version: int
    pack: str
    source: str
    grades: str  # the button -> quality mapping, for a reader of the file
    left_new: int
    answers_left_out: int
    cards: dict[str, HistoryCardJson]


def history_text(history: PackHistory) -> str:
    """The history as the JSON text of its file."""
    cards = {
        key: HistoryCardJson(
            schedule=card.schedule.to_dict(),
            reviews=[
                (
                    review.id,
                    review.reviewed_at.isoformat(),
                    int(review.quality),
                    review.seconds,
                    review.interval_days,
                    review.easiness_milli,
                )
                for review in card.reviews
            ],
        )
        for key, card in history.cards.items()
    }
    document = HistoryFileJson(
        format=HISTORY_FORMAT,
        version=HISTORY_VERSION,
        pack=history.pack,
        source=history.source,
        grades=GRADE_MAPPING,
        left_new=history.left_new,
        answers_left_out=history.answers_left_out,
        cards=cards,
    )
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def read_history(text: str, path: str) -> PackHistory:
    """A history file's content; ``UserError`` (``path:1: ...``) for anything else."""

    def bad(why: str) -> UserError:
        return UserError(f"{path}:1: not a kvdrill history file from kvdrill convert: {why}")

    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise bad(f"not JSON ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != HISTORY_FORMAT:
        raise bad("no format line")
    if document.get("version") != HISTORY_VERSION:
        raise bad(f"version {document.get('version')!r}; this kvdrill reads {HISTORY_VERSION}")
    pack, cards = document.get("pack"), document.get("cards")
    if not isinstance(pack, str) or not isinstance(cards, dict):
        raise bad("no pack or cards")
    histories = {}
    try:
        for key, card in cards.items():
            schedule = Schedule.from_dict(card["schedule"])
            reviews = tuple(
                ImportedReview(
                    id=_text(row[0], IMPORTED_PREFIX),
                    reviewed_at=datetime.fromisoformat(row[1]),
                    quality=Grade(_number(row[2], int, 0, 5)),
                    seconds=float(_number(row[3], float, 0, 86_400)),
                    interval_days=_number(row[4], int, 0, 36_500),
                    easiness_milli=(
                        None if row[5] is None else _number(row[5], int, MIN_EASINESS_MILLI, 10**5)
                    ),
                )
                for row in card["reviews"]
            )
            _check_schedule(schedule)
            histories[str(key)] = CardHistory(schedule, reviews)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise bad(f"a card's history is damaged ({type(exc).__name__}: {exc})") from None
    return PackHistory(
        pack=pack,
        source=str(document.get("source", "")),
        cards=histories,
        left_new=_number(document.get("left_new", 0), int, 0, 10**9),
        answers_left_out=_number(document.get("answers_left_out", 0), int, 0, 10**12),
    )


def _text(value: Any, prefix: str) -> str:
    if not isinstance(value, str) or not value.startswith(prefix) or len(value) > 64:
        raise ValueError(f"an answer id {str(value)[:40]!r}")
    return value


def _number(value: Any, kind: type, low: float, high: float) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{str(value)[:40]!r} is not a number")
    if kind is int and not isinstance(value, int):
        raise ValueError(f"{value!r} is not a whole number")
    if not low <= value <= high:
        raise ValueError(f"{value!r} is out of range")
    return value


def _check_schedule(schedule: Schedule) -> None:
    _number(schedule.interval_days, int, 0, 36_500)
    _number(schedule.easiness_milli, int, MIN_EASINESS_MILLI, 10**5)
    _number(schedule.repetitions, int, 0, 10**6)
    _number(schedule.lapses, int, 0, 10**6)
    if schedule.fsrs is not None and not isinstance(schedule.fsrs, dict):
        raise ValueError("an FSRS state that is not an object")


# --- into the review log ------------------------------------------------------------------------


@dataclass(frozen=True)
class LoggedAnswer:
    """An imported answer as a review-log row: the schedule before it (what undo and the
    exports show), whether it moved the schedule (the first answer of its study day) and its
    study day."""

    review: ImportedReview
    before: Schedule | None
    moved_schedule: bool
    study_day: date


def logged_answers(reviews: tuple[ImportedReview, ...], rollover_hour: int) -> list[LoggedAnswer]:
    """Each answer with the schedule before it, rebuilt from what Anki logged after each."""
    logged = []
    before: Schedule | None = None
    last_day: date | None = None
    for review in reviews:
        day = study_day(review.reviewed_at, rollover_hour)
        moved = day != last_day
        logged.append(LoggedAnswer(review, before, moved, day))
        previous = before or Schedule()
        passed = review.quality >= PASSING_QUALITY
        lapsed = moved and not passed and previous.repetitions > 0
        repetitions = previous.repetitions + 1 if passed else 0
        before = replace(
            previous,
            repetitions=repetitions if moved else previous.repetitions,
            easiness_milli=review.easiness_milli or previous.easiness_milli,
            interval_days=review.interval_days,
            due_day=day + timedelta(days=review.interval_days),
            lapses=previous.lapses + lapsed,
            reviews=previous.reviews + 1,
            last_review_at=review.reviewed_at,
        )
        last_day = day
    return logged


# --- out to Anki --------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnkiAnswer:
    """One row of Anki's review log, to be written."""

    id: int  # milliseconds since the epoch (unique within the collection)
    ease: int  # 1 Again .. 4 Easy
    interval: int  # days, after the answer
    last_interval: int  # days, before it
    factor: int  # permille, after it
    taken_ms: int
    kind: int  # 0 learn (a new card's first answer), 1 review


@dataclass(frozen=True)
class AnkiScheduling:
    """An Anki review card's columns, and its review log."""

    queue: int  # 2 review, -1 suspended, -3 buried (until Anki's next day)
    due: int  # days since the collection's creation day
    interval: int
    factor: int
    reps: int
    lapses: int
    answers: tuple[AnkiAnswer, ...]
    # The FSRS memory state as Anki keeps it in ``cards.data`` ({"s": ..., "d": ...}).
    memory: dict[str, float] | None = None


@dataclass(frozen=True)
class PastAnswer:
    """One of the learner's answers, as the review log holds it."""

    reviewed_at: datetime
    quality: Grade
    seconds: float
    before: Schedule | None  # the schedule before it (``prev_state``)


# SM-2 quality 0..5 -> Anki's button: 0-2 Again, 3 Hard, 4 Good, 5 Easy (FSRS's ratings too).
EASE_OF_QUALITY = (1, 1, 1, 2, 3, 4)


def anki_scheduling(
    schedule: Schedule,
    answers: list[PastAnswer],
    day_zero: date,
    epoch_ms: Callable[[datetime], int],
) -> AnkiScheduling | None:
    """A kvdrill schedule as an Anki review card due on the same day with the same interval,
    and its answers as Anki's review log; None for a card not scheduled yet."""
    if schedule.due_day is None or schedule.is_new:
        return None
    rows = []
    used: set[int] = set()
    for index, answer in enumerate(answers):
        after = answers[index + 1].before if index + 1 < len(answers) else schedule
        after = after or schedule
        moment = epoch_ms(answer.reviewed_at)
        while moment in used:  # two answers in one millisecond: Anki's ids must differ
            moment += 1
        used.add(moment)
        rows.append(
            AnkiAnswer(
                id=moment,
                ease=EASE_OF_QUALITY[answer.quality],
                interval=after.interval_days,
                last_interval=answer.before.interval_days if answer.before else 0,
                factor=after.easiness_milli,
                taken_ms=round(answer.seconds * 1000),
                kind=0 if answer.before is None or answer.before.is_new else 1,
            )
        )
    if schedule.suspended:
        queue = _SUSPENDED
    elif schedule.buried_until is not None and schedule.buried_until > day_zero:
        queue = _BURIED_BY_HAND
    else:
        queue = _REVIEW
    return AnkiScheduling(
        queue=queue,
        due=(schedule.due_day - day_zero).days,
        interval=max(1, schedule.interval_days),
        factor=schedule.easiness_milli,
        reps=schedule.reviews,
        lapses=schedule.lapses,
        answers=tuple(rows),
        memory=_anki_memory(schedule.fsrs),
    )


def _anki_memory(fsrs: dict[str, Any] | None) -> dict[str, float] | None:
    """kvdrill's FSRS state as Anki's card memory state, when the card has one."""
    stability = (fsrs or {}).get("stability")
    difficulty = (fsrs or {}).get("difficulty")
    if not isinstance(stability, int | float) or not isinstance(difficulty, int | float):
        return None
    return {"s": float(stability), "d": float(difficulty)}
