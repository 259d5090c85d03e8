"""The inputs of a problem block: ``vary`` expanded into axes (catalog models, GPUs and dtypes,
lists and ranges of values) and ``given`` values converted to base units (bytes, seconds,
counts); the catalog's models and GPUs as axes when the formula needs one and none is picked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from kvdrill.engine.capacity.catalog import close_matches
from kvdrill.engine.capacity.compute import check_symbol_value
from kvdrill.engine.capacity.formulas import SYMBOLS, inputs_from, missing_inputs
from kvdrill.engine.errors import UserError
from kvdrill.engine.problems.quantities import Quantity, Scalar, catalog_symbol, read_value
from kvdrill.engine.problems.selectors import select_dtypes, select_gpus, select_models
from kvdrill.engine.problems.template_fields import (
    CATALOG_AXES,
    MAX_AXIS_CHOICES,
    RangeSpec,
    field_message,
)
from kvdrill.engine.problems.template_types import Axis, CustomFormula, IssueSink
from kvdrill.i18n import _


def vary_axes(
    vary: Mapping[str, Any], units: Mapping[str, str], issue: IssueSink
) -> tuple[tuple[Axis, ...], tuple[str, ...]]:
    """The axes of ``vary``, and the names of those a synthetic model has."""
    axes: list[Axis] = []
    synthetic: tuple[str, ...] = ()
    for raw_name, raw in vary.items():
        name = input_name(raw_name, units, "vary", issue)
        if name is None:
            continue
        where = f"vary.{raw_name}"
        if name == "model" and isinstance(raw, Mapping) and "synthetic" in raw:
            if set(raw) != {"synthetic"} or not isinstance(raw["synthetic"], Mapping):
                issue(
                    "vary",
                    _("{where}: write `synthetic:` and the axes under it").format(where=where),
                )
                continue
            for sub_name, sub_raw in raw["synthetic"].items():
                sub = input_name(sub_name, units, "vary", issue)
                if sub is None:
                    continue
                axis = _axis(sub, sub_raw, units, f"{where}.synthetic.{sub_name}", issue)
                if axis:
                    axes.append(axis)
                    synthetic += (axis.name,)
            continue
        axis = _axis(name, raw, units, where, issue)
        if axis:
            axes.append(axis)
    seen: set[str] = set()
    for axis in axes:
        if axis.name in seen:
            issue("vary", _("{name} is varied twice").format(name=axis.name))
        seen.add(axis.name)
    return tuple(axes), synthetic


def input_name(raw_name: str, units: Mapping[str, str], where: str, issue: IssueSink) -> str | None:
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
    issue(
        where,
        _("unknown name {name}{hint}").format(
            name=repr(raw_name), hint=close_matches(raw_name, choices)
        ),
    )
    return None


def _axis(
    name: str, raw: Any, units: Mapping[str, str], where: str, issue: IssueSink
) -> Axis | None:
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
        issue("vary", _one_line(exc, where))
        return None


def given_values(
    given: Mapping[str, Scalar],
    units: Mapping[str, str],
    fixed: dict[str, Any],
    varied: set[str],
    issue: IssueSink,
) -> dict[str, Quantity]:
    """The symbol values of ``given`` in base units; catalog axes given go into ``fixed``."""
    values: dict[str, Quantity] = {}
    for raw_name, raw in given.items():
        name = input_name(raw_name, units, "given", issue)
        if name is None:
            continue
        where = f"given.{raw_name}"
        if name in varied:
            issue("given", _("{name} is both varied and given").format(name=name))
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
            issue("given", _one_line(exc, where))
    return values


_MODEL_SYMBOLS = frozenset(
    ("layers", "heads", "kv_heads", "head_dim", "hidden", "intermediate", "vocab", "kv_lora_rank")
)
_GPU_SYMBOLS = frozenset(("gpu_mem", "hbm_bandwidth"))


def default_catalog_axes(
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


def _one_line(exc: Exception, where: str) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        location = ".".join(str(p) for p in first["loc"])
        if first["type"] == "extra_forbidden":
            return _("{where}: unknown field {field} (a range has from, to, step)").format(
                where=where, field=repr(location)
            )
        message = field_message(first)  # a missing field's message names it
        if location and first["type"] != "missing":
            return f"{where}: {location}: {message}"
        return f"{where}: {message}"
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
