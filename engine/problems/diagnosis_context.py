"""What the checker reads to diagnose an answer: a variant's context (engine/problems/diagnosis_facts.py).

The generator's ``alternatives`` are the answers known mistakes give, computed with the wrong
input (a pool without the weights subtracted, GiB read as GB, ...); ``exponents`` say how the
answer scales with KV bytes per token and TP when no catalog default describes it.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import sympy

from kvdrill.engine.capacity.catalog import get_dtype
from kvdrill.engine.capacity.formulas import SYMBOLS, evaluate, inputs_from, solve_for
from kvdrill.engine.capacity.units import format_number
from kvdrill.engine.problems.display import Draw, display_unit, show
from kvdrill.engine.problems.drawing import evaluate_custom, solve_custom, solve_or_nan
from kvdrill.engine.problems.quantities import unit_factor
from kvdrill.engine.problems.template_types import Problem
from kvdrill.engine.problems.worked import (
    catalog_expr,
    earlier_steps,
    expr_names,
    whole_by_ceiling,
)
from kvdrill.i18n import _

# Formulas whose answer scales with the weights' precision (the rest: the KV cache's).
WEIGHT_FORMULAS = {"weight_bytes", "decode_floor_time", "weight_quant_gain_tokens"}


def _alternatives(problem: Problem, draw: Draw) -> tuple[dict[str, float], dict[str, str]]:
    """Mistake code -> the answer that mistake gives (in the asked unit), for the checker, and
    the sentences of codes the checker does not know by itself.

    A whole count rounded up by the formula, rounded down instead; and, for a formula asked
    forwards, the inputs the learner had to derive or read: a pool computed without subtracting
    the weights or without the utilization, an MoE's weights counted from its active
    parameters, 4-bit weights without their scales, and a size the prompt shows in GiB read as
    GB (or the other way round). Every value that differs from the answer is kept, also one
    inside the tolerance: the generator then checks that variant exactly (or draws again).
    """
    found: dict[str, float] = {}
    factor = unit_factor(problem.unit)
    rounded_down = _rounded_down(problem, draw)
    if rounded_down is not None:
        found["rounded_down"] = rounded_down / factor
    if problem.solving:
        return found, {}
    expr = problem.custom.expr if problem.custom else catalog_expr(draw.formula)
    chain = expr_names(expr) | {name for name, _ in earlier_steps(problem, draw, expr)}
    chain |= {problem.output}
    values = draw.values
    changes: dict[str, dict[str, float]] = {}
    sentences: dict[str, str] = {}
    if "kv_pool_bytes" in chain and "kv_pool_bytes" not in draw.overrides:
        overhead = values.get("overhead_bytes", 0.0)
        changes["weights_not_subtracted"] = {
            "kv_pool_bytes": values["gpu_mem"] * values["gpu_util"] - overhead
        }
        changes["utilization_missing"] = {
            "kv_pool_bytes": values["gpu_mem"] - values["weight_bytes"] / values["tp"] - overhead
        }
    weights_derived = "weight_bytes" in chain and "weight_bytes" not in draw.overrides
    if (
        weights_derived
        and "model_params" not in draw.overrides
        and values.get("active_params", 0) < values.get("model_params", 0)
    ):
        changes["active_vs_total"] = {"model_params": values["active_params"]}
    if "active_vs_total" in changes and problem.output == "weight_bytes":
        sentences["active_vs_total"] = _(
            "Memory holds every expert: count all {total} B parameters, not the {active} B "
            "active ones."
        ).format(
            total=format_number(values["model_params"] / 1e9, 3),
            active=format_number(values["active_params"] / 1e9, 3),
        )
    if weights_derived and values.get("scale_bits", 0) > 0 and "scale_bits" not in draw.overrides:
        changes["scales_missing"] = {"scale_bits": 0.0}
    for name in sorted(chain & (set(draw.overrides) | shown_names(problem, draw))):
        if name == problem.output or name not in values:
            continue
        shown = display_unit(problem, draw, name, values[name])
        if shown in _GB_SIBLINGS:
            misread = _GB_SIBLINGS[shown]
            code = f"{shown.lower()}_read_as_{misread.lower()}"
            if code in changes:
                continue  # two inputs in the same unit: name the first
            changes[code] = {name: values[name] * unit_factor(misread) / unit_factor(shown)}
            sentences[code] = _("You read {value} as {unit}: 1 GiB = 2³⁰ B = 1.074 GB.").format(
                value=show(problem, draw, name), unit=misread
            )
    for code, change in changes.items():
        wrong = _recomputed(problem, draw, change)
        if math.isfinite(wrong) and wrong > 0 and abs(wrong / draw.answer - 1) > 1e-9:
            found[code] = wrong / factor
    return found, {code: sentences[code] for code in found if code in sentences}


def _recomputed(problem: Problem, draw: Draw, change: dict[str, float]) -> float:
    """The answer with some inputs changed, derived quantities worked out again."""
    redone = inputs_from(
        draw.model, draw.gpu, draw.dtype, draw.kv_dtype, draw.tp, {**draw.overrides, **change}
    )
    if problem.custom is None:
        return solve_or_nan(lambda: evaluate(draw.formula, redone))
    declared = {k: v for k, v in draw.values.items() if k not in SYMBOLS}
    return evaluate_custom(problem, {**redone, **declared, **change})


def shown_names(problem: Problem, draw: Draw) -> set[str]:
    """The quantities the prompt prints: its placeholders, or every input for a default prompt."""
    if problem.prompt.strip():
        return {name for name, _ in problem.placeholders}
    expr = problem.custom.expr if problem.custom else catalog_expr(draw.formula)
    listed = {*draw.picks, *problem.given, *expr_names(expr)}  # as the default prompt lists them
    if problem.solving:
        listed.add(problem.output)
    return listed - {problem.ask}


@lru_cache(maxsize=256)
def _floored(expr: sympy.Expr) -> tuple[tuple[str, ...], Any]:
    """The expression rounded down where it rounds up, compiled; the names of its arguments."""
    floored = expr.replace(sympy.ceiling, sympy.floor)
    symbols = sorted(floored.free_symbols, key=lambda s: s.name)
    return tuple(s.name for s in symbols), sympy.lambdify(symbols, floored, modules="math")


def _rounded_down(problem: Problem, draw: Draw) -> float | None:
    """A count rounded up by the formula, worked out rounding down instead (None if the same)."""
    if problem.solving:
        return None
    expr = problem.custom.expr if problem.custom else catalog_expr(draw.formula)
    if not whole_by_ceiling(expr):
        return None
    names, floored = _floored(expr)
    try:
        wrong = float(floored(*(draw.values[n] for n in names)))
    except (KeyError, ZeroDivisionError, OverflowError, ValueError):
        return None
    if expr.is_Add and not 0 < wrong < draw.answer:
        wrong = draw.answer - 1  # the ceiling is exact here: one short is what the + 1 forgot
    return wrong if 0 < wrong < draw.answer else None


# A size shown in one of these may be read in the other: unit shown -> unit misread.
_GB_SIBLINGS = {"GiB": "GB", "GB": "GiB"}


# Inputs whose scaling the checker's ratio rules use: checker name -> symbol.
_SCALING_INPUTS = {"kv": "kv_bytes_per_token", "tp": "tp", "gpus": "gpus"}


def _measured_exponents(problem: Problem, draw: Draw) -> dict[str, float]:
    """answer ~ input**e for KV bytes per token, TP and GPUs, measured by doubling each."""
    exponents: dict[str, float] = {}
    inputs = problem.custom.inputs if problem.custom else expr_names(catalog_expr(draw.formula))
    for key, symbol in _SCALING_INPUTS.items():
        if symbol not in inputs or symbol == problem.ask or symbol not in draw.values:
            continue
        changed = {**draw.values, symbol: draw.values[symbol] * 2}
        changed.pop(problem.ask, None)
        if problem.custom is None and problem.solving:
            other = solve_or_nan(lambda v=changed: solve_for(draw.formula, problem.ask, v))
        elif problem.custom is None:
            other = solve_or_nan(lambda v=changed: evaluate(draw.formula, v))
        elif problem.solving:
            other = solve_or_nan(lambda v=changed: solve_custom(problem, v))
        else:
            other = evaluate_custom(problem, changed)
        if not (math.isfinite(other) and other > 0):
            continue
        exponent = math.log2(other / draw.answer)
        nearest = round(exponent * 2) / 2
        if nearest and abs(exponent - nearest) < 0.05:
            exponents[key] = nearest
    return exponents


def checker_context(
    problem: Problem, draw: Draw, formula_text: str, worked: str
) -> dict[str, object]:
    """What the checker reads to diagnose an answer (engine/problems/diagnosis_facts.py)."""

    values = draw.values
    base = draw.formula.removesuffix("_mla").removesuffix("_swa")
    weights = base in WEIGHT_FORMULAS
    dtype = draw.dtype if weights else draw.kv_dtype
    context: dict[str, object] = {
        "formula": draw.formula,
        "formula_text": formula_text,
        "worked_solution": worked,
        "ask": problem.ask,
        "dtype": dtype.upper(),
        "dtype_bytes": get_dtype(dtype).bytes,
        "mla": draw.model is not None and draw.model.attention_kind == "mla",
    }
    for name in ("heads", "kv_heads", "tp", "gpus"):
        if name in values:
            context[name] = values[name]
    # A prompt that states the KV bytes per token leaves no K-and-V or head-count slip to make.
    shown = shown_names(problem, draw)
    context["kv_stated"] = "kv_bytes_per_token" in shown or "kv_bytes_per_token" in draw.overrides
    # Attention heads can be mistaken for KV heads only by a learner who has the head count: a
    # prompt that gives the KV heads and not the attention heads leaves none to misuse.
    context["heads_possible"] = not context["kv_stated"] and (
        "heads" in shown or "kv_heads" not in shown
    )
    expr = problem.custom.expr if problem.custom else catalog_expr(draw.formula)
    if not problem.solving and expr.func == sympy.floor:
        context["whole_count"] = True  # requests or sessions that fit: never round up
    if problem.solving or problem.custom is not None:
        # The checker's default exponents describe a catalog formula's output; here the
        # answer's own scaling is measured instead (rules for unmeasured inputs stay off).
        context["exponents"] = _measured_exponents(problem, draw)
    alternatives, sentences = _alternatives(problem, draw)
    if alternatives:
        context["alternatives"] = alternatives
    if sentences:
        context["mistake_sentences"] = sentences
    if draw.model is not None:
        context["model"] = draw.model.id
    if draw.gpu is not None:
        context["gpu"] = draw.gpu.id
    return context
