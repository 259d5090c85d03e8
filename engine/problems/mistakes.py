"""Practising one mistake: problem variants whose numbers make that mistake show.

``exercises(code, templates, seed, count)`` picks variants of the given problem templates for a
session on one mistake code of engine/problems/checker.py (``kvdrill drill --mistake CODE``).

A variant *exercises* a mistake when the answer the mistake produces (``wrong_answer``) is
outside the variant's tolerance and ``check_answer`` diagnoses that very answer with that code:
the checker itself proves that a learner making the mistake on these numbers is told so. On a
question about one Llama the K-and-V factor 2 may be hidden by another rule (an 8x ratio reads as
bits and bytes); the selection keeps only the variants where it is not.

What each mistake produces, in the variant's own unit:

- the checker's ratio rules (``kv_factor_2``, ``attention_heads``, ``tp_missing``, ...): the
  right answer times the ratio the rule looks for, from the variant's context (KV heads, TP,
  bytes per value, how the answer scales). A rounded count (requests that fit, GPUs needed) is
  exercised only when both ends of what the mistaken formula can give after its own rounding
  are diagnosed with the code: a count of 3 GPUs cannot show a factor of 2, 300 requests can;
- the decimal/binary codes (``gb_vs_gib``, ...): off by 1.024**k, on variants that show one of
  the pair's units (in the asked unit or an input), so the slip is one the learner can make here;
- the generator's ``alternatives`` (``weights_not_subtracted``, ``gib_read_as_gb``, ...): the value
  it computed with the wrong input;
- ``rounded_up``: one more than a whole count; ``bare_base_unit``: the answer in bytes or seconds
  typed without its unit; ``near_miss``: between the tolerance and 5 % off.

Deterministic: the seeds tried for a template come from ``seed`` and the template id only, so the
same templates and seed give the same session on every machine. Pure: no I/O.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kvdrill.engine.capacity.units import format_number, format_quantity, unit_scale
from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.engine.problems.answers import TypedAnswer
from kvdrill.engine.problems.checker import (
    NEAR_MISS,
    PREFIX_PAIRS,
    SENTENCES,
    Facts,
    check_answer,
)
from kvdrill.engine.problems.generator import make_variant
from kvdrill.engine.problems.types import Variant
from kvdrill.engine.study.seeds import SEED_RANGE

DEFAULT_COUNT = 10
# The input that, when a prompt states it, leaves no KV-structure mistake to make.
KV_PER_TOKEN = "kv_bytes_per_token"
# Seeds tried per template for one exercise before it is given up on: enough for a mistake that
# shows on one model in eight, few enough to stay well under a second over every template.
TRIES_PER_EXERCISE = 12
WRONG_FIGURES = 6
SMALL_COUNT = 100  # an exact wrong answer: the 1.024**k rules read only precise answers

# The bytes per value a learner may take for a precision (checker rule dtype_bytes).
_GUESSED_BYTES = (2.0, 1.0, 4.0, 0.5)
# Codes the generator's alternatives carry (engine/problems/generator.py _alternatives).
ALTERNATIVE_CODES = (
    "weights_not_subtracted",
    "utilization_missing",
    "active_vs_total",
    "scales_missing",
    "gib_read_as_gb",
    "gb_read_as_gib",
)


@dataclass(frozen=True)
class Exercise:
    """One question of a mistake session, and the answer the mistake would give on it."""

    template_id: str
    seed: int
    variant: Variant
    wrong_answer: str  # as a learner makes it, typed in the variant's unit


class UnknownMistake(UserError):
    """A code the checker never gives; the message lists the codes that can be practised."""


class NothingToPractise(UserError):
    """A real mistake code that no problem template here can exercise."""


# --- what a mistake produces -----------------------------------------------------------------


def _facts(variant: Variant) -> Facts:
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


def _kv_worked_out(facts: Facts) -> float:
    """How the answer scales with the KV per token, when the learner works that out; 0 when the
    prompt states it (then K-and-V and head-count slips cannot happen, whatever the checker
    would call the same number)."""
    return 0 if KV_PER_TOKEN in facts.variant.params else facts.exponent("kv")


def _kv_factor_2(facts: Facts) -> list[float]:
    e = _kv_worked_out(facts)
    return [0.5**e] if e and not facts.is_mla() else []


def _mla_factor_2(facts: Facts) -> list[float]:
    e = facts.exponent("kv")
    return [2.0**e] if e and facts.is_mla() else []


def _attention_heads(facts: Facts) -> list[float]:
    e = _kv_worked_out(facts)
    heads, kv_heads = facts.number("heads"), facts.number("kv_heads")
    if not e or not heads or not kv_heads or heads == kv_heads or facts.is_mla():
        return []
    ratios = [(heads / kv_heads) ** e]
    tp = facts.number("tp")
    if tp and tp > 1:
        ratios.append((max(1.0, heads // tp) / max(1.0, kv_heads // tp)) ** e)
    return ratios


def _tp_missing(facts: Facts) -> list[float]:
    k, split = facts.exponent("tp"), facts.tp_split()
    return [split ** (-k)] if k and split else []


def _tp_wrong(facts: Facts) -> list[float]:
    k, split, tp = facts.exponent("tp"), facts.tp_split(), facts.number("tp")
    if not (k and split and tp):
        return []
    return [r for r in (split**k, split ** (-2 * k), (tp / split) ** k) if r != 1]


def _dtype_bytes(facts: Facts) -> list[float]:
    d, size = facts.exponent("dtype_bytes"), facts.bytes_per_value()
    if not d or not size:
        return []
    return [(wrong / size) ** d for wrong in _GUESSED_BYTES if wrong != size]


def _bits_vs_bytes(facts: Facts) -> list[float]:
    return [8.0, 1 / 8] if facts.information else []


def _factor_1000(facts: Facts) -> list[float]:
    """A prefix slip (k, M, G; ms against s): on quantities with a unit, not on counts."""
    return [1e3, 1e-3, 1e6, 1e-6] if unit_scale(facts.variant.unit)[1] else []


def _factor_1024(facts: Facts) -> list[float]:
    """One binary prefix step (KiB, MiB, GiB): on sizes and bandwidths."""
    return [1024.0, 1 / 1024] if facts.information else []


def _small_count(value: float) -> bool:
    """A whole number under 100 (GPUs, layers): nothing is rounded on the way to it."""
    return value < SMALL_COUNT and value == round(value)


def _near_miss(facts: Facts) -> list[float]:
    tolerance = facts.variant.rel_tolerance
    if tolerance >= NEAR_MISS or _small_count(facts.truth):
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


_RATIOS: dict[str, Callable[[Facts], list[float]]] = {
    **_prefix_rules(),
    "kv_factor_2": _kv_factor_2,
    "mla_factor_2": _mla_factor_2,
    "attention_heads": _attention_heads,
    "tp_missing": _tp_missing,
    "tp_wrong": _tp_wrong,
    "dtype_bytes": _dtype_bytes,
    "bits_vs_bytes": _bits_vs_bytes,
    "factor_1000": _factor_1000,
    "factor_1024": _factor_1024,
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


def _ratio_answers(variant: Variant, ratio: float) -> tuple[str, ...]:
    """What a learner who is off by ``ratio`` types: the right answer times the ratio. For a
    rounded count, the mistaken formula rounds ratio x the unrounded value, which lies within
    one of the count (a floor: from it to one above): the ends of what it can then give come
    too, and each must read as the mistake."""
    truth = variant.expected_value
    if not _rounded_count(variant):
        return (_typed(variant, truth * ratio),)
    below = truth if _whole_count(variant) else truth - 1
    low = math.floor(ratio * below + 1e-9)
    high = math.ceil(ratio * (truth + 1) - 1e-9)
    if low <= 0:
        return ()
    likely = max(low, round(ratio * truth))
    return tuple(_typed(variant, value) for value in dict.fromkeys((likely, low, high)))


def _alternative(code: str) -> Callable[[Variant], list[tuple[str, ...]]]:
    def answers(variant: Variant) -> list[tuple[str, ...]]:
        alternatives = variant.context.get("alternatives")
        wrong = alternatives.get(code) if isinstance(alternatives, Mapping) else None
        if isinstance(wrong, bool) or not isinstance(wrong, int | float) or wrong <= 0:
            return []
        return [(_typed(variant, wrong),)]

    return answers


def _rounded_up(variant: Variant) -> list[tuple[str, ...]]:
    return [(_typed(variant, variant.expected_value + 1),)] if _whole_count(variant) else []


def _bare_base_unit(variant: Variant) -> list[tuple[str, ...]]:
    factor, _ = unit_scale(variant.unit)
    if factor == 1:
        return []
    return [(format_number(variant.expected_value * factor, WRONG_FIGURES),)]


_ANSWERS: dict[str, Callable[[Variant], list[tuple[str, ...]]]] = {
    **{code: _alternative(code) for code in ALTERNATIVE_CODES},
    "rounded_up": _rounded_up,
    "bare_base_unit": _bare_base_unit,
}

# Every code a session can be built for, in the checker's order of diagnosis.
PRACTISED_CODES: tuple[str, ...] = ("rounded_up", "bare_base_unit", *ALTERNATIVE_CODES) + tuple(
    _RATIOS
)


def is_known(code: str) -> bool:
    """A code the checker may give, whether or not a session can be built for it."""
    return code in PRACTISED_CODES or code in SENTENCES


def unknown_mistake(code: str, offered: Sequence[str]) -> UnknownMistake:
    """The one-line error for a code the checker never gives, listing those ``offered``."""
    listed = ", ".join(offered) if offered else "none (no problem template shows a mistake)"
    hint = did_you_mean(code, list(offered))
    return UnknownMistake(
        f"'{code}' is not a mistake code{hint}; the codes you can practise: {listed}"
    )


def _nothing_to_practise(code: str) -> NothingToPractise:
    return NothingToPractise(
        f"None of your problem templates gives numbers where the mistake '{code}' shows, "
        "so there is nothing to practise it on."
    )


def _candidates(variant: Variant, code: str) -> list[tuple[str, ...]]:
    """Answers the mistake produces on this variant; each is one answer or the ends of a range
    that must all be diagnosed with ``code``."""
    if code in _ANSWERS:
        return _ANSWERS[code](variant)
    if code not in _RATIOS:
        return []
    ratios = _RATIOS[code](_facts(variant))
    return [answers for ratio in ratios if (answers := _ratio_answers(variant, ratio))]


def _diagnosed_as(variant: Variant, typed: str, code: str) -> bool:
    verdict = check_answer(variant, typed)
    return not verdict.correct and not verdict.unreadable and verdict.mistake == code


def _outside_tolerance(variant: Variant, typed: str) -> bool:
    from kvdrill.engine.problems.answers import read_typed_answer

    value = read_typed_answer(typed, variant.unit).value_in(variant.unit)
    truth = variant.expected_value
    return abs(value - truth) > variant.rel_tolerance * abs(truth)


def wrong_answer(variant: Variant, code: str) -> str | None:
    """The answer the mistake ``code`` gives on ``variant``, as typed, when the checker tells
    it apart (outside the tolerance, diagnosed with exactly that code); else None."""
    for answers in _candidates(variant, code):
        if all(
            _outside_tolerance(variant, typed) and _diagnosed_as(variant, typed, code)
            for typed in answers
        ):
            return answers[0]
    return None


# --- choosing a session ----------------------------------------------------------------------


def _seeds(seed: int, template_id: str) -> Iterator[int]:
    """The variant seeds tried for one template: from the session seed and the id alone."""
    rng = random.Random((zlib.crc32(template_id.encode("utf-8")) << 32) ^ seed)
    while True:
        yield rng.randrange(SEED_RANGE)


def _found(template_id: str, spec: Mapping[str, Any], code: str, seed: int) -> Iterator[Exercise]:
    """Exercises of one template, in seed order; stops after TRIES_PER_EXERCISE misses in a row."""
    misses = 0
    prompts: set[str] = set()  # a template with few choices repeats its variants
    for variant_seed in _seeds(seed, template_id):
        if misses >= TRIES_PER_EXERCISE:
            return
        try:
            variant = make_variant(spec, template_id, variant_seed)
        except (UserError, ValueError):
            return  # the drill leaves such a template out too
        typed = None if variant.prompt in prompts else wrong_answer(variant, code)
        if typed is None:
            misses += 1
            continue
        misses = 0
        prompts.add(variant.prompt)
        yield Exercise(template_id, variant_seed, variant, typed)


def _setting(variant: Variant) -> tuple[object, object]:
    return variant.context.get("model"), variant.context.get("gpu")


def exercises(
    code: str,
    templates: Sequence[tuple[str, Mapping[str, Any]]],
    seed: int,
    count: int = DEFAULT_COUNT,
) -> list[Exercise]:
    """Up to ``count`` exercises of mistake ``code`` from ``templates`` ((id, spec) pairs).

    Templates take turns in an order shuffled by ``seed``, so a session mixes templates; a
    template's next exercise prefers a model and GPU the session has not shown yet.
    UnknownMistake for a code the checker never gives (listing the codes these templates can
    exercise), NothingToPractise for a code none of them can."""
    if not is_known(code):
        raise unknown_mistake(code, offered_codes(templates))
    if code not in PRACTISED_CODES:
        raise _nothing_to_practise(code)
    order = sorted(templates, key=lambda item: item[0])
    random.Random(seed).shuffle(order)
    sources = {tid: _found(tid, spec, code, seed) for tid, spec in order}
    pending: dict[str, list[Exercise]] = {tid: [] for tid in sources}
    chosen: list[Exercise] = []
    settings: set[tuple[object, object]] = set()
    while len(chosen) < count and sources:
        for template_id in list(sources):
            if len(chosen) >= count:
                break
            picked = _next_exercise(sources, pending, template_id, settings)
            if picked is not None:
                chosen.append(picked)
                settings.add(_setting(picked.variant))
    if not chosen:
        raise _nothing_to_practise(code)
    return chosen


def can_practise(code: str, templates: Sequence[tuple[str, Mapping[str, Any]]]) -> bool:
    """Some template gives a variant where ``code`` shows."""
    if code not in PRACTISED_CODES:
        return False
    sources = (_found(tid, spec, code, 0) for tid, spec in templates)
    return any(next(source, None) is not None for source in sources)


def offered_codes(templates: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """The codes a session can be built for from ``templates``, sorted."""
    return sorted(code for code in PRACTISED_CODES if can_practise(code, templates))


def _next_exercise(
    sources: dict[str, Iterator[Exercise]],
    pending: dict[str, list[Exercise]],
    template_id: str,
    settings: set[tuple[object, object]],
) -> Exercise | None:
    """The template's next exercise, looking a few ahead for a setting not yet shown."""
    queue = pending[template_id]
    while len(queue) < 3:
        found = next(sources[template_id], None)
        if found is None:
            break
        queue.append(found)
    if not queue:
        del sources[template_id]
        return None
    fresh = next((e for e in queue if _setting(e.variant) not in settings), queue[0])
    queue.remove(fresh)
    return fresh
