"""A formula written in a pack's problem block (``formula: {expr: ..., symbols: ...}``): parsed
by engine/capacity/expr.py (never eval), its names resolved against the declared and catalog
symbols, its dimension checked."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from kvdrill.engine.capacity.expr import FormulaError, is_name, parse_formula
from kvdrill.engine.capacity.formulas import SYMBOLS
from kvdrill.engine.capacity.units import AnswerError
from kvdrill.engine.problems.quantities import (
    catalog_symbol,
    expression_dimension,
    unit_dimension,
    unit_of_dimension,
)
from kvdrill.engine.problems.template_fields import PackFormula
from kvdrill.engine.problems.template_types import CustomFormula, IssueSink
from kvdrill.i18n import _


def custom_formula(spec: PackFormula, ask: str, issue: IssueSink) -> CustomFormula | None:
    """A formula written in the pack, parsed (never eval) and checked for its units."""
    units: dict[str, str] = {}
    for name, unit in spec.symbols.items():
        if not is_name(name):
            issue("formula", _("symbols: {name} is not a valid name").format(name=repr(name)))
            continue
        try:
            unit_dimension(unit)
        except AnswerError as exc:
            issue("formula", f"symbols.{name}: {exc}")
            continue
        units[name] = unit
    output = spec.output or ask
    if not is_name(output):
        issue("formula", _("output: {name} is not a valid name").format(name=repr(output)))
        return None
    if output in units:
        issue(
            "formula",
            _("output {name} is also declared as an input symbol").format(name=repr(output)),
        )
    table = {name: sympy.Symbol(name, positive=True) for name in units}
    try:
        expr = parse_formula(spec.expr, ExprNames(table))
    except FormulaError as exc:
        issue(
            "formula",
            _("expr, column {column}: {reason}").format(column=exc.column, reason=exc.message),
        )
        return None
    names = tuple(sorted(s.name for s in expr.free_symbols))
    symbols = {s.name: s for s in expr.free_symbols}
    for name in names:
        if name not in units:
            units[name] = catalog_unit(name)
    if ask != output and ask not in names:
        issue(
            "ask",
            _("{ask} is neither the formula's output {output} nor one of its inputs").format(
                ask=repr(ask), output=repr(output)
            ),
        )
    compiled = sympy.lambdify([symbols[n] for n in names], expr, modules="math")
    dimension = checked_dimension(expr, units, "formula", issue)
    try:
        output_unit = unit_of_dimension(dimension)
    except ValueError as exc:
        issue("formula", str(exc))
        output_unit = ""
    return CustomFormula(
        output=output,
        expr=expr,
        symbols=symbols,
        units={**units, output: output_unit},
        inputs=names,
        compiled=compiled,
    )


def checked_dimension(
    expr: sympy.Basic, units: Mapping[str, str], where: str, issue: IssueSink
) -> frozenset[tuple[str, int]] | None:
    """The dimension of ``expr``, or None when its units do not add up (reported)."""
    try:
        return expression_dimension(expr, units)
    except ValueError as exc:
        issue(where, str(exc))
        return None


class ExprNames(dict):
    """Declared names for the expression parser, with catalog symbols (and aliases) on demand."""

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or (
            isinstance(name, str) and catalog_symbol(name) is not None
        )

    def __getitem__(self, name: str) -> sympy.Symbol:
        if super().__contains__(name):
            return super().__getitem__(name)
        canonical = catalog_symbol(name)
        if canonical is None:
            raise KeyError(name)

        nonnegative = SYMBOLS[canonical].can_be_zero
        return sympy.Symbol(
            canonical, **({"nonnegative": True} if nonnegative else {"positive": True})
        )


def catalog_unit(name: str) -> str:
    return SYMBOLS[name].unit
