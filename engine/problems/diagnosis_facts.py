"""What a diagnosis rule may look at: the answer, the truth, their ratio and the variant's context.

A mistake matches when the answer (in the variant's unit) is within ``DIAGNOSIS_TOLERANCE`` (1 %,
widened to the rounding of the digits typed, at most ``MAX_DIAGNOSIS_TOLERANCE``, 2 %) of the
value the mistake produces.

Variant.context keys read by the checker (all optional; the generator fills what it knows,
engine/problems/diagnosis_context.py):

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
- ``kv_stated`` (bool): the prompt states the KV bytes per token: no K-and-V, MLA or head-count
  rule applies.
- ``heads_possible`` (bool): False when the prompt gives the KV heads but not the attention
  heads, so no head count can be misused.
- ``gpus`` (number): GPUs the answer is summed over, for ``gpus_missing``.
- ``whole_count`` (bool): the answer is a floor (requests or sessions that fit); see
  engine/problems/acceptance.py.
- ``exponents`` (dict[str, float]): how the answer scales with ``kv`` (KV bytes per token),
  ``tp``, ``gpus`` and ``dtype_bytes``: answer ~ x**e. Each key given overrides ``DEFAULT_EXPONENTS``
  for the formula (e.g. kv_bytes_per_token: kv 1, tp -1, dtype_bytes 1; kv_pool_tokens: kv -1);
  0 disables the rules for that input; a formula without defaults has none.
- ``alternatives`` (dict[str, float]): mistake code -> the value, in ``variant.unit``, that
  mistake produces (computed by the generator with the wrong formula or input). Preferred over
  the ratio rules because it is exact for formulas that are not simple products. Codes with a
  sentence in ``SENTENCES`` (engine/problems/mistake_sentences.py): the rule codes and
  ``tp_replication``, ``block_rounding``, ``weights_not_subtracted``, ``utilization_missing``,
  ``sliding_window``, ``active_vs_total``, ``rounded_up``, ``scales_missing``,
  ``gib_read_as_gb``, ``gb_read_as_gib``.
- ``mistake_sentences`` (dict[str, str]): sentences for alternative codes ``SENTENCES`` does
  not know (or to override one); an unknown code without one gets a generic sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kvdrill.engine.capacity.units import unit_scale
from kvdrill.engine.problems.answers import TypedAnswer
from kvdrill.engine.problems.types import Variant

DIAGNOSIS_TOLERANCE = 0.01
MAX_DIAGNOSIS_TOLERANCE = 0.02

KV_FORMULAS = {"kv_bytes_per_token", "kv_bytes_per_sequence"}

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


def formula_base(context: Mapping[str, object]) -> str:
    """The context's formula name without its ``_mla``/``_swa`` suffix ('' when none)."""
    formula = context.get("formula")
    if not isinstance(formula, str):
        return ""
    for suffix in ("_mla", "_swa"):
        if formula.endswith(suffix):
            return formula[: -len(suffix)]
    return formula


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

    @classmethod
    def of(cls, variant: Variant, answer: TypedAnswer) -> Facts:
        """The facts of a (non-zero) answer to a variant with a non-zero truth."""
        truth = variant.expected_value
        value = answer.value_in(variant.unit)
        rounding = answer.rounding()
        return cls(
            variant=variant,
            answer=answer,
            value=value,
            truth=truth,
            ratio=value / truth,
            tolerance=min(max(DIAGNOSIS_TOLERANCE, rounding), MAX_DIAGNOSIS_TOLERANCE),
            precise=rounding <= DIAGNOSIS_TOLERANCE,
            context=variant.context,
            information="[information]" in dict(unit_scale(variant.unit)[1]),
        )

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
        if formula_base(self.context) in KV_FORMULAS:
            return self.number("kv_dtype_bytes")
        bits = self.number("weight_bits")
        return None if bits is None else bits / 8

    def tp_split(self) -> float | None:
        """The factor TP divides the answer by: tp, or for KV with KV heads replicated once TP
        exceeds them (kv_heads // tp floored at 1), kv_heads / max(1, kv_heads // tp)."""
        tp, kv_heads = self.number("tp"), self.number("kv_heads")
        if tp is None or tp <= 1:
            return None
        if kv_heads and formula_base(self.context) in KV_FORMULAS:
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
        return DEFAULT_EXPONENTS.get(formula_base(self.context), {}).get(name, 0.0)

    def is_mla(self) -> bool:
        formula = self.context.get("formula")
        return bool(self.context.get("mla")) or (
            isinstance(formula, str) and formula.endswith("_mla")
        )

    def near(self, ratio: float) -> bool:
        return ratio > 0 and abs(self.ratio / ratio - 1) <= self.tolerance
