"""Concrete questions from problem templates: ``make_variant(template, template_id, seed)``.

Deterministic: the only randomness is ``random.Random`` seeded from the template id and the seed,
and every choice is drawn in the template's own order, so the same id and seed give the same
variant on every run and machine (the review log stores both). A draw that breaks a constraint,
or gives an answer that is not a positive finite number a learner could type, is drawn again, at most
``MAX_ATTEMPTS`` times; then the template is declared unusable (``UserError``).

Values are in base units (bytes, seconds, counts) throughout, as in engine/capacity/formulas.py; the
expected value is converted to the asked unit at the end. Templates are compiled once and
cached; formulas are compiled (lambdify) once by engine/capacity/formulas.py or engine/problems/templates.py.
"""

from __future__ import annotations

import json
import math
import random
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

from kvdrill.engine.capacity.catalog import get_dtype
from kvdrill.engine.capacity.formulas import (
    FORMULAS,
    SYMBOLS,
    default_kv_dtype,
    evaluate,
    inputs_from,
    missing_inputs,
    solve_for,
    variant_for,
)
from kvdrill.engine.capacity.units import MAX_MAGNITUDE, format_number, format_quantity
from kvdrill.engine.errors import Located, UserError
from kvdrill.engine.problems.templates import (
    MAX_ATTEMPTS,
    VALIDATION_SEEDS,
    Problem,
    ProblemSpecError,
    Quantity,
    compile_problem,
    fill_placeholders,
    pint_unit,
    unit_dimension,
    unit_factor,
)
from kvdrill.engine.problems.types import Variant

DISPLAY_FIGURES = 4  # significant figures of numbers shown in a prompt

# How a quantity is shown when the template does not say.
DISPLAY_UNITS = {
    "gpu_mem": "GiB",  # the total vLLM logs (79.22 GiB on an H100), see gpus.yaml
    "weight_bytes": "GB",
    "kv_pool_bytes": "GiB",
    "overhead_bytes": "GiB",
    "kv_bytes_per_token": "KiB",
    "kv_bytes_per_sequence": "MiB",
    "hbm_bandwidth": "TB/s",
    "decode_floor_time": "ms",
    "kv_dtype_bytes": "B",
    "new_kv_dtype_bytes": "B",
    "peak_flops": "TFLOP/s",
    "prefill_flops": "TFLOP",
    "decode_flops_per_token": "GFLOP",
    "ridge_point": "FLOP/byte",
    "prefill_time_floor": "ms",
    "tp_allreduce_bytes_per_token": "MiB",
    "arrival_rate": "requests/s",
    "tokens_per_second": "tokens/s",
    "latency": "s",
}
_BINARY_UNITS = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
_WEIGHT_FORMULAS = {"weight_bytes", "decode_floor_time", "weight_quant_gain_tokens"}

_TEMPLATE_CACHE_SIZE = 512
_template_cache: dict[str, Problem] = {}
_identity_cache: dict[int, tuple[Mapping[str, Any], Any, Problem]] = {}


def make_variant(template: Mapping[str, Any], template_id: str, seed: int) -> Variant:
    """One variant of a problem block (its YAML mapping), the same for the same id and seed."""
    return draw_variant(compiled_template(template), template_id, seed)


def compiled_template(template: Mapping[str, Any]) -> Problem:
    """The compiled form of a template, cached by its content (and by identity, for speed)."""
    seen = _identity_cache.get(id(template))
    if seen is not None and seen[0] is template and seen[1] == template:
        return seen[2]
    key = json.dumps(template, sort_keys=True, default=str)
    problem = _template_cache.get(key)
    if problem is None:
        problem = compile_problem(template)
        if len(_template_cache) >= _TEMPLATE_CACHE_SIZE:
            _template_cache.clear()
            _identity_cache.clear()
        _template_cache[key] = problem
    # The copy detects a template edited in place; holding the object keeps its id unique.
    _identity_cache[id(template)] = (template, json.loads(key), problem)
    return problem


@dataclass
class _Draw:
    """The inputs of one attempt and everything computed from them."""

    picks: dict[str, Any]
    model: Any
    gpu: Any
    dtype: str
    kv_dtype: str
    tp: int
    values: dict[str, float]
    shown_units: dict[str, str]  # unit the author wrote for a value, where they wrote one
    overrides: dict[str, float]  # catalog symbols given or drawn (inputs_from's overrides)
    formula: str  # catalog formula variant, or "custom"
    answer: float = math.nan
    texts: dict[tuple[str, str | None], str] = field(default_factory=dict)  # show() memo


def draw_variant(problem: Problem, template_id: str, seed: int) -> Variant:
    """A variant of a compiled template; UserError when the template cannot give one."""
    rng = random.Random(_mixed_seed(template_id, seed))
    failed: dict[str, int] = {}
    for _ in range(MAX_ATTEMPTS):
        picks = {axis.name: axis.pick(rng.randrange(axis.size())) for axis in problem.axes}
        refused = _refused_by_vllm(problem, picks)
        if refused:
            failed[refused] = failed.get(refused, 0) + 1
            continue
        draw = _inputs(problem, picks)
        _answer(problem, draw)
        broken = _broken_constraint(problem, draw)
        if broken is None:
            return _variant(problem, template_id, seed, draw)
        failed[broken] = failed.get(broken, 0) + 1
    worst = max(failed, key=failed.__getitem__)
    raise UserError(
        f"no variant meets the constraints in {MAX_ATTEMPTS} draws "
        f"(failing most: {worst}); widen `vary` or relax the constraint"
    )


# Built-in constraints: no variant asks about a deployment vLLM would refuse to start.
_TP_RULE = "tp divides the attention and KV heads (as vLLM requires)"
_CONTEXT_RULE = "max_model_len within the model's context (as vLLM requires)"


def _refused_by_vllm(problem: Problem, picks: Mapping[str, Any]) -> str | None:
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


def _mixed_seed(template_id: str, seed: int) -> int:
    """One integer from the template id and the seed: stable across runs (no hash())."""
    return (zlib.crc32(template_id.encode("utf-8")) << 64) ^ (seed & (2**64 - 1))


# --- computing one draw ----------------------------------------------------------------------


def _inputs(problem: Problem, picks: Mapping[str, Any]) -> _Draw:
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
    return _Draw(
        dict(picks), model, gpu, dtype, kv_dtype, tp, values, shown_units, catalog, "custom"
    )


def _answer(problem: Problem, draw: _Draw) -> None:
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
            values[problem.output] = _as_shown(
                problem, draw, problem.output, evaluate(name, values)
            )
        known = {k: v for k, v in values.items() if k != problem.ask}
        draw.answer = _solve_or_nan(lambda: solve_for(name, problem.ask, known))
        values[problem.ask] = draw.answer
        return
    custom = problem.custom
    if not problem.solving:
        draw.answer = _evaluate_custom(problem, values)
        values[problem.output] = draw.answer
        return
    if problem.output not in problem.given and problem.output not in draw.picks:
        forward = _evaluate_custom(problem, values)
        values[problem.output] = _as_shown(problem, draw, problem.output, forward)
    draw.answer = _solve_custom(problem, values)
    values[problem.ask] = draw.answer
    del custom


def _require(output: str, missing: list[str]) -> None:
    if missing:
        raise UserError(
            f"{output} needs {', '.join(missing)}: vary or give it (or pick a model/GPU)"
        )


def _evaluate_custom(problem: Problem, values: Mapping[str, float]) -> float:
    custom = problem.custom
    assert custom is not None
    missing = [n for n in custom.inputs if n not in values]
    _require(custom.output, missing)
    try:
        return float(custom.compiled(*(values[n] for n in custom.inputs)))
    except (ZeroDivisionError, OverflowError, ValueError):
        return math.nan


def _solve_or_nan(solve: Any) -> float:
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


def _solve_custom(problem: Problem, values: Mapping[str, float]) -> float:
    custom = problem.custom
    assert custom is not None
    names, roots = _custom_inverse(custom.expr, custom.output, problem.ask)
    if not roots:
        raise UserError(f"cannot solve the formula for {problem.ask}: ask for its output instead")
    _require(problem.ask, [n for n in names if n not in values])
    for root in roots:
        try:
            value = complex(root(*(values[n] for n in names)))
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            continue
        if abs(value.imag) <= 1e-9 * max(1.0, abs(value.real)) and value.real > 0:
            return value.real
    return math.nan


def _broken_constraint(problem: Problem, draw: _Draw) -> str | None:
    """The first constraint this draw breaks (or 'a positive answer'), else None."""
    if not (math.isfinite(draw.answer) and draw.answer > 0):
        return "a positive answer"
    if draw.answer / unit_factor(problem.unit) > MAX_MAGNITUDE:
        # The answer reader refuses numbers this large: no typed answer could ever be right.
        return f"an answer a learner can type (at most {MAX_MAGNITUDE:g} {problem.unit})".rstrip()
    values = draw.values
    for condition in problem.conditions:
        missing = [n for n in condition.names if n not in values]
        if missing:
            raise UserError(
                f"constraint {condition.text!r} uses {', '.join(missing)}, "
                "which this problem does not define"
            )
        if not condition.test(*(values[n] for n in condition.names)):
            return condition.text
    return None


# --- display ---------------------------------------------------------------------------------


def _unit_of(problem: Problem, name: str) -> str:
    if problem.custom is not None and name in problem.custom.units:
        return problem.custom.units[name]
    return SYMBOLS[name].unit if name in SYMBOLS else ""


def _display_unit(problem: Problem, draw: _Draw, name: str, value: float) -> str:
    """The unit a value is shown in: as written by the author, by convention, or by size."""
    if name in draw.shown_units:
        return draw.shown_units[name]
    if name == problem.ask:
        return problem.unit
    if name in DISPLAY_UNITS:
        return DISPLAY_UNITS[name]
    unit = pint_unit(_unit_of(problem, name))
    if unit == "byte":
        return next((u for u, size in _BINARY_UNITS if abs(value) >= size), "B")
    if unit == "s":
        return "ms" if abs(value) < 1 else "s"
    if unit == "byte/s":
        return "TB/s"
    if problem.custom is not None and name in problem.custom.units and unit_dimension(unit):
        return unit
    return ""  # counts: tokens, requests, layers... shown as plain numbers


def show(problem: Problem, draw: _Draw, name: str, unit: str | None = None) -> str:
    """Display text of a value: '128 KiB', '80 GB', '1,800', '0.9'."""

    text = draw.texts.get((name, unit))
    if text is None:
        value = draw.values[name]
        shown_unit = unit if unit is not None else _display_unit(problem, draw, name, value)
        text = format_quantity(value / unit_factor(shown_unit), shown_unit, DISPLAY_FIGURES)
        draw.texts[(name, unit)] = text
    return text


def _as_shown(problem: Problem, draw: _Draw, name: str, value: float) -> float:
    """``value`` rounded as the prompt will show it, so the learner and the key agree."""

    unit = _display_unit(problem, draw, name, value)
    factor = unit_factor(unit)
    text = format_number(value / factor, DISPLAY_FIGURES).replace(",", "")
    try:
        return float(text) * factor
    except ValueError:
        return value


def _special(problem: Problem, draw: _Draw, name: str) -> str | None:
    if name == "model":
        if draw.model is not None:
            return draw.model.name
        return _synthetic_model(problem, draw)
    if name == "gpu":
        return draw.gpu.name if draw.gpu is not None else None
    if name == "dtype":
        return draw.dtype.upper()
    if name == "kv_dtype":
        return draw.kv_dtype.upper()
    if name == "unit":
        return problem.unit
    return None


_ARCHITECTURE_WORDS = (
    ("layers", "{} layers"),
    ("heads", "{} attention heads"),
    ("kv_heads", "{} KV heads"),
    ("head_dim", "head dimension {}"),
    ("hidden", "hidden size {}"),
)


def _synthetic_model(problem: Problem, draw: _Draw) -> str:
    parts = [
        words.format(format_number(draw.values[name]))
        for name, words in _ARCHITECTURE_WORDS
        if name in draw.values and (name in problem.synthetic_model or name in problem.given)
    ]
    return "a model with " + ", ".join(parts) if parts else "a model"


def _placeholder_texts(problem: Problem, draw: _Draw) -> dict[tuple[str, str | None], str]:
    texts: dict[tuple[str, str | None], str] = {}
    for name, unit in problem.placeholders:
        text = _special(problem, draw, name)
        if text is None:
            if name not in draw.values:
                raise UserError(f"placeholder {{{name}}} has no value in this problem")
            text = show(problem, draw, name, unit)
        texts[(name, unit)] = text
    return texts


# --- worked solution -------------------------------------------------------------------------

_MARK = "\x00"


class _MarkedPrinter(StrPrinter):
    """Prints an expression with each symbol as a marker, filled in per variant."""

    def __init__(self) -> None:
        super().__init__({"order": "none"})

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        return f"{_MARK}{expr.name}{_MARK}"

    def _print_Mul(self, expr: sympy.Mul) -> str:
        # Factors in the catalog's symbol order (layers before heads before head_dim...), the
        # way people say them, instead of sympy's alphabetical order.
        from sympy.printing.precedence import PRECEDENCE

        coefficient, factors = expr.as_coeff_mul()
        numerator: list[sympy.Expr] = []
        denominator: list[sympy.Expr] = []
        if coefficient.is_Rational and coefficient not in (1, -1):
            if coefficient.p not in (1, -1):
                numerator.append(sympy.Integer(abs(coefficient.p)))
            if coefficient.q != 1:
                denominator.append(sympy.Integer(coefficient.q))
        for factor in factors:
            if factor.is_Pow and factor.exp.is_Rational and factor.exp.is_negative:
                denominator.append(factor.base ** (-factor.exp))
            else:
                numerator.append(factor)
        precedence = PRECEDENCE["Mul"]

        def join(items: list[sympy.Expr]) -> str:
            ordered = sorted(items, key=_factor_order)
            return "*".join(self.parenthesize(item, precedence) for item in ordered)

        text = join(numerator) if numerator else "1"
        if denominator:
            below = join(denominator)
            text += f"/({below})" if len(denominator) > 1 else f"/{below}"
        return f"-{text}" if coefficient < 0 else text

    def _print_Add(self, expr: sympy.Add, order: str | None = None) -> str:
        # Positive terms first, each side in the catalog's symbol order: a - b - c.
        from sympy.printing.precedence import PRECEDENCE

        terms = sorted(expr.args, key=lambda t: (t.could_extract_minus_sign(), _factor_order(t)))
        text = ""
        for index, term in enumerate(terms):
            negative = term.could_extract_minus_sign()
            shown = self.parenthesize(-term if negative else term, PRECEDENCE["Add"])
            if index == 0:
                text = f"-{shown}" if negative else shown
            else:
                text += f" - {shown}" if negative else f" + {shown}"
        return text


def _factor_order(factor: sympy.Expr) -> tuple[int, int, str]:
    if factor.is_number:
        return (-1, 0, "")
    position = min(_symbol_position(s.name) for s in factor.free_symbols)
    return (int(factor.is_Add), position, str(factor))


@cache
def _symbol_position(name: str) -> int:
    """Where a symbol stands in the catalog's table (architecture first, then precision...)."""

    names = list(SYMBOLS)
    return names.index(name) if name in names else len(names)


def _pretty(text: str) -> str:
    text = text.replace("**", "^").replace("*", " x ").replace("ceiling", "ceil")
    return text.replace("Max(", "max(").replace("Min(", "min(")


@lru_cache(maxsize=512)
def _marked(expr: sympy.Expr) -> str:
    return _pretty(_MarkedPrinter().doprint(expr))


@lru_cache(maxsize=512)
def _names(expr: sympy.Expr) -> frozenset[str]:
    return frozenset(s.name for s in expr.free_symbols)


@lru_cache(maxsize=1024)
def _split(marked: str) -> tuple[str, ...]:
    return tuple(marked.split(_MARK))  # odd parts are symbol names


@lru_cache(maxsize=1024)
def _symbolic(marked: str) -> str:
    """The formula with its symbol names."""
    return "".join(_split(marked))


def _unmark(marked: str, texts: Mapping[str, str]) -> str:
    """The formula with each symbol replaced by its text (names without one stay)."""
    parts = _split(marked)
    return "".join([texts.get(p, p) if i & 1 else p for i, p in enumerate(parts)])


@cache
def _catalog_expr(name: str) -> sympy.Expr:
    return FORMULAS[name].expr


@lru_cache(maxsize=256)
def _solved_text(expr: sympy.Expr, output: str, ask: str) -> str | None:
    """The formula rearranged for ``ask``, printed with markers (None if sympy cannot)."""
    unknown = next((s for s in expr.free_symbols if s.name == ask), None)
    if unknown is None:
        return None
    relaxed = expr.replace(sympy.floor, lambda a: a).replace(sympy.ceiling, lambda a: a)
    relaxed = relaxed.replace(sympy.Max, lambda *a: next((x for x in a if not x.is_number), a[0]))
    try:
        roots = sympy.solve(sympy.Eq(sympy.Symbol(output, positive=True), relaxed), unknown)
    except (NotImplementedError, ValueError):
        return None
    return _marked(roots[0]) if len(roots) == 1 else None


@lru_cache(maxsize=256)
def _single_gpu(expr: sympy.Expr) -> sympy.Expr:
    """The formula with tp = 1, tidied: max(1, floor(kv_heads/1)) is kv_heads."""
    tp = next((s for s in expr.free_symbols if s.name == "tp"), None)
    if tp is None:
        return expr
    tidy = expr.subs(tp, 1)
    tidy = tidy.replace(
        lambda e: e.func is sympy.floor and e.args[0].is_Symbol, lambda e: e.args[0]
    )
    return tidy.replace(
        lambda e: e.func is sympy.Max and len(e.args) == 2 and 1 in e.args,
        lambda e: next(a for a in e.args if a != 1),
    )


# Derived quantities a worked solution computes first, when the variant did not give them.
_STEPS = ("weight_bytes", "kv_bytes_per_token", "kv_pool_bytes", "kv_pool_tokens")


def _tidy(expr: sympy.Expr, draw: _Draw, ask: str) -> sympy.Expr:
    return _single_gpu(expr) if draw.values.get("tp") == 1 and ask != "tp" else expr


def _earlier_steps(problem: Problem, draw: _Draw, expr: sympy.Expr) -> list[tuple[str, sympy.Expr]]:
    """(quantity, formula) for derived inputs of ``expr``, dependencies first."""
    steps: list[tuple[str, sympy.Expr]] = []

    def visit(current: sympy.Expr) -> None:
        for name in sorted(_names(current), key=_symbol_position):
            if (
                name in _STEPS
                and name not in problem.given
                and name not in draw.picks
                and name != problem.ask
                and name in draw.values
                and all(name != done for done, _ in steps)
            ):
                step = _tidy(_catalog_expr(variant_for(name, draw.model, draw.values)), draw, "")
                visit(step)
                steps.append((name, step))

    if problem.custom is None or any(n in _STEPS for n in _names(expr)):
        visit(expr)
    return steps


def _forward_lines(
    problem: Problem, draw: _Draw, name: str, expr: sympy.Expr, result: str
) -> list[str]:
    names = _names(expr)
    texts = {n: show(problem, draw, n) for n in names if n in draw.values and n != problem.ask}
    pad = " " * len(name)
    return [
        f"{name} = {_symbolic(_marked(expr))}",
        f"{pad} = {_unmark(_marked(expr), texts)}",
        f"{pad} = {result}",
    ]


def _worked_solution(problem: Problem, draw: _Draw) -> tuple[str, str]:
    """(formula text, Markdown worked solution in this variant's numbers)."""
    expr = _tidy(
        problem.custom.expr if problem.custom else _catalog_expr(draw.formula), draw, problem.ask
    )
    names = _names(expr)
    output = problem.output
    formula_text = f"{output} = {_symbolic(_marked(expr))}"
    answer_text = format_quantity(draw.answer / unit_factor(problem.unit), problem.unit)
    blocks = [
        _forward_lines(problem, draw, name, step, show(problem, draw, name))
        for name, step in _earlier_steps(problem, draw, expr)
    ]
    if not problem.solving:
        blocks.append(_forward_lines(problem, draw, output, expr, answer_text))
    else:
        texts = {n: show(problem, draw, n) for n in names if n in draw.values and n != problem.ask}
        output_text = show(problem, draw, output)
        lines = [formula_text, f"{output_text} = {_unmark(_marked(expr), texts)}"]
        solved = _solved_text(expr, output, problem.ask)
        pad = " " * len(problem.ask)
        if solved is not None:
            with_output = {**texts, output: output_text}
            lines.append(f"{problem.ask} = {_symbolic(solved)}")
            lines.append(f"{pad} = {_unmark(solved, with_output)}")
            lines.append(f"{pad} = {answer_text}")
        else:
            lines.append(f"{problem.ask} = {answer_text}")
        blocks.append(lines)
    if _rounds_down(expr) and not problem.solving:
        note = "\n\nRound down: a request or block that does not fit whole does not count."
    else:
        note = ""
    body = "\n\n".join("\n".join(lines) for lines in blocks)
    markdown = f"```text\n{body}\n```\n\n**Answer: {answer_text}**{note}"
    return formula_text, markdown


def _rounds_down(expr: sympy.Expr) -> bool:
    return expr.has(sympy.floor) and not expr.has(sympy.Max)


# --- the variant -----------------------------------------------------------------------------


def _variant(problem: Problem, template_id: str, seed: int, draw: _Draw) -> Variant:
    formula_text, worked = _worked_solution(problem, draw)
    params = _params(problem, draw)
    if problem.prompt.strip():
        prompt = fill_placeholders(problem.prompt, _placeholder_texts(problem, draw))
    else:
        prompt = _default_prompt(problem, params)
    return Variant(
        template_id=template_id,
        seed=seed,
        prompt=prompt,
        params=params,
        expected_value=draw.answer / unit_factor(problem.unit),
        unit=problem.unit,
        rel_tolerance=problem.tolerance,
        context=_context(problem, draw, formula_text, worked),
    )


def _default_prompt(problem: Problem, params: Mapping[str, str]) -> str:
    """For a template without a prompt: what to find, and every input as a list."""

    what = f"`{problem.ask}`"
    if problem.ask in SYMBOLS:
        what += f" ({SYMBOLS[problem.ask].description})"
    inputs = "\n".join(f"- {name}: {text}" for name, text in params.items())
    return f"Find {what}, in {problem.unit or 'plain numbers'}.\n\n{inputs}"


def _params(problem: Problem, draw: _Draw) -> dict[str, str]:
    """Every input of this variant as display text, catalog choices first."""
    params: dict[str, str] = {}
    for name in ("model", "gpu", "dtype", "kv_dtype"):
        if name in draw.picks or name in problem.fixed:
            text = _special(problem, draw, name)
            if text is not None:
                params[name] = text
    if problem.synthetic_model:
        params["model"] = _synthetic_model(problem, draw)
    expr = problem.custom.expr if problem.custom else _catalog_expr(draw.formula)
    inputs = list(_names(expr))
    if problem.solving:
        inputs.append(problem.output)
    wanted = [*draw.picks, *problem.given, *sorted(inputs, key=_symbol_position)]
    for name in wanted:
        if name in params or name == problem.ask or name not in draw.values:
            continue
        params[name] = show(problem, draw, name)
    return params


def _alternatives(problem: Problem, draw: _Draw) -> tuple[dict[str, float], dict[str, str]]:
    """Mistake code -> the answer that mistake gives (in the asked unit), for the checker, and
    the sentences of codes the checker does not know by itself.

    Only for a catalog formula asked forwards, and only for inputs the learner had to derive or
    read: a pool computed without subtracting the weights or without the utilization, an MoE's
    weights counted from its active parameters, 4-bit weights without their scales, and a size
    given in GiB read as GB (or the other way round).
    """
    if problem.solving or problem.custom is not None:
        return {}, {}
    expr = _catalog_expr(draw.formula)
    chain = _names(expr) | {name for name, _ in _earlier_steps(problem, draw, expr)}
    chain |= {FORMULAS[draw.formula].output}
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
    if "active_vs_total" in changes and FORMULAS[draw.formula].output == "weight_bytes":
        sentences["active_vs_total"] = (
            f"Memory holds every expert: count all {format_number(values['model_params'] / 1e9, 3)}"
            f" B parameters, not the {format_number(values['active_params'] / 1e9, 3)} B active "
            "ones."
        )
    if weights_derived and values.get("scale_bits", 0) > 0 and "scale_bits" not in draw.overrides:
        changes["scales_missing"] = {"scale_bits": 0.0}
    for name in sorted(chain & set(draw.overrides)):
        shown = _display_unit(problem, draw, name, values[name])
        if shown in _GB_SIBLINGS:
            misread = _GB_SIBLINGS[shown]
            code = f"{shown.lower()}_read_as_{misread.lower()}"
            if code in changes:
                continue  # two inputs in the same unit: name the first
            changes[code] = {name: values[name] * unit_factor(misread) / unit_factor(shown)}
            sentences[code] = (
                f"You read {show(problem, draw, name)} as {misread}: 1 GiB = 2³⁰ B = 1.074 GB."
            )
    found: dict[str, float] = {}
    factor = unit_factor(problem.unit)
    for code, change in changes.items():
        redone = inputs_from(
            draw.model, draw.gpu, draw.dtype, draw.kv_dtype, draw.tp, {**draw.overrides, **change}
        )
        wrong = _solve_or_nan(lambda v=redone: evaluate(draw.formula, v))
        if math.isfinite(wrong) and wrong > 0 and abs(wrong / draw.answer - 1) > problem.tolerance:
            found[code] = wrong / factor
    return found, {code: sentences[code] for code in found if code in sentences}


# A size shown in one of these may be read in the other: unit shown -> unit misread.
_GB_SIBLINGS = {"GiB": "GB", "GB": "GiB"}


# Inputs whose scaling the checker's ratio rules use: checker name -> symbol.
_SCALING_INPUTS = {"kv": "kv_bytes_per_token", "tp": "tp"}


def _measured_exponents(problem: Problem, draw: _Draw) -> dict[str, float]:
    """answer ~ input**e for KV bytes per token and TP, measured by doubling each input."""
    exponents: dict[str, float] = {}
    inputs = problem.custom.inputs if problem.custom else _names(_catalog_expr(draw.formula))
    for key, symbol in _SCALING_INPUTS.items():
        if symbol not in inputs or symbol == problem.ask or symbol not in draw.values:
            continue
        changed = {**draw.values, symbol: draw.values[symbol] * 2}
        changed.pop(problem.ask, None)
        if problem.custom is None and problem.solving:
            other = _solve_or_nan(lambda v=changed: solve_for(draw.formula, problem.ask, v))
        elif problem.custom is None:
            other = _solve_or_nan(lambda v=changed: evaluate(draw.formula, v))
        elif problem.solving:
            other = _solve_or_nan(lambda v=changed: _solve_custom(problem, v))
        else:
            other = _evaluate_custom(problem, changed)
        if not (math.isfinite(other) and other > 0):
            continue
        exponent = math.log2(other / draw.answer)
        nearest = round(exponent * 2) / 2
        if nearest and abs(exponent - nearest) < 0.05:
            exponents[key] = nearest
    return exponents


def _context(problem: Problem, draw: _Draw, formula_text: str, worked: str) -> dict[str, object]:
    """What engine/problems/checker.py reads to diagnose an answer (see its docstring)."""

    values = draw.values
    base = draw.formula.removesuffix("_mla").removesuffix("_swa")
    weights = base in _WEIGHT_FORMULAS
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
    for name in ("heads", "kv_heads", "tp"):
        if name in values:
            context[name] = values[name]
    expr = problem.custom.expr if problem.custom else _catalog_expr(draw.formula)
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


__all__ = ["compiled_template", "draw_variant", "make_variant", "show", "validate_problem"]


def validate_problem(
    card: Any, path: str, key_lines: Mapping[str, int] | None = None
) -> list[Located]:
    """Every problem with a card's template, as ``path:line: message``.

    Checks the fields and names, the formula's dimension against the answer unit, the prompt's
    placeholders, and that variants can be drawn: a few seeds must each give one that meets the
    constraints. ``key_lines`` maps a top-level field to its line, for pointing at it.
    """
    base = card.problem_line or card.line

    def at(field_name: str) -> int:
        return (key_lines or {}).get(field_name, base)

    if card.problem is None:
        return []
    try:
        problem = compile_problem(card.problem)
    except ProblemSpecError as exc:
        return [Located(path, at(i.field), f"problem: {i.message}") for i in exc.issues]
    template_id = f"check/{card.key}"
    for seed in range(VALIDATION_SEEDS):
        try:
            draw_variant(problem, template_id, seed)
        except UserError as exc:
            return [Located(path, at(_field_of(exc)), f"problem: {exc}")]
    return []


def _field_of(exc: UserError) -> str:
    """The field a drawing error is about, to point at its line."""
    text = str(exc)
    if "placeholder" in text:
        return "prompt"
    if "constraint" in text:
        return "constraints"
    if "cannot solve" in text:
        return "ask"
    return "vary"
