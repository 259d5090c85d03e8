"""Problem templates: the fields of a pack's ```problem block, checked and compiled once.

A block is validated by a pydantic model (engine/problems/template_fields.py; unknown fields are
errors), then compiled into a
``Problem``: the asked quantity resolved against the formula catalog (engine/capacity/formulas.py) or a
formula written in the pack (parsed by engine/capacity/expr.py, never eval), every axis of ``vary``
expanded into choices, ``given`` values converted to base units (bytes, seconds, counts),
constraints parsed, and the prompt's placeholders listed. engine/problems/generator.py draws variants from
a ``Problem``; ``generator.validate_problem`` is what ``kvdrill check`` runs on each problem card.

The fields are documented in decks/README.md, "Problem templates".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from kvdrill.engine.capacity.catalog import close_matches
from kvdrill.engine.capacity.formulas import FORMULAS, SYMBOLS, get_formula
from kvdrill.engine.capacity.units import (
    AnswerError,
    describe_dimension,
    normalise_unit_text,
)
from kvdrill.engine.problems.quantities import catalog_symbol, pint_unit, unit_dimension
from kvdrill.engine.problems.template_constraints import constraint
from kvdrill.engine.problems.template_fields import (
    DEFAULT_TOLERANCE,
    MAX_TOLERANCE,
    PackFormula,
    ProblemSpec,
    field_message,
)
from kvdrill.engine.problems.template_formula import custom_formula
from kvdrill.engine.problems.template_prompt import prompt_placeholders
from kvdrill.engine.problems.template_types import CustomFormula, Issue, Problem, ProblemSpecError
from kvdrill.engine.problems.template_vary import default_catalog_axes, given_values, vary_axes
from kvdrill.i18n import _


class _Compiler:
    """Builds a Problem from raw YAML, collecting every issue rather than stopping at the first."""

    def __init__(self, raw: Mapping[str, Any]):
        self.raw = raw
        self.issues: list[Issue] = []

    def issue(self, where: str, message: str) -> None:
        self.issues.append(Issue(where, message))

    def compile(self) -> Problem:
        try:
            spec = ProblemSpec.model_validate(self.raw)
        except ValidationError as exc:
            for error in exc.errors():
                location = [str(p) for p in error["loc"]]
                where = location[0] if location else "problem"
                detail = ".".join(location[1:])
                message = field_message(error)
                if detail and error["type"] not in ("extra_forbidden", "missing"):
                    message = f"{detail}: {message}"
                self.issue(where, message)
            raise ProblemSpecError(_dedupe(self.issues)) from None
        return self.build(spec)

    def build(self, spec: ProblemSpec) -> Problem:
        custom = None
        catalog_formula = None
        output = spec.ask
        if isinstance(spec.formula, PackFormula):
            custom = custom_formula(spec.formula, spec.ask, self.issue)
            output = custom.output if custom else spec.ask
        else:
            name = spec.formula or spec.ask
            key = catalog_symbol(name) or name
            if name in FORMULAS or key in FORMULAS:
                formula = get_formula(key)
                catalog_formula = formula.name
                output = formula.output
                ask = catalog_symbol(spec.ask) or spec.ask
                if ask not in (formula.output, formula.name) and ask not in formula.symbols:
                    self.issue(
                        "ask",
                        _(
                            "{ask} is neither what {formula} computes nor one of its inputs "
                            "({inputs})"
                        ).format(
                            ask=repr(spec.ask),
                            formula=formula.name,
                            inputs=", ".join(formula.symbols),
                        ),
                    )
            else:
                field_name = "formula" if spec.formula else "ask"
                self.issue(
                    field_name,
                    _("unknown formula {name}{hint}").format(
                        name=repr(name), hint=close_matches(name, list(FORMULAS))
                    ),
                )
        ask = spec.ask
        if custom is None:
            ask = catalog_symbol(spec.ask) or spec.ask
            if ask == catalog_formula:
                ask = output

        units = self.unit_table(custom)
        axes, synthetic = vary_axes(spec.vary, units, self.issue)
        fixed: dict[str, Any] = {}  # catalog axes set in `given`
        given = given_values(spec.given, units, fixed, {a.name for a in axes}, self.issue)
        if not self.issues:
            axes = axes + default_catalog_axes(
                catalog_formula, custom, axes, fixed, given, bool(synthetic)
            )
        known_names = set(units) | {output}
        conditions = tuple(
            c
            for c in (constraint(text, known_names, units, self.issue) for text in spec.constraints)
            if c
        )
        answer_unit = self.answer_unit(spec.unit, ask, output, units, custom)
        tolerance = self.tolerance(spec.tolerance)
        placeholders = prompt_placeholders(spec.prompt, ask, units, self.issue)
        if self.issues:
            raise ProblemSpecError(_dedupe(self.issues))
        return Problem(
            ask=ask,
            output=output,
            catalog_formula=catalog_formula,
            custom=custom,
            axes=axes,
            fixed=fixed,
            given=given,
            conditions=conditions,
            prompt=spec.prompt,
            placeholders=placeholders,
            unit=answer_unit,
            tolerance=tolerance,
            synthetic_model=synthetic,
        )

    def unit_table(self, custom: CustomFormula | None) -> dict[str, str]:
        """Every name a value, constraint or placeholder may use -> its unit."""

        table = {name: symbol.unit for name, symbol in SYMBOLS.items()}
        if custom:
            table.update(custom.units)
        return table

    def answer_unit(
        self,
        unit: str,
        ask: str,
        output: str,
        units: Mapping[str, str],
        custom: CustomFormula | None,
    ) -> str:
        unit = normalise_unit_text(unit)
        try:
            wanted = unit_dimension(unit)
        except AnswerError as exc:
            self.issue("unit", str(exc))
            return unit
        asked_unit = units.get(ask)
        if asked_unit is None:
            return unit  # already reported: an unknown ask
        if unit_dimension(asked_unit) != wanted:
            self.issue(
                "unit",
                _("{ask} is {asked_kind}, but the answer unit {unit} is {unit_kind}").format(
                    ask=ask,
                    asked_kind=describe_dimension(pint_unit(asked_unit)),
                    unit=unit or _("(none)"),
                    unit_kind=describe_dimension(unit),
                ),
            )
        return unit

    def tolerance(self, raw: float | str | None) -> float:
        if raw is None:
            return DEFAULT_TOLERANCE
        text = str(raw).strip()
        try:
            value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            self.issue(
                "tolerance", _("{raw} is not a tolerance: write 2% or 0.02").format(raw=repr(raw))
            )
            return DEFAULT_TOLERANCE
        if not 0 < value <= MAX_TOLERANCE:
            self.issue(
                "tolerance",
                _("{raw} is outside (0, {most}]: wider lets unit slips through").format(
                    raw=repr(raw), most=f"{MAX_TOLERANCE:.0%}"
                ),
            )
            return DEFAULT_TOLERANCE
        return value


def _dedupe(issues: list[Issue]) -> list[Issue]:
    return list(dict.fromkeys(issues))


# --- public API --------------------------------------------------------------------------------


def compile_problem(raw: Mapping[str, Any]) -> Problem:
    """Check and compile a problem block's YAML mapping; ProblemSpecError lists every issue."""
    if not isinstance(raw, Mapping):
        raise ProblemSpecError([Issue("problem", "a problem block is a YAML mapping")])
    return _Compiler(raw).compile()
