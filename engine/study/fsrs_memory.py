"""FSRS-6 (the ``fsrs`` package) behind kvdrill's one ``Schedule`` type. Pure.

The FSRS card state (stability, difficulty, state, step, due, last review) travels in
``Schedule.fsrs`` as plain JSON values; ``due_day`` and ``interval_days`` are derived from it,
so the queue, the forecast and the stats read a schedule the same way under either scheduler.

- Ratings: the four grade keys are the four FSRS ratings, one to one. A raw SM-2 quality maps
  0-2 -> Again, 3 -> Hard, 4 -> Good, 5 -> Easy, so Again/Hard/Good/Easy (1/3/4/5) and the
  checked answers (5/4/2/1/0) land on the rating their meaning says.
- No learning steps and no fuzzing: kvdrill schedules in whole study days and repeats a missed
  card within the session itself (the queue's step 7), and a replayed log must give the same
  state every time.
- FSRS needs aware UTC times; kvdrill's are naive local times. Only the differences between
  them matter to FSRS, so a naive time is read as if it were UTC.
- Predicted recall: FSRS's own retrievability. SM-2 has no memory model, so for it kvdrill uses
  an exponential forgetting curve that reaches ``SM2_RECALL_AT_DUE`` on the due day (the usual
  reading of an SM-2 interval: the time until recall falls to about 90%). It is an
  approximation, named as such wherever it is shown.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.settings import DEFAULT_DESIRED_RETENTION
from kvdrill.engine.study.stats_report import PredictedRecall

if TYPE_CHECKING:  # the package is slow to import; SM-2 profiles never load it
    import fsrs

SM2_RECALL_AT_DUE = 0.9
# Raw quality 0..5 -> FSRS rating 1..4 (Again, Hard, Good, Easy).
RATING_OF_QUALITY = (1, 1, 1, 2, 3, 4)


def rating_of(quality: Grade) -> int:
    """The FSRS rating (1 Again, 2 Hard, 3 Good, 4 Easy) of an SM-2 quality 0..5."""
    if isinstance(quality, bool) or not isinstance(quality, int) or not 0 <= quality <= 5:
        raise ValueError(f"a quality is an integer 0..5, got {quality!r}")
    return RATING_OF_QUALITY[quality]


@lru_cache(maxsize=8)
def _scheduler(
    desired_retention: float, parameters: tuple[float, ...] | None = None
) -> fsrs.Scheduler:
    import fsrs
    from fsrs.scheduler import DEFAULT_PARAMETERS

    return fsrs.Scheduler(
        parameters=parameters or DEFAULT_PARAMETERS,
        desired_retention=desired_retention,
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,
    )


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _card(memory: dict[str, Any] | None) -> fsrs.Card:
    import fsrs

    if memory is None:
        return fsrs.Card(card_id=0)
    return fsrs.Card.from_dict(cast(Any, {"card_id": 0, **memory}))


def _memory(card: fsrs.Card) -> dict[str, Any]:
    data: dict[str, Any] = dict(card.to_dict())
    del data["card_id"]
    return data


def fsrs_review(
    previous: Schedule,
    quality: Grade,
    now: datetime,
    today: date,
    desired_retention: float = DEFAULT_DESIRED_RETENTION,
    parameters: tuple[float, ...] | None = None,
) -> Schedule:
    """``previous`` after one answer under FSRS (every answer, same-day ones included): new
    memory state, interval and due day. Repetitions count passes in a row (quality 3 or more),
    as under SM-2; the easiness is SM-2's and is left alone. ``parameters``: FSRS's 21 weights
    (None: the package's defaults)."""
    moment = _utc(now)
    card, _ = _scheduler(desired_retention, parameters).review_card(
        _card(previous.fsrs), _fsrs_rating(quality), moment
    )
    interval = max(1, round((card.due - moment) / timedelta(days=1)))
    passed = quality >= Grade.HARD
    return replace(
        previous,
        fsrs=_memory(card),
        interval_days=interval,
        due_day=today + timedelta(days=interval),
        repetitions=previous.repetitions + 1 if passed else 0,
    )


def _fsrs_rating(quality: Grade) -> fsrs.Rating:
    import fsrs

    return fsrs.Rating(rating_of(quality))


def predicted_recall(
    schedule: Schedule,
    now: datetime,
    desired_retention: float = DEFAULT_DESIRED_RETENTION,
    parameters: tuple[float, ...] | None = None,
) -> float | None:
    """The chance the card is recalled at ``now``: FSRS's retrievability when the schedule has
    an FSRS state, else the SM-2 approximation of the module docstring; None for a new card."""
    if schedule.is_new or schedule.last_review_at is None:
        return None
    if schedule.fsrs is not None:
        return _scheduler(desired_retention, parameters).get_card_retrievability(
            _card(schedule.fsrs), _utc(now)
        )
    elapsed = max(0.0, (now - schedule.last_review_at) / timedelta(days=1))
    return SM2_RECALL_AT_DUE ** (elapsed / max(1, schedule.interval_days))


def recall_of_due(
    due: list[Schedule],
    now: datetime,
    scheduler: str,
    desired_retention: float = DEFAULT_DESIRED_RETENTION,
    parameters: tuple[float, ...] | None = None,
) -> PredictedRecall:
    """The mean predicted recall of the ``due`` cards at ``now`` under ``scheduler``."""
    chances = [
        chance
        for schedule in due
        if (chance := predicted_recall(schedule, now, desired_retention, parameters)) is not None
    ]
    return PredictedRecall(
        scheduler=scheduler,
        due_cards=len(due),
        mean_recall=round(sum(chances) / len(chances), 4) if chances else None,
        method="fsrs retrievability" if scheduler == "fsrs" else "sm2 approximation",
    )
