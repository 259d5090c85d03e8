"""The ratio rules: what each mistake does to the answer, in the order they are tried.

``RULES`` in order: ``kb_vs_kib``, ``mb_vs_mib``, ``gb_vs_gib``, ``tb_vs_tib`` (off by
1.024**k), ``kv_factor_2``, ``mla_factor_2``, ``attention_heads``, ``tp_missing``, ``tp_wrong``,
``gpus_missing``, ``dtype_bytes``, ``bits_vs_bytes`` (x8, after the rules that use the context:
64 heads / 8 KV heads is also 8), ``factor_1000`` (also 10**6), ``factor_1024``, and last
``near_miss`` (within ``NEAR_MISS``, 5 %, outside the tolerance; never on a whole answer under
SMALL_COUNT, which has no digits to keep).

A rule names only a mistake the prompt makes possible: with ``kv_stated`` (the prompt gives the
KV bytes per token) no K-and-V, MLA or head-count rule applies. The 1.024**k rules need an answer
precise to 1 % (``140 kB`` is too coarse to tell them apart). To add a rule, append
``Rule(code, ratios, sentence)``: ``ratios(facts)`` the ratios of the mistaken answer to the
truth the mistake can produce, ``sentence(facts, found)`` its diagnosis (the wording lives in
engine/problems/mistake_sentences.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kvdrill.engine.problems.diagnosis_facts import Facts
from kvdrill.engine.problems.mistake_sentences import (
    attention_heads_sentence,
    bits_vs_bytes_sentence,
    dtype_bytes_sentence,
    factor_1000_sentence,
    factor_1024_sentence,
    gpus_missing_sentence,
    near_miss_sentence,
    prefix_ratio_sentence,
    sentence,
    tp_missing_sentence,
    tp_wrong_sentence,
)

NEAR_MISS = 0.05
SMALL_COUNT = 100  # a whole answer below this (GPUs, replicas) has no digits to keep


def _first_near(facts: Facts, ratios: Iterable[float]) -> float | None:
    """The first of the ratios a mistake could produce that the answer matches, if any."""
    for ratio in ratios:
        if facts.near(ratio):
            return ratio
    return None


# What a mistake does to the answer: the ratios of the mistaken answer to the truth that it can
# produce on these facts, none where the prompt leaves no room for it. engine/problems/
# mistake_answers.py builds a learner's mistaken answers from the same functions.
Ratios = Callable[[Facts], Sequence[float]]
# The one-sentence diagnosis, given the ratio the answer matched.
Sentence = Callable[[Facts, float], str]


@dataclass(frozen=True)
class Rule:
    code: str
    ratios: Ratios
    sentence: Sentence
    # Ratios a few percent apart (1.024, 1.049, 1.074) cannot be told apart from an answer typed
    # with two figures: such rules only look at answers precise to DIAGNOSIS_TOLERANCE.
    needs_precision: bool = False

    def match(self, facts: Facts) -> str | None:
        found = _first_near(facts, self.ratios(facts))
        return None if found is None else self.sentence(facts, found)


def _prefix_ratio_rule(code: str, step: int) -> Rule:
    ratio = 1.024**step

    def ratios(facts: Facts) -> list[float]:
        return [ratio, 1 / ratio] if facts.information else []

    return Rule(
        code, ratios, lambda facts, found: prefix_ratio_sentence(code, ratio), needs_precision=True
    )


def bits_vs_bytes_ratios(facts: Facts) -> list[float]:
    return [8.0, 1 / 8] if facts.information else []


def kv_factor_2_ratios(facts: Facts) -> list[float]:
    e = facts.kv_worked_out()
    return [0.5**e] if e and not facts.is_mla() else []


def mla_factor_2_ratios(facts: Facts) -> list[float]:
    e = facts.kv_worked_out()
    return [2.0**e] if e and facts.is_mla() else []


def attention_heads_ratios(facts: Facts) -> list[float]:
    e = facts.kv_worked_out()
    heads, kv_heads = facts.number("heads"), facts.number("kv_heads")
    if not e or not heads or not kv_heads or heads == kv_heads or facts.is_mla():
        return []
    if facts.context.get("heads_possible") is False:
        return []
    ratios = [(heads / kv_heads) ** e]
    tp = facts.number("tp")
    if tp and tp > 1:
        # Per GPU: heads split over TP, KV heads replicated once TP exceeds their count.
        ratios.append((max(1.0, heads // tp) / max(1.0, kv_heads // tp)) ** e)
    return ratios


def _attention_heads(facts: Facts, found: float) -> str:
    return attention_heads_sentence(facts.number("heads") or 0, facts.number("kv_heads") or 0)


def tp_missing_ratios(facts: Facts) -> list[float]:
    k, split = facts.exponent("tp"), facts.tp_split()
    return [split ** (-k)] if k and split else []


def _tp_missing(facts: Facts, found: float) -> str:
    return tp_missing_sentence(facts.number("tp") or facts.tp_split() or 1)


def tp_wrong_ratios(facts: Facts) -> list[float]:
    k, split, tp = facts.exponent("tp"), facts.tp_split(), facts.number("tp")
    if not (k and split and tp):
        return []
    # Divided twice, multiplied instead of divided, or divided by tp where KV heads replicate.
    return [r for r in dict.fromkeys((split**k, split ** (-2 * k), (tp / split) ** k)) if r != 1]


def gpus_missing_ratios(facts: Facts) -> list[float]:
    k, gpus = facts.exponent("gpus"), facts.number("gpus")
    return [gpus ** (-k)] if k and gpus and gpus > 1 else []


# The bytes per value a learner may take for a precision.
GUESSED_BYTES = (2.0, 1.0, 4.0, 0.5)


def _dtype_pairs(facts: Facts) -> list[tuple[float, float]]:
    """(bytes guessed, ratio it gives) for each wrong guess."""
    d, size = facts.exponent("dtype_bytes"), facts.bytes_per_value()
    if not d or not size:
        return []
    return [(wrong, (wrong / size) ** d) for wrong in GUESSED_BYTES if wrong != size]


def dtype_bytes_ratios(facts: Facts) -> list[float]:
    return [ratio for _, ratio in _dtype_pairs(facts)]


def _dtype_bytes(facts: Facts, found: float) -> str:
    wrong = next(w for w, ratio in _dtype_pairs(facts) if ratio == found)
    return dtype_bytes_sentence(wrong, facts.context.get("dtype"), facts.bytes_per_value() or 0)


def _factor_1000_ratios(facts: Facts) -> list[float]:
    return [1e3, 1e-3, 1e6, 1e-6]


def factor_1024_ratios(facts: Facts) -> list[float]:
    return [1024.0, 1 / 1024]


def small_count(value: float) -> bool:
    """A whole number under SMALL_COUNT (GPUs, replicas, layers): no digits to keep."""
    return value < SMALL_COUNT and value == round(value)


def _near_miss_ratios(facts: Facts) -> list[float]:
    off = abs(facts.ratio - 1)
    if off > NEAR_MISS or small_count(facts.truth):
        return []
    return [facts.ratio]


RULES: list[Rule] = [
    _prefix_ratio_rule("kb_vs_kib", 1),
    _prefix_ratio_rule("mb_vs_mib", 2),
    _prefix_ratio_rule("gb_vs_gib", 3),
    _prefix_ratio_rule("tb_vs_tib", 4),
    Rule("kv_factor_2", kv_factor_2_ratios, lambda facts, found: sentence("kv_factor_2")),
    Rule("mla_factor_2", mla_factor_2_ratios, lambda facts, found: sentence("mla_factor_2")),
    Rule("attention_heads", attention_heads_ratios, _attention_heads),
    Rule("tp_missing", tp_missing_ratios, _tp_missing),
    Rule(
        "tp_wrong", tp_wrong_ratios, lambda facts, found: tp_wrong_sentence(facts.number("tp") or 0)
    ),
    Rule(
        "gpus_missing",
        gpus_missing_ratios,
        lambda facts, found: gpus_missing_sentence(facts.number("gpus") or 0),
    ),
    Rule("dtype_bytes", dtype_bytes_ratios, _dtype_bytes),
    # After the context rules: a ratio of 8 is more often 64 heads / 8 KV heads or TP 8.
    Rule("bits_vs_bytes", bits_vs_bytes_ratios, lambda facts, found: bits_vs_bytes_sentence(found)),
    Rule("factor_1000", _factor_1000_ratios, lambda facts, found: factor_1000_sentence(found)),
    Rule("factor_1024", factor_1024_ratios, lambda facts, found: factor_1024_sentence(found)),
    Rule(
        "near_miss",
        _near_miss_ratios,
        lambda facts, found: near_miss_sentence(found, facts.variant.rel_tolerance),
    ),
]
RULE_BY_CODE = {rule.code: rule for rule in RULES}
