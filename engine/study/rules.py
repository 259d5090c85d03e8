"""What one answer does to a card's schedule: kvdrill's rules around SM-2. Pure.

- Only the first answer of a study day moves the SM-2 schedule; later answers that day (the
  step-7 repeats) are logged with ``moved_schedule=False`` and leave the schedule alone.
- FSRS is fed every answer, same-day ones included, as its authors define it (FSRS-6's
  short-term stability for reviews less than a day apart), so a card's FSRS state is what the
  ``fsrs`` package gives on its whole log. ``moved_schedule`` still marks the day's first
  answer under both schedulers: the log column counts it against the day's limits and in the
  retention stats; repetitions, lapses and leeches move on it alone.
- A lapse is a schedule-moving answer below 3 on a card whose repetitions were above 0, i.e. a
  card that had been learned and was forgotten. A first failure of a new card is no lapse.
- A card with ``LEECH_LAPSES`` lapses or more is flagged a leech; it stays in the drills.
- A card is new until it has been answered once (``reviews == 0`` or no schedule yet).
- The profile's ``scheduler`` decides how a schedule-moving answer moves it: SM-2
  (engine/study/sm2.py) or FSRS (engine/study/fsrs_memory.py); every rule above holds for both.
- Switching scheduler replays the card's review log in order through these same rules
  (``replay``), so a card's history is kept and switching back gives back the same state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from kvdrill.engine.records import unchecked
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.settings import DEFAULT_DESIRED_RETENTION
from kvdrill.engine.study.sm2 import PASSING_QUALITY, step

LEECH_LAPSES = 8
_NEW_CARD = Schedule()


@dataclass(frozen=True)
class Answered:
    """A schedule after one answer, and what the answer did."""

    schedule: Schedule
    moved_schedule: bool
    lapsed: bool
    became_leech: bool


def answer_schedule(
    before: Schedule | None,
    quality: Grade,
    now: datetime,
    rollover_hour: int,
    scheduler: str = "sm2",
    desired_retention: float = DEFAULT_DESIRED_RETENTION,
    parameters: tuple[float, ...] | None = None,
) -> Answered:
    """The schedule after an answer of ``quality`` at ``now`` (``before`` None: a new card)
    under ``scheduler`` (``"sm2"`` or ``"fsrs"``; ``parameters``: FSRS's weights fitted to the
    learner, None for the package's defaults)."""
    previous = before if before is not None else _NEW_CARD
    today = study_day(now, rollover_hour)
    already_today = (
        previous.reviews > 0
        and previous.last_review_at is not None
        and study_day(previous.last_review_at, rollover_hour) == today
    )
    if scheduler == "fsrs":
        from kvdrill.engine.study.fsrs_memory import fsrs_review

        after = replace(previous, reviews=previous.reviews + 1, last_review_at=now)
        after = fsrs_review(after, quality, now, today, desired_retention, parameters)
        if already_today:  # the day's counters moved on its first answer
            after = replace(after, repetitions=previous.repetitions)
            return Answered(after, moved_schedule=False, lapsed=False, became_leech=False)
        lapsed, lapses, became_leech = _lapse(previous, quality)
        if lapsed:
            after = replace(after, lapses=lapses, leech=after.leech or became_leech)
    elif already_today:
        after = replace(previous, reviews=previous.reviews + 1, last_review_at=now)
        return Answered(after, moved_schedule=False, lapsed=False, became_leech=False)
    else:
        # One copy of the schedule with everything the answer changes (this is the answer
        # path, scripts/bench_vs_anki.py), rather than one per rule, and without
        # ``replace``'s frozen __init__ (every field is in ``vars(previous)``).
        repetitions, easiness, interval = step(
            previous.repetitions, previous.easiness_milli, previous.interval_days, quality
        )
        lapsed, lapses, became_leech = _lapse(previous, quality)
        after = unchecked(
            Schedule,
            vars(previous)
            | {
                "repetitions": repetitions,
                "easiness_milli": easiness,
                "interval_days": interval,
                "due_day": today + timedelta(days=interval),
                "lapses": lapses,
                "reviews": previous.reviews + 1,
                "last_review_at": now,
                "leech": previous.leech or became_leech,
                "fsrs": None,
            },
        )
    return Answered(after, moved_schedule=True, lapsed=lapsed, became_leech=became_leech)


def _lapse(previous: Schedule, quality: Grade) -> tuple[bool, int, bool]:
    """Whether a schedule-moving answer is a lapse, the lapses after it, and whether it made the
    card a leech."""
    lapsed = quality < PASSING_QUALITY and previous.repetitions > 0
    lapses = previous.lapses + 1 if lapsed else previous.lapses
    return lapsed, lapses, lapsed and lapses >= LEECH_LAPSES and not previous.leech


def replay(
    current: Schedule | None,
    answers: Iterable[tuple[Grade, datetime]],
    rollover_hour: int,
    scheduler: str = "sm2",
    desired_retention: float = DEFAULT_DESIRED_RETENTION,
    parameters: tuple[float, ...] | None = None,
) -> list[Schedule | None]:
    """The schedule before each of a card's ``answers`` (quality, time; oldest first) and, last,
    after them all, rebuilt under ``scheduler`` from a new card. What the log does not hold
    (suspended, buried) is kept from ``current``; a card with no answers and nothing kept stays
    without a schedule (None)."""
    schedule: Schedule | None = None
    states: list[Schedule | None] = []
    for quality, moment in answers:
        states.append(schedule)
        schedule = answer_schedule(
            schedule, quality, moment, rollover_hour, scheduler, desired_retention, parameters
        ).schedule
    if current is not None:
        schedule = replace(
            schedule or Schedule(), suspended=current.suspended, buried_until=current.buried_until
        )
    states.append(schedule)
    return states
