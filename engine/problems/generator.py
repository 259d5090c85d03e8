"""Concrete questions from problem templates: ``make_variant(template, template_id, seed)``.

Deterministic: the only randomness is ``random.Random`` seeded from the template id and the seed,
and every choice is drawn in the template's own order, so the same id and seed give the same
variant on every run and machine (the review log stores both). A draw that breaks a constraint,
or gives an answer that is not a positive finite number a learner could type, is drawn again, at most
``MAX_ATTEMPTS`` times; then the template is declared unusable (``UserError``).

Values are in base units (bytes, seconds, counts) throughout, as in engine/capacity/formulas.py; the
expected value is converted to the asked unit at the end. Templates are compiled once and
cached; formulas are compiled (lambdify) once by engine/capacity/formulas.py or engine/problems/template_formula.py.

The pieces: drawing.py computes one draw (inputs, answer, constraints), display.py shows its
values, worked.py writes the worked solution, diagnosis_context.py what the checker reads.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from kvdrill.engine.capacity.formulas import SYMBOLS
from kvdrill.engine.errors import Located, UserError
from kvdrill.engine.problems.diagnosis_context import checker_context
from kvdrill.engine.problems.display import (
    Draw,
    placeholder_texts,
    show,
    special_text,
    synthetic_model,
)
from kvdrill.engine.problems.drawing import (
    broken_constraint,
    compute_answer,
    draw_inputs,
    mixed_seed,
    refused_by_vllm,
)
from kvdrill.engine.problems.exactness import INDISTINGUISHABLE, refusing_known_mistakes
from kvdrill.engine.problems.placeholders import fill_placeholders
from kvdrill.engine.problems.quantities import unit_factor
from kvdrill.engine.problems.template_fields import MAX_ATTEMPTS, VALIDATION_SEEDS
from kvdrill.engine.problems.template_types import DrawingError, Problem, ProblemSpecError
from kvdrill.engine.problems.templates import compile_problem
from kvdrill.engine.problems.types import Variant
from kvdrill.engine.problems.worked import (
    catalog_expr,
    expr_names,
    symbol_position,
    worked_solution,
)
from kvdrill.i18n import _, language

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


def draw_variant(problem: Problem, template_id: str, seed: int) -> Variant:
    """A variant of a compiled template; UserError when the template cannot give one."""
    rng = random.Random(mixed_seed(template_id, seed))
    failed: dict[str, int] = {}
    for _attempt in range(MAX_ATTEMPTS):
        picks = {axis.name: axis.pick(rng.randrange(axis.size())) for axis in problem.axes}
        refused = refused_by_vllm(problem, picks)
        if refused:
            failed[refused] = failed.get(refused, 0) + 1
            continue
        draw = draw_inputs(problem, picks)
        compute_answer(problem, draw)
        broken = broken_constraint(problem, draw)
        if broken is None:
            variant = refusing_known_mistakes(_variant(problem, template_id, seed, draw))
            if variant is not None:
                return variant
            broken = _(INDISTINGUISHABLE)
        failed[broken] = failed.get(broken, 0) + 1
    worst = max(failed, key=failed.__getitem__)
    raise DrawingError(
        _(
            "no variant meets the constraints in {draws} draws (failing most: {worst}); widen "
            "`vary` or relax the constraint"
        ).format(draws=MAX_ATTEMPTS, worst=worst),
        "constraints",
    )


# --- the variant -----------------------------------------------------------------------------


def _variant(problem: Problem, template_id: str, seed: int, draw: Draw) -> Variant:
    formula_text, worked = worked_solution(problem, draw)
    params = _params(problem, draw)
    if problem.prompt.strip():
        prompt = fill_placeholders(problem.prompt, placeholder_texts(problem, draw))
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
        context=checker_context(problem, draw, formula_text, worked),
    )


def _default_prompt(problem: Problem, params: Mapping[str, str]) -> str:
    """For a template without a prompt: what to find, and every input as a list."""

    what = f"`{problem.ask}`"
    if problem.ask in SYMBOLS:
        what += f" ({_(SYMBOLS[problem.ask].description)})"
    inputs = "\n".join(f"- {name}: {text}" for name, text in params.items())
    if problem.unit:
        find = _("Find {what}, in {unit}.").format(what=what, unit=problem.unit)
    else:
        find = _("Find {what}, in plain numbers.").format(what=what)
    return f"{find}\n\n{inputs}"


def _params(problem: Problem, draw: Draw) -> dict[str, str]:
    """Every input of this variant as display text, catalog choices first."""
    params: dict[str, str] = {}
    for name in ("model", "gpu", "dtype", "kv_dtype"):
        if name in draw.picks or name in problem.fixed:
            text = special_text(problem, draw, name)
            if text is not None:
                params[name] = text
    if problem.synthetic_model:
        params["model"] = synthetic_model(problem, draw)
    expr = problem.custom.expr if problem.custom else catalog_expr(draw.formula)
    inputs = list(expr_names(expr))
    if problem.solving:
        inputs.append(problem.output)
    wanted = [*draw.picks, *problem.given, *sorted(inputs, key=symbol_position)]
    for name in wanted:
        if name in params or name == problem.ask or name not in draw.values:
            continue
        params[name] = show(problem, draw, name)
    return params


__all__ = ["compiled_template", "draw_variant", "make_variant", "show", "validate_problem"]


def validate_problem(
    card: Any,
    path: str,
    key_lines: Mapping[str, int] | None = None,
    drawn: dict[str, UserError | None] | None = None,
) -> list[Located]:
    """Every problem with a card's template, as ``path:line: message``.

    Checks the fields and names, the formula's dimension against the answer unit, the prompt's
    placeholders, and that variants can be drawn: a few seeds must each give one that meets the
    constraints. ``key_lines`` maps a top-level field to its line, for pointing at it;
    ``drawn``: the drawings checked so far in the caller's run (engine/packs/checks.py
    ``DrawingChecks``), added to; none by default.
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
    error = _drawing_error(
        card.problem, problem, f"check/{card.key}", {} if drawn is None else drawn
    )
    return [] if error is None else [Located(path, at(_field_of(error)), f"problem: {error}")]


def _drawing_error(
    raw: Mapping[str, Any],
    problem: Problem,
    template_id: str,
    drawn: dict[str, UserError | None],
) -> UserError | None:
    """The first seed's error drawing ``VALIDATION_SEEDS`` variants of ``problem``, or None;
    kept in ``drawn`` by what the draws depend on: an edition's template, the same but for its
    prompt's words, reuses its original's (``kvdrill check decks/`` checks both).

    The draws read the prompt only through its placeholders (which quantities it shows, and
    how: the known mistakes it leaves open, the rounding of the values), so they key it."""
    shown = problem.placeholders if problem.prompt.strip() else None
    spec = {name: value for name, value in raw.items() if name != "prompt"}
    # The language too: the error kept is a message in it.
    key = json.dumps([template_id, spec, shown, language()], sort_keys=True, default=str)
    if key in drawn:
        return drawn[key]
    found = None
    for seed in range(VALIDATION_SEEDS):
        try:
            draw_variant(problem, template_id, seed)
        except UserError as exc:
            found = exc
            break
    drawn[key] = found
    return found


def _field_of(exc: UserError) -> str:
    """The field a drawing error is about, to point at its line: the inputs (``vary``) unless
    the error names another."""
    return exc.field if isinstance(exc, DrawingError) else "vary"
