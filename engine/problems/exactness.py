"""No known mistake is ever accepted: a variant whose mistaken answer falls inside the
acceptance tolerance is checked exactly enough to refuse it, or drawn again.

For every mistake engine/problems/mistake_answers.py knows on a variant (a block count rounded
down, a pool without the weights, GiB read as GB, ...), the answer that mistake gives, typed as
worked out, must not be accepted. Where one would be, the variant's tolerance shrinks to half
the gap between it and the truth: a whole count is then checked exactly, a measured value to
four figures. A mistake closer to the truth than ``MIN_GAP`` cannot be told apart by any answer
a learner types, so the generator draws that variant again.
"""

from __future__ import annotations

from dataclasses import replace

from kvdrill.engine.problems.acceptance import is_accepted
from kvdrill.engine.problems.answers import read_typed_answer
from kvdrill.engine.problems.mistake_answers import (
    KNOWN_MISTAKES,
    mistaken_values,
    typed_answer,
)
from kvdrill.engine.problems.types import Variant
from kvdrill.i18n import N_

MIN_GAP = 0.001  # below this a mistake and the truth agree to the figures anyone types
INDISTINGUISHABLE = N_("no known mistake within 0.1 % of the answer")


# No answer further off than this is accepted, whatever the tolerance: the rounding rule of
# engine/problems/acceptance.py allows at most 0.5 % (three figures).
_ROUNDING = 0.005


def accepted_mistakes(variant: Variant) -> list[tuple[str, float]]:
    """(code, value in the variant's unit) of each known mistake the checker would accept."""
    truth = variant.expected_value
    reach = max(variant.rel_tolerance, _ROUNDING) * 1.01
    found = []
    for code in KNOWN_MISTAKES:
        for values in mistaken_values(variant, code):
            for value in values:
                if code == "bare_base_unit" or abs(value / truth - 1) > reach:
                    continue  # far off: reading it would only confirm the refusal
                answer = read_typed_answer(
                    typed_answer(variant, code, value), variant.unit, by_learner=False
                )
                if is_accepted(variant, answer):
                    found.append((code, answer.value_in(variant.unit)))
    return found


def refusing_known_mistakes(variant: Variant) -> Variant | None:
    """The variant, its tolerance tightened until no known mistake is accepted; None when a
    mistake lies too close to the truth to be refused (the generator draws again)."""
    truth = variant.expected_value
    whole = truth == round(truth)
    for _ in range(3):  # a tighter tolerance can change what the rounding rules accept
        accepted = accepted_mistakes(variant)
        if not accepted:
            return variant
        gap = min(abs(value / truth - 1) for _, value in accepted)
        if gap == 0 or (gap < MIN_GAP and not whole):
            return None
        variant = replace(variant, rel_tolerance=min(variant.rel_tolerance, gap / 2))
    return None
