"""The formula catalog: named sympy expressions for LLM serving memory and capacity math.

Every value is in SI base units of the project's unit registry: bytes, seconds, tokens, bytes/s;
counts (parameters, layers, requests) are plain numbers. Symbol units are pint strings of
engine/capacity/units.py ("byte", "token", "s", "byte/s", "dimensionless", ...).

Public API (names are stable; the generator, the checker, claim checks and ``kvdrill calc`` use it):

- ``SYMBOLS: dict[str, Symbol]`` — every symbol: ``.name``, ``.unit``, ``.description``,
  ``.integer``.  ``ALIASES: dict[str, str]`` — short names accepted for them (``pool`` ->
  ``kv_pool_bytes``); ``canonical_symbol(name) -> str`` resolves one or raises ``UserError``.
- ``FORMULAS: dict[str, Formula]`` — ``.name``, ``.output`` (the quantity it computes; variants
  such as ``kv_bytes_per_token_mla`` share the output ``kv_bytes_per_token``), ``.unit``,
  ``.description``, ``.expr`` (sympy), ``.symbols`` (input names, in SYMBOLS order), ``.text``.
- ``QUANTITIES: tuple[str, ...]`` — the distinct outputs.
- ``variant_for(quantity, model=None, inputs=None) -> str`` — the formula name for a model:
  the ``_mla`` variant for MLA models, ``_mixed`` when ``unquantized_bits`` is among the inputs
  (weights of an FP8/INT8 checkpoint with 16-bit embeddings), ``_swa`` for sliding-window
  models, else the plain one.
- ``evaluate(name, inputs: dict[str, float]) -> float`` — through the plain-Python function
  generated from the expression (formula_code.py, defined in forward.py: no sympy needed).
- ``solve_for(name, symbol, known: dict[str, float]) -> float`` — solve the formula for any one
  input; ``known`` holds the output and the other inputs. floor/ceil (block rounding) are dropped
  and max(1, x) read as x before solving, so the answer is the continuous one: round it as the
  question needs. Formulas sympy cannot invert are solved numerically (they are monotone).
- ``inputs_from(model=None, gpu=None, dtype="bf16", kv_dtype=None, tp=1, overrides=None)
  -> dict[str, float]`` — symbol values from catalog entries and precisions, plus every derived
  quantity (attention_params, model_params, active_params, unquantized_params, weight_bytes,
  kv_bytes_per_token, kv_pool_bytes, kv_pool_tokens, ridge_point, prefill_flops) that its
  inputs allow. ``overrides`` win over both.
- ``missing_inputs(name, inputs, model=None) -> list[str]`` — base symbols still needed.
- ``default_kv_dtype(dtype) -> str`` — the KV dtype used when none is named ("auto").
- ``explain(name, inputs) -> str`` — the formula, the numbers substituted and the result.
- ``humanize(value, unit) -> str`` — "128 KiB", "42.1 ms", "449k" for display.

Formulas (output in brackets when a variant):
  attention_params, attention_params_mla [attention_params], model_params, active_params,
  unquantized_params, weight_bytes, weight_bytes_mixed [weight_bytes], kv_bytes_per_token, kv_bytes_per_token_mla [kv_bytes_per_token],
  kv_bytes_per_sequence, kv_bytes_per_sequence_swa [kv_bytes_per_sequence], decode_floor_time,
  kv_pool_bytes, kv_pool_tokens, max_concurrency, max_concurrency_swa [max_concurrency],
  requests_that_fit, extra_kv_tokens,
  sessions_that_fit, kv_dtype_gain_tokens, weight_quant_gain_tokens, prefill_flops,
  decode_flops_per_token, ridge_point, prefill_time_floor, critical_batch,
  speculative_expected_tokens, littles_law_concurrency, cost_per_million_tokens,
  tp_allreduce_bytes_per_token.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

from kvdrill.engine.capacity.catalog import close_matches
from kvdrill.engine.capacity.forward import (
    ALIASES,
    DEFAULTS,
    QUANTITIES,
    SYMBOLS,
    Symbol,
    canonical_symbol,
    default_kv_dtype,
    evaluate,
    formula_name,
    humanize,
    inputs_from,
    missing_inputs,
    variant_for,
)
from kvdrill.engine.capacity.units import format_number
from kvdrill.engine.errors import UserError
from kvdrill.i18n import N_, _

# One sympy Symbol per name; positivity lets solve() discard negative roots.
_S: dict[str, sympy.Symbol] = {
    s.name: sympy.Symbol(s.name, nonnegative=True)
    if s.can_be_zero
    else sympy.Symbol(s.name, positive=True)
    for s in SYMBOLS.values()
}
_ORDER = {name: index for index, name in enumerate(SYMBOLS)}


@dataclass(frozen=True)
class Formula:
    name: str
    output: str
    expr: sympy.Expr
    description: str

    @property
    def unit(self) -> str:
        return SYMBOLS[self.output].unit

    @cached_property
    def symbols(self) -> tuple[str, ...]:
        names = {s.name for s in self.expr.free_symbols}
        return tuple(sorted(names, key=_ORDER.__getitem__))

    @property
    def text(self) -> str:
        return f"{self.output} = {pretty_formula(ReadableNumbers().doprint(self.expr))}"


# Products, quotients and sums kept in the order the definition states them, so ``--explain``
# shows "gpus x price_per_gpu_hour / (tokens_per_second x 3600) x 1000000", not sympy's canonical
# rearrangement. Evaluation and solving are unaffected.
def _term(value: sympy.Expr | int) -> sympy.Expr:
    return sympy.Integer(value) if isinstance(value, int) else value


def _as_written(*factors: sympy.Expr | int) -> sympy.Expr:
    return sympy.Mul(*map(_term, factors), evaluate=False)


def _over(numerator: sympy.Expr | int, denominator: sympy.Expr | int) -> sympy.Expr:
    inverse = sympy.Pow(_term(denominator), -1, evaluate=False)
    return sympy.Mul(_term(numerator), inverse, evaluate=False)


def _sum(*terms: sympy.Expr | int) -> sympy.Expr:
    return sympy.Add(*map(_term, terms), evaluate=False)


# Built unevaluated: evaluating them asks sympy's assumptions whether each floor, ceiling, max
# and min simplifies (none of these does), most of the time building the catalog took; the
# expressions are the same (tests/test_formulas.py).
def _floor(value: sympy.Expr) -> sympy.Expr:
    return sympy.floor(value, evaluate=False)


def _ceiling(value: sympy.Expr) -> sympy.Expr:
    return sympy.ceiling(value, evaluate=False)


def _max(*values: sympy.Expr | int) -> sympy.Expr:
    return sympy.Max(*values, evaluate=False)


def _min(*values: sympy.Expr | int) -> sympy.Expr:
    return sympy.Min(*values, evaluate=False)


def _formulas() -> dict[str, Formula]:
    g = _S  # short alias for the expressions below
    kv_heads_per_gpu = _max(1, _floor(g["kv_heads"] / g["tp"]))
    moe_layers = g["layers"] - g["dense_layers"]
    gated_mlp = 3 * g["hidden"]  # gate, up and down projections: 3 x hidden x size
    embeddings = g["vocab"] * g["hidden"] * (2 - g["tied"])
    # Two RMSNorm weight vectors per layer and one final norm.
    common = embeddings + g["hidden"] + g["layers"] * (g["attention_params"] + 2 * g["hidden"])
    dense_mlps = g["dense_layers"] * gated_mlp * g["intermediate"]
    router = g["experts"] * g["hidden"]
    # vLLM V1's hybrid KV cache groups layers by kind; one block holds a block of tokens for
    # every layer of a group, and a group has as many layers as the larger kind (Mistral 7B:
    # one group of 32 windowed layers; Gemma 2 9B: 21 global and 21 windowed).
    layer_group = _max(g["sliding_layers"], g["layers"] - g["sliding_layers"])
    layer_group_bytes_per_token = g["kv_bytes_per_token"] / g["layers"] * layer_group
    window_tokens = _min(g["window"] - 1 + g["max_num_batched_tokens"], g["max_model_len"])

    def moe_params(routed: sympy.Symbol) -> sympy.Expr:
        experts = routed + g["shared_experts"]
        return moe_layers * (experts * gated_mlp * g["expert_intermediate"] + router)

    table = [
        (
            "attention_params",
            "attention_params",
            2 * g["hidden"] * g["heads"] * g["head_dim"]
            + 2 * g["hidden"] * g["kv_heads"] * g["head_dim"]
            + g["qkv_bias"] * (g["heads"] + 2 * g["kv_heads"]) * g["head_dim"],
            N_(
                "Q and O are hidden x heads*head_dim, K and V hidden x kv_heads*head_dim (+ biases)."
            ),
        ),
        (
            "attention_params_mla",
            "attention_params",
            g["hidden"] * g["q_lora_rank"]
            + g["q_lora_rank"] * g["heads"] * (g["qk_nope_dim"] + g["rope_dim"])
            + g["hidden"] * (g["kv_lora_rank"] + g["rope_dim"])
            + g["kv_lora_rank"] * g["heads"] * (g["qk_nope_dim"] + g["v_head_dim"])
            + g["heads"] * g["v_head_dim"] * g["hidden"]
            + g["q_lora_rank"]
            + g["kv_lora_rank"],
            N_("MLA: query and KV down/up projections through their latents, output projection."),
        ),
        (
            "model_params",
            "model_params",
            common + dense_mlps + moe_params(g["experts"]),
            N_("Embeddings (x2 unless tied) + per layer attention, norms, dense or MoE gated MLP."),
        ),
        (
            "active_params",
            "active_params",
            common + dense_mlps + moe_params(g["active_experts"]),
            N_("Parameters one token uses: only its active (and shared) experts count."),
        ),
        (
            "unquantized_params",
            "unquantized_params",
            embeddings + g["hidden"] + g["layers"] * 2 * g["hidden"],
            N_(
                "Embeddings and LM head (once if tied) + the norm weights of every layer and the last."
            ),
        ),
        (
            "weight_bytes",
            "weight_bytes",
            g["model_params"] * (g["weight_bits"] + g["scale_bits"]) / 8,
            N_("Parameters x bits per weight (plus scale overhead) / 8."),
        ),
        (
            "weight_bytes_mixed",
            "weight_bytes",
            (
                (g["model_params"] - g["unquantized_params"]) * (g["weight_bits"] + g["scale_bits"])
                + g["unquantized_params"] * g["unquantized_bits"]
            )
            / 8,
            N_(
                "Quantized linear layers at weight bits, embeddings/LM head/norms at unquantized_bits."
            ),
        ),
        (
            "kv_bytes_per_token",
            "kv_bytes_per_token",
            2 * g["layers"] * kv_heads_per_gpu * g["head_dim"] * g["kv_dtype_bytes"],
            N_(
                "K and V, every layer, every KV head on this GPU (max(1, kv_heads // tp)), x bytes."
            ),
        ),
        (
            "kv_bytes_per_token_mla",
            "kv_bytes_per_token",
            g["layers"] * (g["kv_lora_rank"] + g["rope_dim"]) * g["kv_dtype_bytes"],
            N_(
                "MLA: one latent (kv_lora_rank + rope dim) per layer, no factor 2, same on every GPU."
            ),
        ),
        (
            "kv_bytes_per_sequence",
            "kv_bytes_per_sequence",
            g["kv_bytes_per_token"] * g["seq_tokens"],
            N_("KV bytes per token x tokens in the sequence."),
        ),
        (
            "kv_bytes_per_sequence_swa",
            "kv_bytes_per_sequence",
            2
            * kv_heads_per_gpu
            * g["head_dim"]
            * g["kv_dtype_bytes"]
            * (
                (g["layers"] - g["sliding_layers"]) * g["seq_tokens"]
                + g["sliding_layers"] * _min(g["seq_tokens"], g["window"])
            ),
            N_("Sliding-window layers keep at most `window` tokens; global layers keep them all."),
        ),
        (
            "decode_floor_time",
            "decode_floor_time",
            g["weight_bytes"] / (g["tp"] * g["hbm_bandwidth"]),
            N_("Each decode step reads every weight once: weight bytes / (TP GPUs x bandwidth)."),
            # For an MoE model at batch 1 only the active experts are read: set weight_bytes.
        ),
        (
            "kv_pool_bytes",
            "kv_pool_bytes",
            g["gpu_mem"] * g["gpu_util"] - g["weight_bytes"] / g["tp"] - g["overhead_bytes"],
            N_(
                "Per GPU: memory x utilization - its share of the weights - activation/other overhead."
            ),
        ),
        (
            "kv_pool_tokens",
            "kv_pool_tokens",
            g["kv_pool_bytes"] / g["kv_bytes_per_token"],
            N_("Pool bytes / KV bytes per token."),
        ),
        (
            "max_concurrency",
            "max_concurrency",
            _floor(g["kv_pool_bytes"] / (g["block_size"] * g["kv_bytes_per_token"]))
            / _ceiling(g["max_model_len"] / g["block_size"]),
            N_("vLLM start-up figure: pool blocks / blocks one max_model_len request needs."),
        ),
        (
            "max_concurrency_swa",
            "max_concurrency",
            _floor(g["kv_pool_bytes"] / (g["block_size"] * layer_group_bytes_per_token))
            / _ceiling(
                (
                    (g["layers"] - g["sliding_layers"])
                    * _ceiling(g["max_model_len"] / g["block_size"])
                    + g["sliding_layers"] * (_ceiling(window_tokens / g["block_size"]) + 1)
                )
                / layer_group
            ),
            N_(
                "vLLM V1 with sliding windows: blocks of one layer group / blocks one request needs, "
                "a windowed layer holding only window - 1 + max_num_batched_tokens tokens (+1 block)."
            ),
        ),
        (
            "requests_that_fit",
            "requests_that_fit",
            _floor(g["kv_pool_tokens"] / g["request_tokens"]),
            N_("Pool tokens // final tokens per request (round down: more means preemptions)."),
        ),
        (
            "extra_kv_tokens",
            "extra_kv_tokens",
            (g["new_gpu_util"] - g["gpu_util"]) * g["gpu_mem"] / g["kv_bytes_per_token"],
            N_("Change of utilization x GPU memory / KV bytes per token."),
        ),
        (
            "sessions_that_fit",
            "sessions_that_fit",
            _floor(
                (g["tp"] * (g["gpu_mem"] * g["gpu_util"] - g["overhead_bytes"]) - g["weight_bytes"])
                / (g["tp"] * g["kv_bytes_per_token"] * g["seq_tokens"])
            ),
            N_("Node memory left after the weights // KV of one full session (all tp GPUs)."),
        ),
        (
            "kv_dtype_gain_tokens",
            "kv_dtype_gain_tokens",
            g["kv_pool_bytes"]
            / g["kv_bytes_per_token"]
            * (g["kv_dtype_bytes"] / g["new_kv_dtype_bytes"] - 1),
            N_("A smaller KV dtype multiplies the pool's tokens (BF16 -> FP8 doubles them)."),
        ),
        (
            "weight_quant_gain_tokens",
            "weight_quant_gain_tokens",
            g["weight_bytes"]
            * (1 - g["new_weight_bits"] / g["weight_bits"])
            / (g["tp"] * g["kv_bytes_per_token"]),
            N_("Quantizing weights adds a fixed amount: bytes freed per GPU / KV bytes per token."),
        ),
        (
            "prefill_flops",
            "prefill_flops",
            2 * g["active_params"] * g["prompt_tokens"],
            N_(
                "2 FLOPs (multiply, add) per active parameter per prompt token; attention left out."
            ),
        ),
        (
            "decode_flops_per_token",
            "decode_flops_per_token",
            2 * g["active_params"],
            N_("2 FLOPs per active parameter for each generated token; attention left out."),
        ),
        (
            "ridge_point",
            "ridge_point",
            g["peak_flops"] / g["hbm_bandwidth"],
            N_(
                "Dense peak FLOP/s / HBM bandwidth: below this many FLOP per byte, memory bounds it."
            ),
        ),
        (
            "prefill_time_floor",
            "prefill_time_floor",
            g["prefill_flops"] / (g["tp"] * g["peak_flops"]),
            N_("Prefill is compute-bound: its FLOPs / (TP GPUs x dense peak FLOP/s)."),
        ),
        (
            "critical_batch",
            "critical_batch",
            _over(
                _as_written(g["ridge_point"], _over(_sum(g["weight_bits"], g["scale_bits"]), 8)), 2
            ),
            N_(
                "Each weight byte read serves 2 FLOPs per sequence: ridge x bytes per parameter / 2."
            ),
        ),
        (
            "speculative_expected_tokens",
            "speculative_expected_tokens",
            (1 - g["acceptance_rate"] ** (g["draft_tokens"] + 1)) / (1 - g["acceptance_rate"]),
            N_("Accepted drafts stop at the first rejection, plus the target's own token."),
        ),
        (
            "littles_law_concurrency",
            "littles_law_concurrency",
            g["arrival_rate"] * g["latency"],
            N_("Little's law: requests in flight = arrival rate x mean time in the system."),
        ),
        (
            "cost_per_million_tokens",
            "cost_per_million_tokens",
            _as_written(
                g["gpus"],
                g["price_per_gpu_hour"],
                _over(1, _as_written(g["tokens_per_second"], 3600)),
                10**6,
            ),
            N_("Dollars per hour of all GPUs / tokens per hour, x one million."),
        ),
        (
            "tp_allreduce_bytes_per_token",
            "tp_allreduce_bytes_per_token",
            _as_written(
                2,
                g["layers"],
                2,
                _over(_sum(g["tp"], -1), g["tp"]),
                g["hidden"],
                g["activation_bytes"],
            ),
            N_("Ring all-reduce, 2 per layer (attention, MLP): 2 (tp-1)/tp x hidden x bytes each."),
        ),
    ]
    return {name: Formula(name, output, expr, desc) for name, output, expr, desc in table}


FORMULAS: dict[str, Formula] = _formulas()


def get_formula(name: str) -> Formula:
    return FORMULAS[formula_name(name)]


def _relax(expr: sympy.Expr) -> sympy.Expr:
    """The continuous form of a block-rounded formula: floor/ceil dropped, max(1, x) read as x."""

    def drop_constants(*args: sympy.Expr) -> sympy.Expr:
        variable = [a for a in args if not a.is_number]
        return variable[0] if len(variable) == 1 else sympy.Max(*args)

    return (
        expr.replace(sympy.floor, lambda a: a)
        .replace(sympy.ceiling, lambda a: a)
        .replace(sympy.Max, drop_constants)
    )


@cache
def _inverse(name: str, symbol: str) -> tuple[tuple[str, ...], tuple[Callable[..., Any], ...]]:
    """Closed-form solutions of ``output = expr`` for ``symbol``, compiled; empty if none."""
    formula = FORMULAS[name]
    target = sympy.Symbol(f"{formula.output}__target", positive=True)
    others = tuple(s for s in formula.symbols if s != symbol)
    try:
        roots = sympy.solve(sympy.Eq(target, _relax(formula.expr)), _S[symbol])
    except (NotImplementedError, ValueError, TypeError):
        roots = []
    args = [target, *(_S[s] for s in others)]
    compiled = tuple(sympy.lambdify(args, root, modules="math") for root in roots)
    return (formula.output, *others), compiled


def solve_for(name: str, symbol: str, known: Mapping[str, float]) -> float:
    """Solve formula ``name`` for one input ``symbol`` given its output and the other inputs."""
    formula = get_formula(name)
    symbol = canonical_symbol(symbol)
    if symbol not in formula.symbols:
        raise UserError(
            _("{formula} has no input {symbol}{hint}").format(
                formula=formula.name,
                symbol=repr(symbol),
                hint=close_matches(symbol, list(formula.symbols)),
            )
        )
    arg_names, roots = _inverse(formula.name, symbol)
    missing = [s for s in arg_names if s not in known]
    if missing:
        raise UserError(
            _("solving {formula} for {symbol} needs {missing}").format(
                formula=formula.name, symbol=symbol, missing=", ".join(missing)
            )
        )
    args = [known[s] for s in arg_names]
    for root in roots:
        try:
            value = complex(root(*args))
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            continue
        if abs(value.imag) < 1e-9 * max(1.0, abs(value.real)) and value.real >= 0:
            return value.real
    return _bisect(formula, symbol, known)


def _bisect(formula: Formula, symbol: str, known: Mapping[str, float]) -> float:
    """Numeric inverse for formulas sympy cannot invert (all of them are monotone in each input)."""
    target = known[formula.output]
    values = dict(known)

    def gap(x: float) -> float:
        values[symbol] = x
        return evaluate(formula.name, values) - target

    def computable(x: float) -> bool:
        # A removable singularity (speculative tokens at acceptance_rate 1) is stepped over.
        try:
            gap(x)
        except UserError:
            return False
        return True

    points = [10.0**k for k in range(-6, 19)]
    points = [x for x in points if computable(x)]
    for lo, hi in zip(points, points[1:], strict=False):
        if gap(lo) == 0:
            return lo
        if (gap(lo) < 0) != (gap(hi) < 0):
            break
    else:
        raise UserError(
            _("no value of {symbol} gives {output} = {target}").format(
                symbol=symbol, output=formula.output, target=f"{target:g}"
            )
        )
    for _step in range(200):
        mid = (lo + hi) / 2
        if not computable(mid):
            mid = math.nextafter(mid, hi)
        if (gap(mid) < 0) == (gap(lo) < 0):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# Figures in explanations and worked solutions, one format: 131,072 and 58,884,473,651, never
# 131072 or 5.88845e+10.
EXPLAINED_FIGURES = 6


class ReadableNumbers(StrPrinter):
    """Prints a formula's literal numbers as ``format_number`` does (1,000,000, 3,600)."""

    def __init__(self) -> None:
        super().__init__({"order": "none"})

    def _print_Integer(self, expr: sympy.Integer) -> str:
        return format_number(int(expr))

    def _print_Float(self, expr: sympy.Float) -> str:
        return format_number(float(expr), EXPLAINED_FIGURES)


class _Substituting(ReadableNumbers):
    def __init__(self, values: Mapping[str, float]):
        super().__init__()
        self.values = values

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        if expr.name not in self.values:
            return expr.name
        return format_number(self.values[expr.name], EXPLAINED_FIGURES)


def pretty_formula(text: str) -> str:
    """A printed formula as people write it: ^, x, ceil, max, min."""
    text = text.replace("**", "^").replace("*", " x ").replace("ceiling", "ceil")
    return text.replace("Max(", "max(").replace("Min(", "min(")


def explain(name: str, inputs: Mapping[str, float]) -> str:
    """Three lines: the formula, the same with numbers substituted, and the result."""
    formula = get_formula(name)
    value = evaluate(formula.name, inputs)
    substituted = pretty_formula(_Substituting(inputs).doprint(formula.expr))
    return "\n".join(
        [
            formula.text,
            f"{' ' * len(formula.output)} = {substituted}",
            f"{' ' * len(formula.output)} = {humanize(value, formula.unit)}",
        ]
    )


__all__ = [
    "ALIASES",
    "DEFAULTS",
    "FORMULAS",
    "QUANTITIES",
    "ReadableNumbers",
    "SYMBOLS",
    "Formula",
    "Symbol",
    "canonical_symbol",
    "evaluate",
    "explain",
    "get_formula",
    "humanize",
    "default_kv_dtype",
    "inputs_from",
    "missing_inputs",
    "solve_for",
    "pretty_formula",
    "variant_for",
]
