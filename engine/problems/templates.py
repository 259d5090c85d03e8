"""Problem templates: the fields of a pack's ```problem block, checked and compiled once.

A block is validated by a pydantic model (unknown fields are errors), then compiled into a
``Problem``: the asked quantity resolved against the formula catalog (engine/capacity/formulas.py) or a
formula written in the pack (parsed by engine/capacity/expr.py, never eval), every axis of ``vary``
expanded into choices, ``given`` values converted to base units (bytes, seconds, counts),
constraints parsed, and the prompt's placeholders listed. engine/problems/generator.py draws variants from
a ``Problem``; ``generator.validate_problem`` is what ``kvdrill check`` runs on each problem card.

The fields are documented in decks/README.md, "Problem templates".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kvdrill.engine.capacity.catalog import close_matches
from kvdrill.engine.capacity.compute import check_symbol_value
from kvdrill.engine.capacity.expr import FormulaError, is_name, parse_condition, parse_formula
from kvdrill.engine.capacity.formulas import (
    FORMULAS,
    SYMBOLS,
    get_formula,
    inputs_from,
    missing_inputs,
)
from kvdrill.engine.capacity.units import (
    AnswerError,
    describe_dimension,
    dimension_words,
    normalise_unit_text,
)
from kvdrill.engine.errors import UserError
from kvdrill.engine.problems.placeholders import SPECIAL_PLACEHOLDERS, iter_placeholders
from kvdrill.engine.problems.quantities import (
    Quantity,
    Scalar,
    catalog_symbol,
    expression_dimension,
    is_zero,
    pint_unit,
    read_value,
    unit_dimension,
    unit_factor,
    unit_of_dimension,
)
from kvdrill.engine.problems.selectors import select_dtypes, select_gpus, select_models
from kvdrill.i18n import _

MAX_AXIS_CHOICES = 100_000  # values one range may span
MAX_PROMPT_CHARS = 4000
MAX_ATTEMPTS = 200  # draws per variant before the constraints are declared unmeetable
VALIDATION_SEEDS = 12  # seeds kvdrill check tries on each template
DEFAULT_TOLERANCE = 0.01
MAX_TOLERANCE = 0.1

CATALOG_AXES = ("model", "gpu", "dtype", "kv_dtype", "tp")

# Named constraints, written in the constraint language itself.
NAMED_CONSTRAINTS = {
    "weights_fit": "weight_bytes < tp * gpu_mem * gpu_util",
    "pool_positive": "kv_pool_bytes > 0",
    "request_fits": "kv_pool_tokens >= request_tokens",
    "max_model_len_fits": "kv_pool_tokens >= max_model_len",
    "sequence_fits": "kv_pool_tokens >= seq_tokens",
}

# Units a constraint may use as constants: `weight_bytes <= 70 * GB`.
CONSTRAINT_UNITS = ("B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "s", "ms", "us")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RangeSpec(_Strict):
    """``{from: 1000, to: 8000, step: 100}``: every value from ``from`` to ``to`` by ``step``."""

    start: Scalar = Field(alias="from")
    to: Scalar
    step: Scalar = 1


class PackFormula(_Strict):
    """A formula written in the pack: an expression over declared or catalog symbols."""

    expr: str
    symbols: dict[str, str] = Field(default_factory=dict)  # name -> unit ("GiB", "token", "")
    output: str | None = None  # the result's name; defaults to ``ask``


class ProblemSpec(_Strict):
    ask: str
    formula: str | PackFormula | None = None
    vary: dict[str, Scalar | list[Scalar] | RangeSpec | dict[str, Any]] = Field(
        default_factory=dict
    )
    given: dict[str, Scalar] = Field(default_factory=dict)
    constraints: list[str] = Field(default_factory=list)
    prompt: str = ""  # empty: a prompt listing the inputs is written for each variant
    unit: str
    tolerance: float | str | None = None


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


# --- compiling a template ------------------------------------------------------------------


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
                message = error["msg"]
                if error["type"] == "extra_forbidden":
                    message = _("unknown field {field}").format(field=repr(".".join(location)))
                elif error["type"] == "missing":
                    message = _("missing required field {field}").format(
                        field=repr(".".join(location))
                    )
                elif detail:
                    message = f"{detail}: {message}"
                self.issue(where, message)
            raise ProblemSpecError(_dedupe(self.issues)) from None
        return self.build(spec)

    def build(self, spec: ProblemSpec) -> Problem:
        custom = None
        catalog_formula = None
        output = spec.ask
        if isinstance(spec.formula, PackFormula):
            custom = self.custom_formula(spec.formula, spec.ask)
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
        axes, synthetic = self.axes(spec.vary, units)
        fixed: dict[str, Any] = {}  # catalog axes set in `given`
        given = self.given(spec.given, units, fixed, {a.name for a in axes})
        if not self.issues:
            axes = axes + _default_catalog_axes(
                catalog_formula, custom, axes, fixed, given, bool(synthetic)
            )
        known_names = set(units) | {output}
        conditions = tuple(
            c for c in (self.condition(text, known_names, units) for text in spec.constraints) if c
        )
        answer_unit = self.answer_unit(spec.unit, ask, output, units, custom)
        tolerance = self.tolerance(spec.tolerance)
        placeholders = self.placeholders(spec.prompt, ask, units)
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

    # formula ---------------------------------------------------------------------------------

    def custom_formula(self, spec: PackFormula, ask: str) -> CustomFormula | None:
        units: dict[str, str] = {}
        for name, unit in spec.symbols.items():
            if not is_name(name):
                self.issue(
                    "formula", _("symbols: {name} is not a valid name").format(name=repr(name))
                )
                continue
            try:
                unit_dimension(unit)
            except AnswerError as exc:
                self.issue("formula", f"symbols.{name}: {exc}")
                continue
            units[name] = unit
        output = spec.output or ask
        if not is_name(output):
            self.issue("formula", _("output: {name} is not a valid name").format(name=repr(output)))
            return None
        if output in units:
            self.issue(
                "formula",
                _("output {name} is also declared as an input symbol").format(name=repr(output)),
            )
        table = {name: sympy.Symbol(name, positive=True) for name in units}
        try:
            expr = parse_formula(spec.expr, _ExprNames(table))
        except FormulaError as exc:
            self.issue(
                "formula",
                _("expr, column {column}: {reason}").format(column=exc.column, reason=exc.message),
            )
            return None
        names = tuple(sorted(s.name for s in expr.free_symbols))
        symbols = {s.name: s for s in expr.free_symbols}
        for name in names:
            if name not in units:
                units[name] = _catalog_unit(name)
        if ask != output and ask not in names:
            self.issue(
                "ask",
                _("{ask} is neither the formula's output {output} nor one of its inputs").format(
                    ask=repr(ask), output=repr(output)
                ),
            )
        compiled = sympy.lambdify([symbols[n] for n in names], expr, modules="math")
        dimension = self.dimension(expr, units, "formula")
        try:
            output_unit = unit_of_dimension(dimension)
        except ValueError as exc:
            self.issue("formula", str(exc))
            output_unit = ""
        return CustomFormula(
            output=output,
            expr=expr,
            symbols=symbols,
            units={**units, output: output_unit},
            inputs=names,
            compiled=compiled,
        )

    def dimension(
        self, expr: sympy.Basic, units: Mapping[str, str], where: str
    ) -> frozenset[tuple[str, int]] | None:
        try:
            return expression_dimension(expr, units)
        except ValueError as exc:
            self.issue(where, str(exc))
            return None

    def unit_table(self, custom: CustomFormula | None) -> dict[str, str]:
        """Every name a value, constraint or placeholder may use -> its unit."""

        table = {name: symbol.unit for name, symbol in SYMBOLS.items()}
        if custom:
            table.update(custom.units)
        return table

    # vary and given ----------------------------------------------------------------------------

    def axes(
        self, vary: Mapping[str, Any], units: Mapping[str, str]
    ) -> tuple[tuple[Axis, ...], tuple[str, ...]]:
        axes: list[Axis] = []
        synthetic: tuple[str, ...] = ()
        for raw_name, raw in vary.items():
            name = self.name(raw_name, units, "vary")
            if name is None:
                continue
            where = f"vary.{raw_name}"
            if name == "model" and isinstance(raw, Mapping) and "synthetic" in raw:
                if set(raw) != {"synthetic"} or not isinstance(raw["synthetic"], Mapping):
                    self.issue(
                        "vary",
                        _("{where}: write `synthetic:` and the axes under it").format(where=where),
                    )
                    continue
                for sub_name, sub_raw in raw["synthetic"].items():
                    sub = self.name(sub_name, units, "vary")
                    if sub is None:
                        continue
                    axis = self.axis(sub, sub_raw, units, f"{where}.synthetic.{sub_name}")
                    if axis:
                        axes.append(axis)
                        synthetic += (axis.name,)
                continue
            axis = self.axis(name, raw, units, where)
            if axis:
                axes.append(axis)
        seen: set[str] = set()
        for axis in axes:
            if axis.name in seen:
                self.issue("vary", _("{name} is varied twice").format(name=axis.name))
            seen.add(axis.name)
        return tuple(axes), synthetic

    def name(self, raw_name: str, units: Mapping[str, str], where: str) -> str | None:
        """A vary/given key: a catalog axis, a catalog symbol (or alias), or a declared symbol."""
        if raw_name in CATALOG_AXES:
            return raw_name
        if raw_name == "models":
            return "model"
        if raw_name in units:
            return raw_name
        canonical = catalog_symbol(raw_name)
        if canonical:
            return canonical

        choices = [*CATALOG_AXES, *units]
        self.issue(
            where,
            _("unknown name {name}{hint}").format(
                name=repr(raw_name), hint=close_matches(raw_name, choices)
            ),
        )
        return None

    def axis(self, name: str, raw: Any, units: Mapping[str, str], where: str) -> Axis | None:
        try:
            if name == "model":
                return Axis(name, "model", select_models(raw))
            if name == "gpu":
                return Axis(name, "gpu", select_gpus(raw))
            if name in ("dtype", "kv_dtype"):
                return Axis(name, name, select_dtypes(raw))
            unit = "" if name == "tp" else units[name]
            kind = "tp" if name == "tp" else "symbol"
            if isinstance(raw, RangeSpec | Mapping):
                spec = raw if isinstance(raw, RangeSpec) else RangeSpec.model_validate(raw)
                return _range_axis(name, kind, spec, unit, where)
            values = raw if isinstance(raw, list) else [raw]
            if not values:
                raise ValueError(_("give at least one value"))
            choices: tuple[Any, ...] = tuple(
                _in_domain(name, read_value(v, unit, where)) for v in values
            )
            if kind == "tp":
                choices = tuple(_whole(q.value, where) for q in choices)
            return Axis(name, kind, choices)
        except (ValueError, UserError, ValidationError) as exc:
            self.issue("vary", _one_line(exc, where))
            return None

    def given(
        self,
        given: Mapping[str, Scalar],
        units: Mapping[str, str],
        fixed: dict[str, Any],
        varied: set[str],
    ) -> dict[str, Quantity]:
        values: dict[str, Quantity] = {}
        for raw_name, raw in given.items():
            name = self.name(raw_name, units, "given")
            if name is None:
                continue
            where = f"given.{raw_name}"
            if name in varied:
                self.issue("given", _("{name} is both varied and given").format(name=name))
                continue
            try:
                if name == "model":
                    fixed["model"] = select_models([raw])[0]
                elif name == "gpu":
                    fixed["gpu"] = select_gpus([raw])[0]
                elif name in ("dtype", "kv_dtype"):
                    fixed[name] = select_dtypes(raw)[0]
                elif name == "tp":
                    fixed["tp"] = _whole(read_value(raw, "", where).value, where)
                else:
                    values[name] = _in_domain(name, read_value(raw, units[name], where))
            except (ValueError, UserError) as exc:
                self.issue("given", _one_line(exc, where))
        return values

    # constraints -----------------------------------------------------------------------------

    def condition(self, text: str, names: set[str], units: Mapping[str, str]) -> Condition | None:
        source = NAMED_CONSTRAINTS.get(text.strip(), text)
        table = {name: sympy.Symbol(name, positive=True) for name in names}
        for unit in CONSTRAINT_UNITS:
            table.setdefault(unit, sympy.Symbol(f"unit:{unit}", positive=True))
        try:
            relation = parse_condition(source, _ExprNames(table))
        except FormulaError as exc:
            hint = (
                ""
                if "<" in text or ">" in text
                else _(" (named ones: {names})").format(names=", ".join(NAMED_CONSTRAINTS))
            )
            self.issue(
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
        left = self.dimension(relation.lhs, relation_units, "constraints")
        right = self.dimension(relation.rhs, relation_units, "constraints")
        if left is not None and right is not None and left != right and not is_zero(relation.rhs):
            if not right or not left:
                said = _(
                    "{constraint} compares {left} with {right}; write units as constants, "
                    "e.g. 70 * GB"
                )
            else:
                said = _("{constraint} compares {left} with {right}")
            self.issue(
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

    # answer ------------------------------------------------------------------------------------

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

    # prompt ------------------------------------------------------------------------------------

    def placeholders(
        self, prompt: str, ask: str, units: Mapping[str, str]
    ) -> tuple[tuple[str, str | None], ...]:
        if len(prompt) > MAX_PROMPT_CHARS:
            self.issue(
                "prompt", _("prompt is over {most} characters").format(most=MAX_PROMPT_CHARS)
            )
        found: list[tuple[str, str | None]] = []
        for match in iter_placeholders(prompt):
            if match is None:
                self.issue(
                    "prompt",
                    _(
                        "a lone {open} or {close}: write {open}{open} or {close}{close} for a "
                        "literal brace"
                    ).format(open="{", close="}"),
                )
                continue
            raw_name, unit = match
            name = raw_name if raw_name in SPECIAL_PLACEHOLDERS else catalog_symbol(raw_name)
            if name is None and raw_name in units:
                name = raw_name
            if name is None:
                self.issue(
                    "prompt",
                    _("placeholder {placeholder} names nothing this problem defines").format(
                        placeholder=f"{{{raw_name}}}"
                    ),
                )
                continue
            if name == ask:
                self.issue(
                    "prompt",
                    _("placeholder {placeholder} would show the answer").format(
                        placeholder=f"{{{raw_name}}}"
                    ),
                )
                continue
            if unit is not None:
                if name in SPECIAL_PLACEHOLDERS:
                    self.issue(
                        "prompt",
                        _("placeholder {placeholder} takes no unit").format(
                            placeholder=f"{{{raw_name}}}"
                        ),
                    )
                    continue
                try:
                    if unit_dimension(unit) != unit_dimension(units[name]):
                        self.issue(
                            "prompt",
                            _("placeholder {placeholder}: {unit} does not fit {name}").format(
                                placeholder=f"{{{raw_name}:{unit}}}", unit=unit, name=name
                            ),
                        )
                        continue
                except AnswerError as exc:
                    self.issue(
                        "prompt",
                        _("placeholder {placeholder}: {reason}").format(
                            placeholder=f"{{{raw_name}:{unit}}}", reason=exc
                        ),
                    )
                    continue
            found.append((name, unit))
        return tuple(dict.fromkeys(found))


_MODEL_SYMBOLS = frozenset(
    ("layers", "heads", "kv_heads", "head_dim", "hidden", "intermediate", "vocab", "kv_lora_rank")
)
_GPU_SYMBOLS = frozenset(("gpu_mem", "hbm_bandwidth"))


def _default_catalog_axes(
    catalog_formula: str | None,
    custom: CustomFormula | None,
    axes: tuple[Axis, ...],
    fixed: Mapping[str, Any],
    given: Mapping[str, Quantity],
    synthetic: bool,
) -> tuple[Axis, ...]:
    """Every model (GPU) of the catalog, when the formula needs one and none is picked."""

    named = {a.name for a in axes} | set(fixed) | set(given)
    overrides = {n: q.value for n, q in given.items() if catalog_symbol(n)}
    overrides.update({a.name: 1.0 for a in axes if a.kind == "symbol" and catalog_symbol(a.name)})
    values = inputs_from(None, None, overrides=overrides)
    if custom is not None:
        missing = {n for n in custom.inputs if n not in values}
    elif catalog_formula is not None:
        missing = set(missing_inputs(catalog_formula, values))
    else:
        return ()
    extra: list[Axis] = []
    if "model" not in named and not synthetic and missing & _MODEL_SYMBOLS:
        extra.append(Axis("model", "model", select_models("all")))
    if "gpu" not in named and missing & _GPU_SYMBOLS:
        extra.append(Axis("gpu", "gpu", select_gpus("all")))
    return tuple(extra)


# names a placeholder may use besides symbols
# --- small pieces ------------------------------------------------------------------------------


class _ExprNames(dict):
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


def _catalog_unit(name: str) -> str:
    return SYMBOLS[name].unit


def _one_line(exc: Exception, where: str) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        location = ".".join(str(p) for p in first["loc"])
        if first["type"] == "extra_forbidden":
            return _("{where}: unknown field {field} (a range has from, to, step)").format(
                where=where, field=repr(location)
            )
        return f"{where}: {location}: {first['msg']}" if location else f"{where}: {first['msg']}"
    text = str(exc)
    return text if text.startswith(where) else f"{where}: {text}"


def _in_domain(name: str, quantity: Quantity) -> Quantity:
    """The value, if a catalog symbol can take it (no 0 layers, no utilization above 1)."""
    if name in SYMBOLS:
        check_symbol_value(name, quantity.value)
    return quantity


def _whole(value: float, where: str) -> int:
    if value != int(value) or value < 1:
        raise ValueError(f"{where}: {value:g} is not a whole number of at least 1")
    return int(value)


def _range_axis(name: str, kind: str, spec: RangeSpec, unit: str, where: str) -> Axis:
    start = _in_domain(name, read_value(spec.start, unit, where))
    stop = _in_domain(name, read_value(spec.to, unit, where))
    step = read_value(spec.step, unit, where)
    if step.value <= 0:
        raise ValueError(f"{where}: step must be positive")
    if stop.value < start.value:
        raise ValueError(f"{where}: `to` is below `from`")
    count = int((stop.value - start.value) / step.value * (1 + 1e-12)) + 1
    if count > MAX_AXIS_CHOICES:
        raise ValueError(
            f"{where}: the range spans {count:,} values (at most {MAX_AXIS_CHOICES:,})"
        )
    display = start.display_unit or stop.display_unit
    if kind == "tp":
        values = tuple(_whole(start.value + i * step.value, where) for i in range(count))
        return Axis(name, kind, values)
    return Axis(name, kind, (), start.value, step.value, count, display)


def _dedupe(issues: list[Issue]) -> list[Issue]:
    return list(dict.fromkeys(issues))


# --- public API --------------------------------------------------------------------------------


def compile_problem(raw: Mapping[str, Any]) -> Problem:
    """Check and compile a problem block's YAML mapping; ProblemSpecError lists every issue."""
    if not isinstance(raw, Mapping):
        raise ProblemSpecError([Issue("problem", "a problem block is a YAML mapping")])
    return _Compiler(raw).compile()


__all__ = [
    "NAMED_CONSTRAINTS",
    "Axis",
    "Condition",
    "CustomFormula",
    "Issue",
    "Problem",
    "ProblemSpec",
    "ProblemSpecError",
    "compile_problem",
]
