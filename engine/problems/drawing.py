"""One draw of a template: its inputs from the catalog, its answer, and the rules it must meet.

Values are in base units (bytes, seconds, counts) throughout; a formula asked backwards is
solved for its input (closed form where sympy finds one, else numerically).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import sympy

from kvdrill.engine.capacity.formulas import (
    SYMBOLS,
    default_kv_dtype,
    evaluate,
    inputs_from,
    missing_inputs,
    solve_for,
    variant_for,
)
from kvdrill.engine.capacity.units import MAX_MAGNITUDE
from kvdrill.engine.errors import UserError
from kvdrill.engine.problems.display import Draw, as_shown
from kvdrill.engine.problems.quantities import Quantity, unit_factor
from kvdrill.engine.problems.template_types import DrawingError, Problem
from kvdrill.i18n import _

# Built-in constraints: no variant asks about a deployment vLLM would refuse to start.
_TP_RULE = "tp divides the attention and KV heads (as vLLM requires)"
_CONTEXT_RULE = "max_model_len within the model's context (as vLLM requires)"


def refused_by_vllm(problem: Problem, picks: Mapping[str, Any]) -> str | None:
    """The built-in rule these picks break, or None."""
    model = picks.get("model", problem.fixed.get("model"))
    if model is None:
        return None
    if model.tp_refusal(int(picks.get("tp", problem.fixed.get("tp", 1)))):
        return _TP_RULE
    length = picks.get("max_model_len", problem.given.get("max_model_len"))
    if isinstance(length, Quantity) and model.max_model_len_refusal(length.value):
        return _CONTEXT_RULE
    return None


def mixed_seed(template_id: str, seed: int) -> int:
    """One integer from the template id and the seed: stable across runs (no hash())."""
    return (zlib.crc32(template_id.encode("utf-8")) << 64) ^ (seed & (2**64 - 1))


# --- computing one draw ----------------------------------------------------------------------


def draw_inputs(problem: Problem, picks: Mapping[str, Any]) -> Draw:
    fixed = problem.fixed
    model = picks.get("model", fixed.get("model"))
    gpu = picks.get("gpu", fixed.get("gpu"))
    dtype = picks.get("dtype", fixed.get("dtype", "bf16"))
    kv_dtype = picks.get("kv_dtype", fixed.get("kv_dtype"))
    tp = picks.get("tp", fixed.get("tp", 1))
    catalog: dict[str, float] = {}
    declared: dict[str, float] = {}
    shown_units: dict[str, str] = {}
    for source in (problem.given, picks):
        for name, quantity in source.items():
            if not isinstance(quantity, Quantity):
                continue
            (catalog if name in SYMBOLS else declared)[name] = quantity.value
            if quantity.display_unit:
                shown_units[name] = quantity.display_unit
    values = inputs_from(model, gpu, dtype, kv_dtype, tp, catalog)
    values.update(declared)
    if kv_dtype is None:
        kv_dtype = default_kv_dtype(dtype)
    return Draw(
        dict(picks), model, gpu, dtype, kv_dtype, tp, values, shown_units, catalog, "custom"
    )


def compute_answer(problem: Problem, draw: Draw) -> None:
    """Compute the asked value into ``draw.answer`` (and the output, when solving)."""
    values = draw.values
    if problem.custom is None:
        name = variant_for(problem.catalog_formula or problem.output, draw.model, values)
        draw.formula = name
        if not problem.solving:
            _require(problem.output, missing_inputs(name, values, draw.model))
            draw.answer = evaluate(name, values)
            values[problem.output] = draw.answer
            return
        if problem.output not in problem.given and problem.output not in draw.picks:
            _require(problem.output, missing_inputs(name, values, draw.model))
            values[problem.output] = as_shown(problem, draw, problem.output, evaluate(name, values))
        known = {k: v for k, v in values.items() if k != problem.ask}
        draw.answer = solve_or_nan(lambda: solve_for(name, problem.ask, known))
        values[problem.ask] = draw.answer
        return
    custom = problem.custom
    if not problem.solving:
        draw.answer = evaluate_custom(problem, values)
        values[problem.output] = draw.answer
        return
    if problem.output not in problem.given and problem.output not in draw.picks:
        forward = evaluate_custom(problem, values)
        values[problem.output] = as_shown(problem, draw, problem.output, forward)
    draw.answer = solve_custom(problem, values)
    values[problem.ask] = draw.answer
    del custom


def _require(output: str, missing: list[str]) -> None:
    if missing:
        raise UserError(
            _("{output} needs {missing}: vary or give it (or pick a model/GPU)").format(
                output=output, missing=", ".join(missing)
            )
        )


def evaluate_custom(problem: Problem, values: Mapping[str, float]) -> float:
    custom = problem.custom
    assert custom is not None
    missing = [n for n in custom.inputs if n not in values]
    _require(custom.output, missing)
    try:
        return float(custom.compiled(*(values[n] for n in custom.inputs)))
    except (ZeroDivisionError, OverflowError, ValueError):
        return math.nan


def solve_or_nan(solve: Any) -> float:
    try:
        return float(solve())
    except (UserError, ZeroDivisionError, OverflowError, ValueError):
        return math.nan


@lru_cache(maxsize=256)
def _custom_inverse(expr: sympy.Expr, output: str, ask: str) -> tuple[tuple[str, ...], tuple]:
    """Closed-form roots of ``output = expr`` for ``ask``, compiled; names of their arguments."""
    target = sympy.Symbol(output, positive=True)
    unknown = next(s for s in expr.free_symbols if s.name == ask)
    relaxed = expr.replace(sympy.floor, lambda a: a).replace(sympy.ceiling, lambda a: a)
    try:
        roots = sympy.solve(sympy.Eq(target, relaxed), unknown)
    except (NotImplementedError, ValueError):
        roots = []
    others = sorted((s for s in expr.free_symbols if s.name != ask), key=lambda s: s.name)
    names = (output, *(s.name for s in others))
    compiled = tuple(sympy.lambdify([target, *others], root, modules="math") for root in roots)
    return names, compiled


def solve_custom(problem: Problem, values: Mapping[str, float]) -> float:
    custom = problem.custom
    assert custom is not None
    names, roots = _custom_inverse(custom.expr, custom.output, problem.ask)
    if not roots:
        raise DrawingError(
            _("cannot solve the formula for {ask}: ask for its output instead").format(
                ask=problem.ask
            ),
            "ask",
        )
    _require(problem.ask, [n for n in names if n not in values])
    for root in roots:
        try:
            value = complex(root(*(values[n] for n in names)))
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            continue
        if abs(value.imag) <= 1e-9 * max(1.0, abs(value.real)) and value.real > 0:
            return value.real
    return math.nan


def broken_constraint(problem: Problem, draw: Draw) -> str | None:
    """The first constraint this draw breaks (or 'a positive answer'), else None."""
    if not (math.isfinite(draw.answer) and draw.answer > 0):
        return _("a positive answer")
    if draw.answer / unit_factor(problem.unit) > MAX_MAGNITUDE:
        # The answer reader refuses numbers this large: no typed answer could ever be right.
        return _("an answer a learner can type (at most {most})").format(
            most=f"{MAX_MAGNITUDE:g} {problem.unit}".rstrip()
        )
    values = draw.values
    for condition in problem.conditions:
        missing = [n for n in condition.names if n not in values]
        if missing:
            raise DrawingError(
                _(
                    "constraint {constraint} uses {missing}, which this problem does not define"
                ).format(constraint=repr(condition.text), missing=", ".join(missing)),
                "constraints",
            )
        if not condition.test(*(values[n] for n in condition.names)):
            return condition.text
    return None
