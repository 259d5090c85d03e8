"""SM-2 (SuperMemo, 1987) as one pure function, with the easiness factor kept exact.

The 1987 text leaves some choices open; kvdrill reads it as follows.

- Quality ``q`` is 0..5. ``q >= 3`` is a pass, ``q < 3`` a failure. What a learner types to
  give one is engine/study/grades.py.
- The easiness factor is stored in integer thousandths (2.5 is 2500), so no float ever drifts.
  ``EF' = EF + (0.1 - (5 - q) * (0.08 + (5 - q) * 0.02))``, which in thousandths is
  ``100 - (5 - q) * (80 + (5 - q) * 20)``: +100, 0, -140 for q = 5, 4, 3. EF' is never below 1.3.
- On a pass, repetitions go up by one. The interval is 1 day after the first repetition, 6 days
  after the second, and from the third on ``ceil(previous interval * EF')``, using the EF this
  very review produced. The product is computed in integers, so ``ceil`` sees the exact value.
- On a failure, repetitions go back to 0, the next interval is 1 day, and EF is left unchanged
  (the text restarts the repetitions "without changing the E-Factor").
- Step 7 (repeat what scored below 4 the same day) is the queue's job, not this function's.
"""

from __future__ import annotations

from dataclasses import replace

from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI, Schedule

__all__ = ["NEW_CARD_EASINESS_MILLI", "Schedule", "review"]

MIN_EASINESS_MILLI = 1300
PASSING_QUALITY = Grade.HARD
# Step 7: below this a card comes back later in the same session.
SESSION_REPEAT_BELOW = Grade.GOOD


def easiness_change_milli(quality: Grade) -> int:
    """How much one review with ``quality`` moves EF, in thousandths (before the 1.3 floor)."""
    misses = 5 - quality
    return 100 - misses * (80 + misses * 20)


def review(state: Schedule, quality: Grade) -> Schedule:
    """The schedule after one review of quality 0..5 (see the module docstring for the rules).

    Only repetitions, easiness and interval change; the rest of ``state`` is kept."""
    repetitions, easiness, interval = step(
        state.repetitions, state.easiness_milli, state.interval_days, quality
    )
    return replace(state, repetitions=repetitions, easiness_milli=easiness, interval_days=interval)


def step(
    repetitions: int, easiness_milli: int, interval_days: int, quality: Grade
) -> tuple[int, int, int]:
    """``review`` on the three numbers it changes: (repetitions, easiness, interval) after one
    review of ``quality``. The answer path (engine/study/rules.py) builds one ``Schedule`` from
    them instead of copying it field by field."""
    if not isinstance(quality, int) or isinstance(quality, bool) or not 0 <= quality <= 5:
        raise ValueError(f"SM-2 quality must be an integer 0..5, got {quality!r}")
    if quality < PASSING_QUALITY:
        return 0, easiness_milli, 1
    easiness = max(MIN_EASINESS_MILLI, easiness_milli + easiness_change_milli(quality))
    repetitions += 1
    if repetitions == 1:
        interval = 1
    elif repetitions == 2:
        interval = 6
    else:
        # ceil(previous * easiness / 1000) in integers.
        interval = -(-interval_days * easiness // 1000)
    return repetitions, easiness, interval
