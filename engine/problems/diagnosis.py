"""Naming the mistake of a wrong answer: ``diagnose(variant, answer) -> Diagnosis | None``.

The first match wins:

1. a unit slip (right number, sibling unit; engine/problems/unit_traps.py): ``kb_vs_kib``,
   ``mb_vs_mib``, ``gb_vs_gib``, ``tb_vs_tib`` (also PB/PiB), ``bits_vs_bytes``;
2. ``rounded_up``: a whole count answered above the truth, by one or within the tolerance;
   ``bare_base_unit``: a number typed without a unit that is the answer in bytes, seconds or
   bytes per second (``141000000000`` for 141 GB);
3. the generator's ``alternatives`` (engine/problems/diagnosis_facts.py lists the context), in
   their order;
4. the ratio rules of engine/problems/diagnosis_rules.py, in order.

Each diagnosis is one sentence (engine/problems/mistake_sentences.py) with a stable code.
"""

from __future__ import annotations

from collections.abc import Mapping

from kvdrill.engine.capacity.units import unit_scale
from kvdrill.engine.problems.acceptance import expected_text, is_whole_count
from kvdrill.engine.problems.answers import TypedAnswer
from kvdrill.engine.problems.diagnosis_facts import Facts
from kvdrill.engine.problems.diagnosis_rules import RULE_BY_CODE, RULES
from kvdrill.engine.problems.mistake_sentences import (
    BASE_UNIT_NAMES,
    SENTENCES,
    bare_base_unit_sentence,
    known_mistake_sentence,
    sentence,
)
from kvdrill.engine.problems.types import Diagnosis, Variant
from kvdrill.engine.problems.unit_traps import unit_slip


def _alternatives(facts: Facts) -> Diagnosis | None:
    alternatives = facts.context.get("alternatives")
    if not isinstance(alternatives, Mapping):
        return None
    custom = facts.context.get("mistake_sentences")
    custom = custom if isinstance(custom, Mapping) else {}
    for code, wrong in alternatives.items():
        if isinstance(wrong, bool) or not isinstance(wrong, int | float) or not wrong:
            continue
        if abs(facts.value / wrong - 1) <= facts.tolerance:
            said = custom.get(code)
            if not said:
                known = str(code) in SENTENCES
                said = sentence(str(code)) if known else known_mistake_sentence(code)
            return Diagnosis(str(code), str(said))
    return None


def _bare_base_unit(facts: Facts) -> Diagnosis | None:
    """A number typed without a unit that is the answer in bytes (or seconds): 141e9 for 141 GB."""
    if facts.answer.unit_typed:
        return None
    factor, dimension = unit_scale(facts.variant.unit)
    base = BASE_UNIT_NAMES.get(dimension)
    if base is None or factor == 1 or not facts.near(factor):
        return None
    return Diagnosis(
        "bare_base_unit",
        bare_base_unit_sentence(base, facts.variant.unit, expected_text(facts.variant)),
    )


def _rounded_up(facts: Facts) -> bool:
    """A whole count answered above the truth: by one, or by no more than the tolerance."""
    if not is_whole_count(facts.variant) or facts.value <= facts.truth:
        return False
    excess = facts.value - facts.truth
    return excess <= 1 + 1e-9 or excess <= facts.variant.rel_tolerance * facts.truth


def diagnose(variant: Variant, answer: TypedAnswer) -> Diagnosis | None:
    """The first rule that explains a wrong answer, or None."""
    slip = unit_slip(answer, variant)
    # An 8x answer typed in bytes reads as "the bit count, labelled bytes", unless the variant
    # has 8x as many attention heads as KV heads: then the heads are the likelier mistake.
    if slip is not None and slip.code != "bits_vs_bytes":
        return slip
    if variant.expected_value == 0 or answer.value_in(variant.unit) == 0:
        return slip
    facts = Facts.of(variant, answer)
    if _rounded_up(facts):
        return Diagnosis("rounded_up", sentence("rounded_up"))
    bare = _bare_base_unit(facts)
    if bare is not None:
        return bare
    alternative = _alternatives(facts)
    if alternative is not None:
        return alternative
    if slip is not None:
        heads = RULE_BY_CODE["attention_heads"].match(facts)
        return slip if heads is None else Diagnosis("attention_heads", heads)
    for rule in RULES:
        if rule.needs_precision and not facts.precise:
            continue
        said = rule.match(facts)
        if said is not None:
            return Diagnosis(rule.code, said)
    return None
