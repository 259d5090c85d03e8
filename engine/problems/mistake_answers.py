"""What each known mistake makes a learner type on a variant, in the variant's own unit.

``mistaken_answers(variant, code)`` lists, for one mistake code of engine/problems/diagnosis.py,
the answers the mistake produces on this variant: each entry is one answer, or for a rounded
count the ends of what the mistaken formula can give after its own rounding (all must be
diagnosed with the code). ``known_mistakes(variant)`` gives them for every code at once. The
generator uses them to make sure no known mistake is ever accepted (it tightens the tolerance
or draws again); ``kvdrill drill --mistake`` picks the variants where a mistake shows.

- the checker's ratio rules (``kv_factor_2``, ``attention_heads``, ``tp_missing``, ...): the
  right answer times each ratio the rule looks for, from the checker's own ratio functions;
- the decimal/binary codes (``gb_vs_gib``, ...): off by 1.024**k, on variants that show one of
  the pair's units (in the asked unit or an input), so the slip is one the learner can make;
- the generator's ``alternatives`` (``weights_not_subtracted``, ``gib_read_as_gb``,
  ``rounded_down``, ...): the value it computed with the wrong input or rounding;
- ``rounded_up``: one more than a whole count; ``bare_base_unit``: the answer in bytes or
  seconds typed without its unit; ``near_miss``: between the tolerance and 5 % off.

Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from kvdrill.engine.capacity.units import format_number, format_quantity, unit_scale
from kvdrill.engine.problems.answers import TypedAnswer
from kvdrill.engine.problems.diagnosis_facts import Facts
from kvdrill.engine.problems.diagnosis_rules import NEAR_MISS, RULE_BY_CODE, small_count
from kvdrill.engine.problems.types import Variant
from kvdrill.engine.problems.unit_traps import PREFIX_PAIRS

WRONG_FIGURES = 6  # a mistaken answer is typed as worked out, not rounded
# Codes the generator's alternatives carry (engine/problems/diagnosis_context.py).
ALTERNATIVE_CODES = (
    "weights_not_subtracted",
    "utilization_missing",
    "active_vs_total",
    "scales_missing",
    "gib_read_as_gb",
    "gb_read_as_gib",
    "rounded_down",
)
# Checker rules whose ratios are the mistake's own, whatever the prompt shows.
_SHARED_RULES = (
    "kv_factor_2",
    "mla_factor_2",
    "attention_heads",
    "tp_missing",
    "tp_wrong",
    "gpus_missing",
    "dtype_bytes",
    "bits_vs_bytes",
    "factor_1024",
)


def facts_of(variant: Variant) -> Facts:
    """The checker's view of a variant's context (its helpers read KV heads, TP, exponents)."""
    truth = variant.expected_value
    answer = TypedAnswer("", truth, variant.unit, True, WRONG_FIGURES)
    return Facts(
        variant=variant,
        answer=answer,
        value=truth,
        truth=truth,
        ratio=1.0,
        tolerance=0.0,
        precise=True,
        context=variant.context,
        information="[information]" in dict(unit_scale(variant.unit)[1]),
    )


def _shows_unit(variant: Variant, units: Sequence[str]) -> bool:
    """The asked unit or an input's text is in one of ``units`` ("3.35 TB/s" shows TB)."""
    texts = [variant.unit, *variant.params.values()]
    words = {word for text in texts for word in text.replace("/", " ").split()}
    return any(unit in words for unit in units)


def _prefix_ratios(step: int, units: Sequence[str]) -> Callable[[Facts], list[float]]:
    def ratios(facts: Facts) -> list[float]:
        if not facts.information or not _shows_unit(facts.variant, units):
            return []
        return [1.024**step, 1.024**-step]

    return ratios


def _factor_1000(facts: Facts) -> list[float]:
    """A prefix slip (k, M, G; ms against s): on quantities with a unit, not on counts."""
    return [1e3, 1e-3, 1e6, 1e-6] if unit_scale(facts.variant.unit)[1] else []


def _near_miss(facts: Facts) -> list[float]:
    tolerance = facts.variant.rel_tolerance
    if tolerance >= NEAR_MISS or small_count(facts.truth):
        return []
    off = (tolerance + NEAR_MISS) / 2
    return [1 + off, 1 - off]


def _prefix_rules() -> dict[str, Callable[[Facts], list[float]]]:
    """kb_vs_kib off by 1.024, mb_vs_mib by 1.024**2, ...: each with the units of its pairs."""
    units: dict[str, list[str]] = {}
    for code, decimal, binary in PREFIX_PAIRS:
        units.setdefault(code, []).extend([decimal, binary])
    return {
        code: _prefix_ratios(step, shown) for step, (code, shown) in enumerate(units.items(), 1)
    }


RATIOS: dict[str, Callable[[Facts], Sequence[float]]] = {
    **_prefix_rules(),
    **{code: RULE_BY_CODE[code].ratios for code in _SHARED_RULES},
    "factor_1000": _factor_1000,
    "near_miss": _near_miss,
}


def _whole_count(variant: Variant) -> bool:
    return variant.context.get("whole_count") is True


def _rounded_count(variant: Variant) -> bool:
    """A count the formula rounds (requests that fit, GPUs needed): a whole number, no unit."""
    truth = variant.expected_value
    return _whole_count(variant) or (truth == round(truth) and not unit_scale(variant.unit)[1])


def _typed(variant: Variant, value: float) -> str:
    return format_quantity(value, variant.unit, WRONG_FIGURES)


def _ratio_values(variant: Variant, ratio: float) -> tuple[float, ...]:
    """What a learner who is off by ``ratio`` gets: the right answer times the ratio. For a
    rounded count, the mistaken formula rounds ratio x the unrounded value, which lies within
    one of the count (a floor: from it to one above): the ends of what it can then give come
    too, and each must read as the mistake."""
    truth = variant.expected_value
    if not _rounded_count(variant):
        return (truth * ratio,)
    below = truth if _whole_count(variant) else truth - 1
    low = math.floor(ratio * below + 1e-9)
    high = math.ceil(ratio * (truth + 1) - 1e-9)
    if low <= 0:
        return ()
    likely = max(low, round(ratio * truth))
    return tuple(float(value) for value in dict.fromkeys((likely, low, high)))


def _alternative(code: str) -> Callable[[Variant], list[tuple[float, ...]]]:
    def values(variant: Variant) -> list[tuple[float, ...]]:
        alternatives = variant.context.get("alternatives")
        wrong = alternatives.get(code) if isinstance(alternatives, Mapping) else None
        if isinstance(wrong, bool) or not isinstance(wrong, int | float) or wrong <= 0:
            return []
        return [(float(wrong),)]

    return values


def _rounded_up(variant: Variant) -> list[tuple[float, ...]]:
    return [(variant.expected_value + 1,)] if _whole_count(variant) else []


def _bare_base_unit(variant: Variant) -> list[tuple[float, ...]]:
    factor, _ = unit_scale(variant.unit)
    return [] if factor == 1 else [(variant.expected_value * factor,)]


_VALUES: dict[str, Callable[[Variant], list[tuple[float, ...]]]] = {
    **{code: _alternative(code) for code in ALTERNATIVE_CODES},
    "rounded_up": _rounded_up,
    "bare_base_unit": _bare_base_unit,
}


# Every code a session can be built for, in the checker's order of diagnosis.
PRACTISED_CODES: tuple[str, ...] = ("rounded_up", "bare_base_unit", *ALTERNATIVE_CODES) + tuple(
    RATIOS
)
# near_miss is defined by falling outside the tolerance: it is no value a rule could accept.
KNOWN_MISTAKES = tuple(code for code in PRACTISED_CODES if code != "near_miss")


def mistaken_values(variant: Variant, code: str) -> list[tuple[float, ...]]:
    """The values the mistake produces on this variant, in its unit (a bare number typed for
    ``bare_base_unit``); each entry is one value or the ends of a range that must all be
    diagnosed with ``code``."""
    if code in _VALUES:
        return _VALUES[code](variant)
    if code not in RATIOS:
        return []
    ratios = RATIOS[code](facts_of(variant))
    return [values for ratio in ratios if (values := _ratio_values(variant, ratio))]


def typed_answer(variant: Variant, code: str, value: float) -> str:
    """A mistaken value as the learner types it: worked out, in the asked unit (bare for
    ``bare_base_unit``, whose mistake is leaving the unit off)."""
    if code == "bare_base_unit":
        return format_number(value, WRONG_FIGURES)
    return _typed(variant, value)


def mistaken_answers(variant: Variant, code: str) -> list[tuple[str, ...]]:
    """Answers the mistake produces on this variant, as typed; each is one answer or the ends
    of a range that must all be diagnosed with ``code``."""
    return [
        tuple(typed_answer(variant, code, value) for value in values)
        for values in mistaken_values(variant, code)
    ]


def known_mistakes(variant: Variant) -> dict[str, list[str]]:
    """Every known mistake's answers on this variant (near misses aside), by code."""
    found: dict[str, list[str]] = {}
    for code in KNOWN_MISTAKES:
        typed = [answer for answers in mistaken_answers(variant, code) for answer in answers]
        if typed:
            found[code] = typed
    return found
