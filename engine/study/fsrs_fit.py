"""FSRS's parameters fitted to a learner's own review log, with fsrs-rs. Pure (no I/O).

fsrs-rs (the ``fsrs-rs-python`` binding) is the optimizer Anki itself runs: a small compiled
wheel with no dependencies, where the ``fsrs`` package's own optimizer needs torch. It learns
from every review that comes a day or more after the card's previous one, with the whole
history before it (same-day repeats included, as FSRS-6's short-term stability reads them).

- Days between reviews are whole elapsed days, as the ``fsrs`` package counts them when it
  schedules (engine/study/fsrs_memory.py), so the fitted weights mean the same thing there.
- The fit is judged on the same log: the log loss and the RMSE (binned, as fsrs-rs reports it)
  of the current parameters beside the fitted ones'.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from kvdrill.engine.study.fsrs_memory import rating_of
from kvdrill.engine.study.grades import Grade

if TYPE_CHECKING:
    import fsrs_rs_python

# Below this many reviews to learn from, fitted weights follow the noise of a few cards more
# than the learner's memory (a kvdrill choice).
MIN_TRAINING_REVIEWS = 400


@dataclass(frozen=True)
class Accuracy:
    """How well a set of parameters predicts the log: lower is better for both."""

    log_loss: float
    rmse: float


@dataclass(frozen=True)
class Fit:
    """What fitting found. ``fitted`` and ``after`` are None when the log is too short."""

    reviews: int  # answers in the log
    training_reviews: int  # reviews a day or more after the card's previous one
    before: Accuracy | None
    after: Accuracy | None
    fitted: tuple[float, ...] | None

    @property
    def enough(self) -> bool:
        return self.training_reviews >= MIN_TRAINING_REVIEWS

    @property
    def improves(self) -> bool:
        """The fitted parameters predict the log better than the current ones."""
        return (
            self.after is not None
            and self.before is not None
            and self.after.log_loss < self.before.log_loss
        )


def training_items(
    histories: Iterable[Sequence[tuple[Grade, datetime]]],
) -> list[fsrs_rs_python.FSRSItem]:
    """One fsrs-rs item per review a day or more after its card's previous one: the card's
    reviews up to and including it. ``histories``: per card, (quality, time), oldest first."""
    import fsrs_rs_python as rs

    items = []
    for history in histories:
        reviews = []
        previous: datetime | None = None
        for quality, moment in history:
            elapsed = 0 if previous is None else (moment - previous).days
            reviews.append(rs.FSRSReview(rating_of(quality), elapsed))
            previous = moment
            if len(reviews) > 1 and elapsed > 0:
                items.append(rs.FSRSItem(list(reviews)))
    return items


def fit_parameters(
    histories: Sequence[Sequence[tuple[Grade, datetime]]],
    current: tuple[float, ...] | None,
) -> Fit:
    """Fit FSRS's weights to ``histories`` (per card, (quality, time), oldest first) and
    measure them beside ``current`` (None: the defaults) on the same log."""
    import fsrs_rs_python as rs

    reviews = sum(len(history) for history in histories)
    items = training_items(histories)
    if len(items) < MIN_TRAINING_REVIEWS:
        return Fit(reviews, len(items), None, None, None)
    start = current or tuple(rs.DEFAULT_PARAMETERS)
    before = _accuracy(rs.FSRS(list(start)), items)
    fitted = _within_bounds(rs.FSRS([]).compute_parameters(items))
    after = _accuracy(rs.FSRS(list(fitted)), items)
    return Fit(reviews, len(items), before, after, fitted)


def _accuracy(model: fsrs_rs_python.FSRS, items: list[fsrs_rs_python.FSRSItem]) -> Accuracy:
    evaluation = model.evaluate(items)
    return Accuracy(log_loss=evaluation.log_loss, rmse=evaluation.rmse_bins)


def _within_bounds(weights: Sequence[float]) -> tuple[float, ...]:
    """fsrs-rs's weights inside the bounds the ``fsrs`` package checks (they agree; this only
    absorbs float32 rounding at an edge)."""
    from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

    return tuple(
        min(max(float(weight), low), high)
        for weight, low, high in zip(
            weights, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True
        )
    )
