"""Values and their dimensions in problem templates: units, base-unit values, expressions.

A template's numbers are read into base units (bytes, seconds, counts) with the unit the author
wrote kept for display (``Quantity``); the dimension of a formula or constraint is worked out
from its symbols' units, so a formula that adds bytes to tokens is refused when it is compiled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import sympy

from kvdrill.engine.capacity.formulas import ALIASES, SYMBOLS
from kvdrill.engine.capacity.units import (
    MAX_MAGNITUDE,
    describe_dimension,
    dimension_words,
    read_quantity_parts,
    shorten,
    unit_scale,
)
from kvdrill.i18n import _

# bool is listed so that pydantic keeps a YAML ``true`` as it is, for read_value to refuse:
# without it, ``true`` would quietly become the number 1.
Scalar = bool | int | float | str


@dataclass(frozen=True)
class Quantity:
    """A value in base units and how to show it (the unit the author wrote, if any)."""

    value: float
    display_unit: str | None = None


def pint_unit(unit: str) -> str:
    """The formula catalog writes plain counts as 'dimensionless'; the unit reader wants ''."""
    return "" if unit in ("dimensionless", "1") else unit


@cache
def unit_dimension(unit: str) -> frozenset[tuple[str, int]]:
    return unit_scale(pint_unit(unit))[1]


@cache
def unit_factor(unit: str) -> float:
    return unit_scale(pint_unit(unit))[0]


@cache
def catalog_symbol(name: str) -> str | None:
    """The canonical catalog symbol for a name or alias, or None."""

    key = ALIASES.get(name, name)
    return key if key in SYMBOLS else None


def read_value(raw: Scalar, unit: str, what: str) -> Quantity:
    """A YAML value in base units: a number is in ``unit``; text may carry its own unit."""

    if isinstance(raw, bool) or raw is None:
        written = {True: "true", False: "false", None: _("nothing")}[raw]
        raise ValueError(
            _("{what}: expected a number, got {written}").format(what=what, written=written)
        )
    if isinstance(raw, int | float):
        # YAML reads .inf and .nan as floats, and 1e999 as inf: refuse them as the reader does.
        if not (isinstance(raw, int) or math.isfinite(raw)):
            raise ValueError(_("{what}: {raw} is not a finite number").format(what=what, raw=raw))
        if abs(raw) > MAX_MAGNITUDE:
            raise ValueError(
                _("{what}: {raw} is too large (at most {most})").format(
                    what=what, raw=shorten(str(raw), 20), most=f"{MAX_MAGNITUDE:g}"
                )
            )
        return Quantity(float(raw) * unit_factor(unit))
    read = read_quantity_parts(str(raw))
    if not read.unit_text:
        return Quantity(read.value * unit_factor(unit))
    if unit_dimension(read.unit_text) != unit_dimension(unit):
        raise ValueError(
            _("{what}: {raw} is {kind}, but this value is {asked_kind}").format(
                what=what,
                raw=repr(raw),
                kind=describe_dimension(read.unit_text),
                asked_kind=describe_dimension(pint_unit(unit)),
            )
        )
    return Quantity(read.value * unit_factor(read.unit_text), read.unit_text)


def expression_dimension(expr: sympy.Basic, units: Mapping[str, str]) -> frozenset[tuple[str, int]]:
    """The physical dimension of an expression, given each symbol's unit; ValueError if mixed."""
    if expr.is_Symbol:
        return unit_dimension(units[expr.name])
    if expr.is_Number:
        return frozenset()
    if expr.is_Mul:
        total: dict[str, int] = {}
        for arg in expr.args:
            for dim, power in expression_dimension(arg, units):
                total[dim] = total.get(dim, 0) + power
        return frozenset((d, p) for d, p in total.items() if p)
    if expr.is_Pow:
        base = expression_dimension(expr.args[0], units)
        exponent = expr.args[1]
        if not base:
            return base
        scaled = {d: p * exponent for d, p in base}
        if not all(sympy.Integer(v) == v for v in scaled.values()):
            raise ValueError(
                _("{expression} raises a quantity with a unit to a fractional power").format(
                    expression=expr
                )
            )
        return frozenset((d, int(p)) for d, p in scaled.items() if p)
    # Add, Min, Max, floor, ceiling: every argument must have the same dimension.
    dims = [(arg, expression_dimension(arg, units)) for arg in expr.args]
    dimensioned = [(a, d) for a, d in dims if not is_zero(a)]
    first = dimensioned[0][1] if dimensioned else frozenset()
    for _arg, other in dimensioned[1:]:
        if other != first:
            raise ValueError(
                _(
                    "`{expression}` mixes {first} and {other}: give every input a unit that fits"
                ).format(
                    expression=_show(expr),
                    first=dimension_words(first),
                    other=dimension_words(other),
                )
            )
    return first


def is_zero(expr: sympy.Basic) -> bool:
    return bool(expr.is_Number and expr.is_zero)


def _show(expr: sympy.Basic) -> str:
    text = str(expr).replace("unit:", "")
    return text if len(text) <= 60 else text[:57] + "..."


_BASE_UNITS = {"[information]": "B", "[time]": "s", "[compute]": "FLOP"}


def unit_of_dimension(dimension: frozenset[tuple[str, int]] | None) -> str:
    """A unit text with this dimension ('B', 's', 'B/s', 'token/B'); ValueError if none fits."""
    if not dimension:
        return ""
    # A dimension without a base unit here is left out of both, so the lengths disagree.
    above = [_BASE_UNITS[d] for d, p in dimension if p == 1 and d in _BASE_UNITS]
    below = [_BASE_UNITS[d] for d, p in dimension if p == -1 and d in _BASE_UNITS]
    if len(above) + len(below) != len(dimension) or len(above) > 1 or len(below) > 1:
        raise ValueError(_("the formula's result has a dimension no answer unit can have"))
    return (above[0] if above else "token") + (f"/{below[0]}" if below else "")
