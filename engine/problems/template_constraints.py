"""The ``constraints`` of a problem block: relations a drawn variant must meet, written in the
constraint language (engine/capacity/expr.py) or named (``weights_fit``), checked for units."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from kvdrill.engine.capacity.expr import FormulaError, parse_condition
from kvdrill.engine.capacity.units import dimension_words
from kvdrill.engine.problems.quantities import is_zero, unit_factor
from kvdrill.engine.problems.template_fields import CONSTRAINT_UNITS, NAMED_CONSTRAINTS
from kvdrill.engine.problems.template_formula import ExprNames, checked_dimension
from kvdrill.engine.problems.template_types import Condition, IssueSink
from kvdrill.i18n import _


def constraint(
    text: str, names: set[str], units: Mapping[str, str], issue: IssueSink
) -> Condition | None:
    """A constraint (a named one or a relation in the constraint language), parsed and checked
    for its units; None when it is wrong (reported)."""
    source = NAMED_CONSTRAINTS.get(text.strip(), text)
    table = {name: sympy.Symbol(name, positive=True) for name in names}
    for unit in CONSTRAINT_UNITS:
        table.setdefault(unit, sympy.Symbol(f"unit:{unit}", positive=True))
    try:
        relation = parse_condition(source, ExprNames(table))
    except FormulaError as exc:
        hint = (
            ""
            if "<" in text or ">" in text
            else _(" (named ones: {names})").format(names=", ".join(NAMED_CONSTRAINTS))
        )
        issue(
            "constraints",
            _("{constraint}, column {column}: {reason}{hint}").format(
                constraint=repr(text), column=exc.column, reason=exc.message, hint=hint
            ),
        )
        return None
    # Unit constants become numbers in base units; the rest are inputs.
    constants = {
        s: unit_factor(s.name[5:]) for s in relation.free_symbols if s.name.startswith("unit:")
    }
    relation_units = {**units, **{f"unit:{u}": u for u in CONSTRAINT_UNITS}}
    left = checked_dimension(relation.lhs, relation_units, "constraints", issue)
    right = checked_dimension(relation.rhs, relation_units, "constraints", issue)
    if left is not None and right is not None and left != right and not is_zero(relation.rhs):
        if not right or not left:
            said = _(
                "{constraint} compares {left} with {right}; write units as constants, e.g. 70 * GB"
            )
        else:
            said = _("{constraint} compares {left} with {right}")
        issue(
            "constraints",
            said.format(
                constraint=repr(text), left=dimension_words(left), right=dimension_words(right)
            ),
        )
        return None
    relation = relation.subs(constants)
    ordered = tuple(sorted(s.name for s in relation.free_symbols))
    symbols = sorted(relation.free_symbols, key=lambda s: s.name)
    test = sympy.lambdify(symbols, relation, modules="math")
    return Condition(text.strip(), relation, ordered, test)
