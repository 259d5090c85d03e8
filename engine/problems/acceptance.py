"""Whether a typed answer is right: the tolerance, the rounding rule and the traps never accepted.

An answer is correct when it is within ``variant.rel_tolerance`` (default 1 %) of the truth, or,
for templates with a tighter tolerance, when it *is* the truth rounded to the answer's own
significant figures with at least three of them (``449k`` for 448,921 tokens, ``128 KiB`` for
131,072 B; trailing zeros of an integer do not count, so ``450k`` has two). Three figures bound
that rounding to 0.5 %, below every unit trap. Unit traps (engine/problems/unit_traps.py) are
never accepted, whatever the tolerance. A whole count (context ``whole_count``: requests or
sessions that fit, a floor) is never accepted above the truth: 301 requests for 299 is one
request that does not fit, whatever the tolerance.
"""

from __future__ import annotations

import math

from kvdrill.engine.capacity.units import convert, format_quantity
from kvdrill.engine.problems.answers import TypedAnswer
from kvdrill.engine.problems.types import Variant
from kvdrill.engine.problems.unit_traps import prefix_ratio_trap, unit_slip

MIN_SIGNIFICANT_FIGURES = 3


def expected_text(variant: Variant) -> str:
    """The right answer with its unit, as every verdict shows it: '128 KiB'."""
    return format_quantity(variant.expected_value, variant.unit)


def is_whole_count(variant: Variant) -> bool:
    """The answer is a floor (requests or sessions that fit): never right above the truth."""
    return variant.context.get("whole_count") is True


def _round_significant(value: float, figures: int) -> float:
    if value == 0:
        return 0.0
    digits = figures - 1 - math.floor(math.log10(abs(value)))
    return round(value, digits)


def is_accepted(variant: Variant, answer: TypedAnswer) -> bool:
    """Within tolerance, or the truth rounded to the answer's (>= 3) significant figures."""
    if unit_slip(answer, variant) is not None:
        return False
    truth = variant.expected_value
    value = answer.value_in(variant.unit)
    if truth == 0:
        return value == 0
    if is_whole_count(variant) and value > truth:
        return False  # one more request than fits is not served
    if prefix_ratio_trap(variant, answer, value / truth):
        return False
    if abs(value - truth) <= variant.rel_tolerance * abs(truth):
        return True
    if answer.significant_figures < MIN_SIGNIFICANT_FIGURES:
        return False
    truth_typed = convert(truth, variant.unit, answer.unit)
    rounded = _round_significant(truth_typed, answer.significant_figures)
    return rounded != 0 and abs(answer.value / rounded - 1) <= 1e-9
