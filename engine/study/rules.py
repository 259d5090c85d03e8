"""What one answer does to a card's schedule: kvdrill's rules around SM-2. Pure.

- Only the first answer of a study day moves the SM-2 schedule; later answers that day (the
  step-7 repeats) are logged with ``moved_schedule=False`` and leave the schedule alone.
- A lapse is a schedule-moving answer below 3 on a card whose repetitions were above 0, i.e. a
  card that had been learned and was forgotten. A first failure of a new card is no lapse.
- A card with ``LEECH_LAPSES`` lapses or more is flagged a leech; it stays in the drills.
- A card is new until it has been answered once (``reviews == 0`` or no schedule yet).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.sm2 import PASSING_QUALITY, review

LEECH_LAPSES = 8


@dataclass(frozen=True)
class Answered:
    """A schedule after one answer, and what the answer did."""

    schedule: Schedule
    moved_schedule: bool
    lapsed: bool
    became_leech: bool


def answer_schedule(
    before: Schedule | None, quality: int, now: datetime, rollover_hour: int
) -> Answered:
    """The schedule after an answer of ``quality`` at ``now`` (``before`` None: a new card)."""
    previous = before if before is not None else Schedule()
    today = study_day(now, rollover_hour)
    already_today = (
        previous.last_review_at is not None
        and study_day(previous.last_review_at, rollover_hour) == today
        and previous.reviews > 0
    )
    after = replace(previous, reviews=previous.reviews + 1, last_review_at=now)
    if already_today:
        return Answered(after, moved_schedule=False, lapsed=False, became_leech=False)
    after = review(after, quality)
    after = replace(after, due_day=today + timedelta(days=after.interval_days))
    lapsed = quality < PASSING_QUALITY and previous.repetitions > 0
    became_leech = False
    if lapsed:
        after = replace(after, lapses=previous.lapses + 1)
        if after.lapses >= LEECH_LAPSES and not previous.leech:
            after = replace(after, leech=True)
            became_leech = True
    return Answered(after, moved_schedule=True, lapsed=lapsed, became_leech=became_leech)
