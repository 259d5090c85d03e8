"""Checking a typed answer against a generated variant, and naming the mistake when it is wrong.

Public API (pure functions, no I/O):

- ``check_answer(variant, typed, seconds=None) -> Verdict``
- ``give_up(variant) -> Verdict``
- ``diagnose(variant, answer: TypedAnswer) -> Diagnosis | None`` (the rule table, for tests/tools)
- ``is_accepted(variant, answer: TypedAnswer) -> bool``
- ``RULES`` — the ordered table of diagnosis rules; add a rule by appending a ``Rule``.

Acceptance. An answer is correct when it is within ``variant.rel_tolerance`` (default 1 %) of
the truth, or, for templates with a tighter tolerance, when it *is* the truth rounded to the
answer's own significant figures with at least three of them (``449k`` for 448,921 tokens,
``128 KiB`` for 131,072 B; trailing zeros of an integer do not count, so ``450k`` has two).
Three figures bound that rounding to 0.5 %, below every unit trap. Unit traps are never accepted,
whatever the tolerance: when the number typed is the truth in the *sibling* of the unit typed
(``128 kB`` for 128 KiB, ``64 GB`` for 64 GiB, ``1 Gb`` for 1 GB), or when a size or bandwidth
is off by a decimal/binary ratio 1.024**k (k = 1..4: 1.024, 1.049, 1.074, 1.1) to within 0.5 %
(``68.72 GiB`` for 64 GiB under a 10 % tolerance), the answer is wrong. A whole count (context
``whole_count``: requests or sessions that fit, a floor) is never accepted above the truth: 301
requests for 299 is one request that does not fit, whatever the tolerance.

SM-2 quality (engine/study/sm2.py: q >= 3 advances the schedule, q < 3 resets it):

- 5 correct, answered within ``QUICK_SECONDS`` (60 s);
- 4 correct (slower, or no time given);
- 3 is never given by the checker: an answer that is not accepted must not advance the schedule,
  so a unit slip (right number, trap unit, e.g. GB for GiB) is ``correct=False`` with quality 2;
- 2 wrong, but a rule below recognised the mistake (a unit slip or another diagnosed near miss);
- 1 wrong, nothing recognised;
- 0 gave up (``give_up``).
An unreadable answer (garbage, unknown unit, wrong dimension) gives ``unreadable=True`` and
quality 0; the session does not grade it and the learner types again. Its expected_text and
worked_solution are filled like any verdict's, but are not meant to be shown.

Diagnosis names the mistake in one sentence with a stable code; the first match wins:

1. a unit slip (right number, sibling unit): ``kb_vs_kib``, ``mb_vs_mib``, ``gb_vs_gib``,
   ``tb_vs_tib`` (also PB/PiB), ``bits_vs_bytes``;
2. ``rounded_up``: a whole count answered above the truth, by one or within the tolerance;
   ``bare_base_unit``: a number typed without a unit that is the answer in bytes, seconds or
   bytes per second (``141000000000`` for 141 GB);
3. the generator's ``alternatives`` (context, below), in their order;
4. ``RULES`` in order: ``kb_vs_kib``, ``mb_vs_mib``, ``gb_vs_gib``, ``tb_vs_tib`` (off by
   1.024**k), ``kv_factor_2``, ``mla_factor_2``, ``attention_heads``, ``tp_missing``,
   ``tp_wrong``, ``gpus_missing``, ``dtype_bytes``, ``bits_vs_bytes`` (x8, after the rules
   that use the context: 64 heads / 8 KV heads is also 8), ``factor_1000`` (also 10**6),
   ``factor_1024``, and last ``near_miss`` (within 5 %, outside the tolerance; never on a
   whole answer under SMALL_COUNT, which has no digits to keep).

A diagnosis names only a mistake the prompt makes possible: with ``kv_stated`` (the prompt
gives the KV bytes per token) no K-and-V, MLA or head-count rule applies.

A mistake matches when the answer (in the variant's unit) is within ``DIAGNOSIS_TOLERANCE`` (1 %,
widened to the rounding of the digits typed, at most 2 %) of the value the mistake produces.
The 1.024**k rules need an answer precise to 1 % (``140 kB`` is too coarse to tell them apart).
To add a rule, append ``Rule(code, match)`` where ``match(facts) -> sentence | None``.

Variant.context keys read here (all optional; the generator fills what it knows):

- ``formula`` (str): catalog formula name, e.g. "kv_bytes_per_token" (``_mla``/``_swa`` variants
  too); picks default exponents (below) and, with a ``_mla`` name, sets ``mla``.
- ``formula_text`` (str): the formula for the generic worked solution, e.g.
  "2 x layers x kv_heads x head_dim x dtype_bytes".
- ``worked_solution`` (str, Markdown): used as is for every verdict when present.
- ``inputs`` (dict[str, float]): the formula's symbol values (engine/capacity/formulas.py names); any
  number below not found at the top level of the context is looked up here.
- ``heads``, ``kv_heads`` (int): attention heads and KV heads of the model.
- ``tp`` (int): tensor-parallel size. For KV formulas, KV heads replicate once TP exceeds them,
  so TP divides by kv_heads / max(1, kv_heads // tp), as in engine/capacity/formulas.py.
- ``dtype`` (str, e.g. "BF16") and ``dtype_bytes`` (float): the precision whose bytes per value
  the answer scales with (the KV dtype for KV questions, the weight dtype for weights); without
  ``dtype_bytes``, ``kv_dtype_bytes`` (KV formulas) or ``weight_bits`` / 8 is used.
- ``mla`` (bool): the model caches one latent per layer (no factor 2).
- ``kv_stated`` (bool): the prompt states the KV bytes per token (see above).
- ``heads_possible`` (bool): False when the prompt gives the KV heads but not the attention
  heads, so no head count can be misused.
- ``gpus`` (number): GPUs the answer is summed over, for ``gpus_missing``.
- ``whole_count`` (bool): the answer is a floor (requests or sessions that fit); see above.
- ``exponents`` (dict[str, float]): how the answer scales with ``kv`` (KV bytes per token),
  ``tp``, ``gpus`` and ``dtype_bytes``: answer ~ x**e. Each key given overrides ``DEFAULT_EXPONENTS``
  for the formula (e.g. kv_bytes_per_token: kv 1, tp -1, dtype_bytes 1; kv_pool_tokens: kv -1);
  0 disables the rules for that input; a formula without defaults has none.
- ``alternatives`` (dict[str, float]): mistake code -> the value, in ``variant.unit``, that
  mistake produces (computed by the generator with the wrong formula or input). Preferred over
  the ratio rules because it is exact for formulas that are not simple products. Codes with a
  sentence in ``SENTENCES``: the rule codes above and ``tp_replication``, ``block_rounding``,
  ``weights_not_subtracted``, ``utilization_missing``, ``sliding_window``, ``active_vs_total``,
  ``rounded_up``, ``scales_missing``, ``gib_read_as_gb``, ``gb_read_as_gib``.
- ``mistake_sentences`` (dict[str, str]): sentences for alternative codes ``SENTENCES`` does
  not know (or to override one); an unknown code without one gets a generic sentence.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from kvdrill.engine.capacity.units import (
    AnswerError,
    convert,
    format_number,
    format_quantity,
    registry,
    unit_scale,
)
from kvdrill.engine.problems.answers import TypedAnswer, read_typed_answer
from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.settings import DEFAULT_ANSWER_SECONDS
from kvdrill.engine.wording import plural
from kvdrill.i18n import _

# "Quick" is within the default answer time: the one-minute answer the cards are written for.
QUICK_SECONDS = float(DEFAULT_ANSWER_SECONDS)
QUALITY_QUICK = Grade.EASY
QUALITY_CORRECT = Grade.GOOD
QUALITY_DIAGNOSED = Grade.WRONG_BUT_FAMILIAR
QUALITY_WRONG = Grade.WRONG
QUALITY_GAVE_UP = Grade.BLACKOUT
QUALITY_UNREADABLE = Grade.BLACKOUT  # not graded: the session asks again

MIN_SIGNIFICANT_FIGURES = 3
TRAP_TOLERANCE = 0.005  # the typed number equals the truth in the sibling unit
DIAGNOSIS_TOLERANCE = 0.01
MAX_DIAGNOSIS_TOLERANCE = 0.02
NEAR_MISS = 0.05
SMALL_COUNT = 100  # a whole answer below this (GPUs, replicas) has no digits to keep

_KV_FORMULAS = {"kv_bytes_per_token", "kv_bytes_per_sequence"}

DEFAULT_EXPONENTS: dict[str, dict[str, float]] = {
    "kv_bytes_per_token": {"kv": 1, "tp": -1, "dtype_bytes": 1},
    "kv_bytes_per_sequence": {"kv": 1, "tp": -1, "dtype_bytes": 1},
    "weight_bytes": {"dtype_bytes": 1},
    "decode_floor_time": {"dtype_bytes": 1, "tp": -1},
    "kv_pool_tokens": {"kv": -1},
    "max_concurrency": {"kv": -1},
    "requests_that_fit": {"kv": -1},
    "sessions_that_fit": {"kv": -1},
    "extra_kv_tokens": {"kv": -1},
    "prefill_time_floor": {"tp": -1},
    "weight_quant_gain_tokens": {"kv": -1, "tp": -1},
    "cost_per_million_tokens": {"gpus": 1},
}

# Decimal/binary pairs, one per prefix step: (code, decimal unit, binary unit).
PREFIX_PAIRS = [
    ("kb_vs_kib", "kB", "KiB"),
    ("mb_vs_mib", "MB", "MiB"),
    ("gb_vs_gib", "GB", "GiB"),
    ("tb_vs_tib", "TB", "TiB"),
    ("tb_vs_tib", "PB", "PiB"),
]
_BIT_OF_BYTE = {
    "B": "b",
    "kB": "kb",
    "MB": "Mb",
    "GB": "Gb",
    "TB": "Tb",
    "KiB": "Kib",
    "MiB": "Mib",
    "GiB": "Gib",
    "TiB": "Tib",
}


def _sibling_table() -> dict[str, list[tuple[str, str]]]:
    """unit symbol -> [(sibling symbol, mistake code)] for every trap pair."""
    table: dict[str, list[tuple[str, str]]] = {}

    def add(a: str, b: str, code: str) -> None:
        table.setdefault(a, []).append((b, code))
        table.setdefault(b, []).append((a, code))

    for code, decimal, binary in PREFIX_PAIRS:
        add(decimal, binary, code)
        if decimal in _BIT_OF_BYTE and binary in _BIT_OF_BYTE:
            add(_BIT_OF_BYTE[decimal], _BIT_OF_BYTE[binary], code)
    for byte_unit, bit_unit in _BIT_OF_BYTE.items():
        add(byte_unit, bit_unit, "bits_vs_bytes")
    return table


_SIBLINGS = _sibling_table()

_UNIT_DEFINITIONS = {
    "kb_vs_kib": "1 KiB = 1024 B, 1 kB = 1000 B",
    "mb_vs_mib": "1 MiB = 1024² B = 1.049 MB",
    "gb_vs_gib": "1 GiB = 2³⁰ B = 1.074 GB",
    "tb_vs_tib": "1 TiB = 2⁴⁰ B = 1.1 TB",
    "bits_vs_bytes": "1 B = 8 bits",
}


# Sentences by code, for generator-supplied alternatives and the rules that need no numbers.
SENTENCES = {
    "kv_factor_2": "You left out the factor 2 for K and V: every layer caches a key and a value.",
    "mla_factor_2": "MLA caches one compressed latent per layer, so there is no factor 2 for K and V.",
    "attention_heads": "You used the attention heads; the KV cache holds only the KV heads.",
    "tp_missing": "You left out tensor parallelism: the work is split over the TP GPUs.",
    "tp_wrong": "You applied the tensor-parallel size the wrong way.",
    "tp_replication": "With TP above the KV head count, each GPU keeps a whole KV head.",
    "dtype_bytes": "You used the wrong number of bytes per value for the precision.",
    "block_rounding": "You left out the rounding to whole KV blocks.",
    "weights_not_subtracted": "You forgot to subtract the weights from the GPU memory.",
    "utilization_missing": "You left out the GPU memory utilization (gpu_memory_utilization).",
    "sliding_window": "Sliding-window layers keep only the window's tokens, not the whole context.",
    "active_vs_total": "You mixed up active and total parameters of the MoE model.",
    "rounded_up": "You rounded up: a request that does not fit is not served.",
    "rounded_down": (
        "You are one short: a part still needs a whole one (a partly filled block, a fraction "
        "of a GPU or replica), and keep whatever the question adds on top, such as a spare."
    ),
    "gpus_missing": "You left out the GPU count: the answer is for all the GPUs, not one.",
    "scales_missing": (
        "You left out the quantization scales: a 4-bit checkpoint stores them on top of the "
        "4 bits (one 16-bit scale per 128 weights is 0.125 bit more per weight)."
    ),
    "gib_read_as_gb": "You read a size given in GiB as GB: 1 GiB = 2³⁰ B = 1.074 GB.",
    "gb_read_as_gib": "You read a size given in GB as GiB: 1 GiB = 2³⁰ B = 1.074 GB.",
}

# Names of the base units a bare number may have been worked out in, by dimension.
_BASE_UNIT_NAMES = {
    frozenset({("[information]", 1)}): "bytes",
    frozenset({("[time]", 1)}): "seconds",
    frozenset({("[information]", 1), ("[time]", -1)}): "bytes per second",
}


@dataclass(frozen=True)
class Diagnosis:
    code: str
    sentence: str


@dataclass(frozen=True)
class Facts:
    """What every rule may look at: the answer, the truth, their ratio and the context."""

    variant: Variant
    answer: TypedAnswer
    value: float  # the answer in variant.unit
    truth: float
    ratio: float  # value / truth
    tolerance: float  # for matching a mistake's value
    precise: bool  # the digits typed pin the value down to DIAGNOSIS_TOLERANCE
    context: Mapping[str, object]
    information: bool  # the answer is a size or a bandwidth

    def number(self, key: str) -> float | None:
        """A number from the context, or from its ``inputs`` (the formula's symbol values)."""
        raw = self.context.get(key)
        inputs = self.context.get("inputs")
        if raw is None and isinstance(inputs, Mapping):
            raw = inputs.get(key)
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            return None
        return float(raw)

    def bytes_per_value(self) -> float | None:
        """``dtype_bytes``, else the formula's own precision symbol (kv_dtype_bytes, weight_bits)."""
        given = self.number("dtype_bytes")
        if given is not None:
            return given
        if _formula_base(self.context) in _KV_FORMULAS:
            return self.number("kv_dtype_bytes")
        bits = self.number("weight_bits")
        return None if bits is None else bits / 8

    def tp_split(self) -> float | None:
        """The factor TP divides the answer by: tp, or for KV with KV heads replicated once TP
        exceeds them (kv_heads // tp floored at 1), kv_heads / max(1, kv_heads // tp)."""
        tp, kv_heads = self.number("tp"), self.number("kv_heads")
        if tp is None or tp <= 1:
            return None
        if kv_heads and _formula_base(self.context) in _KV_FORMULAS:
            split = kv_heads / max(1.0, kv_heads // tp)
            return split if split > 1 else None
        return tp

    def kv_worked_out(self) -> float:
        """How the answer scales with the KV bytes per token when the learner derives them; 0
        when the prompt states them (then no K-and-V or head-count slip is possible)."""
        return 0.0 if self.context.get("kv_stated") is True else self.exponent("kv")

    def exponent(self, name: str) -> float:
        given = self.context.get("exponents")
        if isinstance(given, Mapping) and name in given:
            value = given[name]
            return float(value) if isinstance(value, int | float) else 0.0
        return DEFAULT_EXPONENTS.get(_formula_base(self.context), {}).get(name, 0.0)

    def is_mla(self) -> bool:
        formula = self.context.get("formula")
        return bool(self.context.get("mla")) or (
            isinstance(formula, str) and formula.endswith("_mla")
        )

    def near(self, ratio: float) -> bool:
        return ratio > 0 and abs(self.ratio / ratio - 1) <= self.tolerance


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


def _formula_base(context: Mapping[str, object]) -> str:
    formula = context.get("formula")
    if not isinstance(formula, str):
        return ""
    for suffix in ("_mla", "_swa"):
        if formula.endswith(suffix):
            return formula[: -len(suffix)]
    return formula


def _times(ratio: float) -> str:
    """'8 times too large' / '2 times too small' for a ratio of answer to truth."""
    if ratio >= 1:
        return f"{format_number(ratio, 3)} times too large"
    return f"{format_number(1 / ratio, 3)} times too small"


def _prefix_ratio_rule(code: str, step: int) -> Rule:
    ratio = 1.024**step

    def ratios(facts: Facts) -> list[float]:
        return [ratio, 1 / ratio] if facts.information else []

    def sentence(facts: Facts, found: float) -> str:
        return (
            f"Your answer is off by {format_number(ratio, 4)}, the gap between decimal and "
            f"binary units ({_UNIT_DEFINITIONS[code]})."
        )

    return Rule(code, ratios, sentence, needs_precision=True)


def bits_vs_bytes_ratios(facts: Facts) -> list[float]:
    return [8.0, 1 / 8] if facts.information else []


def _bits_vs_bytes(facts: Facts, found: float) -> str:
    return f"Your answer is {_times(found)}: you mixed bits and bytes (1 B = 8 bits)."


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
    return (
        f"You used the {format_number(facts.number('heads') or 0)} attention heads; the KV cache "
        f"holds only the {format_number(facts.number('kv_heads') or 0)} KV heads."
    )


def tp_missing_ratios(facts: Facts) -> list[float]:
    k, split = facts.exponent("tp"), facts.tp_split()
    return [split ** (-k)] if k and split else []


def _tp_missing(facts: Facts, found: float) -> str:
    tp = facts.number("tp") or facts.tp_split() or 1
    return f"You left out tensor parallelism: the work is split over {format_number(tp)} GPUs."


def tp_wrong_ratios(facts: Facts) -> list[float]:
    k, split, tp = facts.exponent("tp"), facts.tp_split(), facts.number("tp")
    if not (k and split and tp):
        return []
    # Divided twice, multiplied instead of divided, or divided by tp where KV heads replicate.
    return [r for r in dict.fromkeys((split**k, split ** (-2 * k), (tp / split) ** k)) if r != 1]


def _tp_wrong(facts: Facts, found: float) -> str:
    return (
        f"You applied the tensor-parallel size {format_number(facts.number('tp') or 0)} the "
        "wrong way (twice, multiplied instead of divided, or past the KV head count)."
    )


def gpus_missing_ratios(facts: Facts) -> list[float]:
    k, gpus = facts.exponent("gpus"), facts.number("gpus")
    return [gpus ** (-k)] if k and gpus and gpus > 1 else []


def _gpus_missing(facts: Facts, found: float) -> str:
    gpus = format_number(facts.number("gpus") or 0)
    return f"You left out the GPU count: the answer is for all {gpus} GPUs, not one."


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
    dtype = facts.context.get("dtype")
    named = f"{dtype} takes" if isinstance(dtype, str) and dtype else "the precision takes"
    size = facts.bytes_per_value() or 0
    return (
        f"You used {plural(wrong, 'byte', format_number(wrong))} per value; "
        f"{named} {format_number(size)}."
    )


def _factor_1000_ratios(facts: Facts) -> list[float]:
    return [1e3, 1e-3, 1e6, 1e-6]


def _factor_1000(facts: Facts, found: float) -> str:
    return f"Your answer is {_times(found)}: check the prefixes (k, M, G; ms against s)."


def factor_1024_ratios(facts: Facts) -> list[float]:
    return [1024.0, 1 / 1024]


def _factor_1024(facts: Facts, found: float) -> str:
    return f"Your answer is {_times(found)}: one binary prefix step (KiB, MiB, GiB) is off."


def small_count(value: float) -> bool:
    """A whole number under SMALL_COUNT (GPUs, replicas, layers): no digits to keep."""
    return value < SMALL_COUNT and value == round(value)


def _near_miss_ratios(facts: Facts) -> list[float]:
    off = abs(facts.ratio - 1)
    if off > NEAR_MISS or small_count(facts.truth):
        return []
    return [facts.ratio]


def _near_miss(facts: Facts, found: float) -> str:
    return (
        f"Your answer is {format_number(abs(found - 1) * 100, 2)}% off, outside the "
        f"{format_number(facts.variant.rel_tolerance * 100, 2)}% tolerance: keep more digits "
        "until the last step."
    )


RULES: list[Rule] = [
    _prefix_ratio_rule("kb_vs_kib", 1),
    _prefix_ratio_rule("mb_vs_mib", 2),
    _prefix_ratio_rule("gb_vs_gib", 3),
    _prefix_ratio_rule("tb_vs_tib", 4),
    Rule("kv_factor_2", kv_factor_2_ratios, lambda facts, _: SENTENCES["kv_factor_2"]),
    Rule("mla_factor_2", mla_factor_2_ratios, lambda facts, _: SENTENCES["mla_factor_2"]),
    Rule("attention_heads", attention_heads_ratios, _attention_heads),
    Rule("tp_missing", tp_missing_ratios, _tp_missing),
    Rule("tp_wrong", tp_wrong_ratios, _tp_wrong),
    Rule("gpus_missing", gpus_missing_ratios, _gpus_missing),
    Rule("dtype_bytes", dtype_bytes_ratios, _dtype_bytes),
    # After the context rules: a ratio of 8 is more often 64 heads / 8 KV heads or TP 8.
    Rule("bits_vs_bytes", bits_vs_bytes_ratios, _bits_vs_bytes),
    Rule("factor_1000", _factor_1000_ratios, _factor_1000),
    Rule("factor_1024", factor_1024_ratios, _factor_1024),
    Rule("near_miss", _near_miss_ratios, _near_miss),
]
RULE_BY_CODE = {rule.code: rule for rule in RULES}


# --- the answer's own unit: slips where the number is right and the unit a trap -------------


@functools.lru_cache(maxsize=256)
def _symbol(unit_word: str) -> str:
    """'gigabytes' -> 'GB': the symbol pint knows a typed unit word by."""
    return registry().get_symbol(unit_word)


def _unit_slip(answer: TypedAnswer, variant: Variant) -> Diagnosis | None:
    """The typed number is the truth in the sibling of the typed unit: right number, trap unit."""
    if not answer.unit_typed:
        return None
    numerator, _slash, denominator = answer.unit.partition("/")
    symbol = _symbol(numerator)
    for sibling, code in _SIBLINGS.get(symbol, []):
        sibling_unit = sibling + (f"/{denominator}" if denominator else "")
        truth_there = convert(variant.expected_value, variant.unit, sibling_unit)
        if truth_there and abs(answer.value / truth_there - 1) <= TRAP_TOLERANCE:
            typed_unit = symbol + (f"/{denominator}" if denominator else "")
            truth_typed = convert(variant.expected_value, variant.unit, answer.unit)
            return Diagnosis(
                code,
                f"Your number is the answer in {sibling_unit}, not {typed_unit}: "
                f"in {typed_unit} it is {format_number(truth_typed)} "
                f"({_UNIT_DEFINITIONS[code]}).",
            )
    return None


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
            sentence = custom.get(code) or SENTENCES.get(str(code))
            if sentence is None:
                sentence = f"Your answer matches a known mistake ({code})."
            return Diagnosis(str(code), str(sentence))
    return None


def _bare_base_unit(facts: Facts) -> Diagnosis | None:
    """A number typed without a unit that is the answer in bytes (or seconds): 141e9 for 141 GB."""
    if facts.answer.unit_typed:
        return None
    factor, dimension = unit_scale(facts.variant.unit)
    base = _BASE_UNIT_NAMES.get(dimension)
    if base is None or factor == 1 or not facts.near(factor):
        return None
    return Diagnosis(
        "bare_base_unit",
        f"Your number is the answer in {base}, but it was read in {facts.variant.unit}: "
        f"write {expected_text(facts.variant)}, or put the unit after the number.",
    )


def _whole_count(variant: Variant) -> bool:
    return variant.context.get("whole_count") is True


def _rounded_up(facts: Facts) -> bool:
    """A whole count answered above the truth: by one, or by no more than the tolerance."""
    if not _whole_count(facts.variant) or facts.value <= facts.truth:
        return False
    excess = facts.value - facts.truth
    return excess <= 1 + 1e-9 or excess <= facts.variant.rel_tolerance * facts.truth


def _rounding(answer: TypedAnswer) -> float:
    """Half a unit in the last digit typed, relative: 3.4x stands for 3.35..3.45 (1.5 %)."""
    value = abs(answer.value)
    if value == 0:
        return 0.0
    last_digit = 10 ** (math.floor(math.log10(value)) - answer.significant_figures + 1)
    return 0.5 * last_digit / value


def diagnose(variant: Variant, answer: TypedAnswer) -> Diagnosis | None:
    """The first rule that explains a wrong answer, or None."""
    slip = _unit_slip(answer, variant)
    # An 8x answer typed in bytes reads as "the bit count, labelled bytes", unless the variant
    # has 8x as many attention heads as KV heads: then the heads are the likelier mistake.
    if slip is not None and slip.code != "bits_vs_bytes":
        return slip
    truth = variant.expected_value
    value = answer.value_in(variant.unit)
    if truth == 0 or value == 0:
        return slip
    _scale, dimension = unit_scale(variant.unit)
    facts = Facts(
        variant=variant,
        answer=answer,
        value=value,
        truth=truth,
        ratio=value / truth,
        tolerance=min(max(DIAGNOSIS_TOLERANCE, _rounding(answer)), MAX_DIAGNOSIS_TOLERANCE),
        precise=_rounding(answer) <= DIAGNOSIS_TOLERANCE,
        context=variant.context,
        information="[information]" in dict(dimension),
    )
    if _rounded_up(facts):
        return Diagnosis("rounded_up", SENTENCES["rounded_up"])
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
        sentence = rule.match(facts)
        if sentence is not None:
            return Diagnosis(rule.code, sentence)
    return None


# --- acceptance -----------------------------------------------------------------------------


def _round_significant(value: float, figures: int) -> float:
    if value == 0:
        return 0.0
    digits = figures - 1 - math.floor(math.log10(abs(value)))
    return round(value, digits)


_PREFIX_RATIOS = [1.024**k for k in (1, 2, 3, 4)] + [1.024**-k for k in (1, 2, 3, 4)]
_CLOSEST_PREFIX_GAP = min(abs(r - 1) for r in _PREFIX_RATIOS)  # 1 - 1/1.024 = 2.3 %


def _prefix_ratio_trap(variant: Variant, answer: TypedAnswer, ratio: float) -> bool:
    """A precise size or bandwidth off by a decimal/binary ratio: a trap under a loose tolerance."""
    if variant.rel_tolerance < _CLOSEST_PREFIX_GAP - TRAP_TOLERANCE:
        return False  # the tolerance alone already rejects every such ratio
    if "[information]" not in dict(unit_scale(variant.unit)[1]):
        return False
    if _rounding(answer) > TRAP_TOLERANCE:
        return False
    return any(abs(ratio / trap - 1) <= TRAP_TOLERANCE for trap in _PREFIX_RATIOS)


def is_accepted(variant: Variant, answer: TypedAnswer) -> bool:
    """Within tolerance, or the truth rounded to the answer's (>= 3) significant figures."""
    if _unit_slip(answer, variant) is not None:
        return False
    truth = variant.expected_value
    value = answer.value_in(variant.unit)
    if truth == 0:
        return value == 0
    if _whole_count(variant) and value > truth:
        return False  # one more request than fits is not served
    if _prefix_ratio_trap(variant, answer, value / truth):
        return False
    if abs(value - truth) <= variant.rel_tolerance * abs(truth):
        return True
    if answer.significant_figures < MIN_SIGNIFICANT_FIGURES:
        return False
    truth_typed = convert(truth, variant.unit, answer.unit)
    rounded = _round_significant(truth_typed, answer.significant_figures)
    return rounded != 0 and abs(answer.value / rounded - 1) <= 1e-9


# --- verdicts -------------------------------------------------------------------------------


def expected_text(variant: Variant) -> str:
    return format_quantity(variant.expected_value, variant.unit)


def worked_solution(variant: Variant, shown: str | None = None) -> str:
    """The generator's worked solution, or a generic one in the variant's numbers."""
    given = variant.context.get("worked_solution")
    if isinstance(given, str) and given.strip():
        return given
    lines = []
    formula_text = variant.context.get("formula_text")
    formula = variant.context.get("formula")
    if isinstance(formula_text, str) and formula_text:
        lines.append(f"Formula: `{formula_text}`")
    elif isinstance(formula, str) and formula:
        lines.append(f"Formula: `{formula}`")
    if variant.params:
        inputs = ", ".join(f"{name} = {value}" for name, value in variant.params.items())
        lines.append(f"Inputs: {inputs}")
    lines.append(f"Expected: **{shown or expected_text(variant)}**")
    return "\n\n".join(lines)


def _verdict(variant: Variant, shown: str, **fields: object) -> Verdict:
    return Verdict(
        expected_text=shown,
        worked_solution=worked_solution(variant, shown),
        **fields,  # type: ignore[arg-type]
    )


def check_answer(
    variant: Variant, typed: str, seconds: float | None = None, *, by_learner: bool = True
) -> Verdict:
    """Read ``typed`` in the variant's unit, accept or diagnose it, and grade it for SM-2;
    ``by_learner``: see ``read_typed_answer``."""
    shown = expected_text(variant)
    try:
        answer = read_typed_answer(typed, variant.unit, by_learner=by_learner)
    except AnswerError as error:
        return _verdict(
            variant,
            shown,
            correct=False,
            quality=QUALITY_UNREADABLE,
            headline=str(error),
            unreadable=True,
        )
    if is_accepted(variant, answer):
        quick = seconds is not None and seconds <= QUICK_SECONDS
        return _verdict(
            variant,
            shown,
            correct=True,
            quality=QUALITY_QUICK if quick else QUALITY_CORRECT,
            headline=_("Correct: {answer}").format(answer=shown),
        )
    found = diagnose(variant, answer)
    return _verdict(
        variant,
        shown,
        correct=False,
        quality=QUALITY_WRONG if found is None else QUALITY_DIAGNOSED,
        headline=_("Not quite: expected {answer}").format(answer=shown),
        diagnosis=None if found is None else found.sentence,
        mistake=None if found is None else found.code,
    )


def give_up(variant: Variant) -> Verdict:
    """The learner gave up: quality 0, with the answer and the worked solution."""
    shown = expected_text(variant)
    return _verdict(
        variant,
        shown,
        correct=False,
        quality=QUALITY_GAVE_UP,
        headline=_("The answer: {answer}").format(answer=shown),
    )
