"""A problem template compiled (``Problem`` and its parts: axes, constraints, a pack's own
formula) and the errors of a template: what engine/problems/templates.py builds and the
generator draws variants from."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy

from kvdrill.engine.errors import UserError
from kvdrill.engine.problems.quantities import Quantity

# Where the compile steps report a problem: (top-level field, what is wrong).
IssueSink = Callable[[str, str], None]


@dataclass(frozen=True)
class Issue:
    """One problem with a template: the top-level field it sits under, and what is wrong."""

    field: str
    message: str


class ProblemSpecError(UserError):
    """A template that cannot be used; ``issues`` lists everything found."""

    def __init__(self, issues: list[Issue]):
        self.issues = issues
        super().__init__("; ".join(f"{i.field}: {i.message}" for i in issues))


class DrawingError(UserError):
    """A template whose variants cannot be drawn, and the field of the template to blame."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Axis:
    """One varied input. ``kind`` is a catalog axis (model, gpu, dtype, kv_dtype, tp) or symbol."""

    name: str
    kind: str
    choices: tuple[Any, ...] = ()  # catalog entries, dtype names, or Quantity values
    start: float = 0.0  # for a range: base-unit value of the first choice
    step: float = 0.0
    count: int = 0  # number of choices (a range is not expanded)
    display_unit: str | None = None

    def size(self) -> int:
        return self.count if self.step else len(self.choices)

    def pick(self, index: int) -> Any:
        if self.step:
            return Quantity(self.start + index * self.step, self.display_unit)
        return self.choices[index]


@dataclass(frozen=True)
class Condition:
    text: str
    relation: sympy.core.relational.Relational
    names: tuple[str, ...]
    test: Any  # compiled: test(*values) -> bool


@dataclass(frozen=True)
class CustomFormula:
    output: str
    expr: sympy.Expr
    symbols: Mapping[str, sympy.Symbol]  # every name the expression uses
    units: Mapping[str, str]  # declared names -> unit text
    inputs: tuple[str, ...]  # names in expression order of arguments
    compiled: Any


@dataclass(frozen=True)
class Problem:
    """A template, checked and compiled: what the generator draws variants from."""

    ask: str
    output: str  # the formula's result (== ask unless solving for an input)
    catalog_formula: str | None  # base catalog formula name (variant picked per model)
    custom: CustomFormula | None
    axes: tuple[Axis, ...]
    fixed: Mapping[str, Any]  # catalog axes fixed in ``given`` (model, gpu, dtype, kv_dtype, tp)
    given: Mapping[str, Quantity]  # symbol values in base units
    conditions: tuple[Condition, ...]
    prompt: str
    placeholders: tuple[tuple[str, str | None], ...]  # (name, unit or None)
    unit: str
    tolerance: float
    synthetic_model: tuple[str, ...] = field(default_factory=tuple)  # axes a synthetic model has

    @property
    def solving(self) -> bool:
        return self.ask != self.output
