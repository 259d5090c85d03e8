"""How a drawn variant shows its values: units, rounding, the model's description.

``Draw`` holds one attempt's inputs and computed values; ``show`` gives a value's display text
('128 KiB', '80 GB', '1,800', '0.9'), in the unit the author wrote, by convention
(``DISPLAY_UNITS``) or by size. ``as_shown`` rounds a value the way the prompt prints it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kvdrill.engine.capacity.formulas import SYMBOLS
from kvdrill.engine.capacity.units import format_number, format_quantity
from kvdrill.engine.problems.quantities import pint_unit, unit_dimension, unit_factor
from kvdrill.engine.problems.template_types import DrawingError, Problem
from kvdrill.i18n import _

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


@dataclass
class Draw:
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


def unit_of(problem: Problem, name: str) -> str:
    if problem.custom is not None and name in problem.custom.units:
        return problem.custom.units[name]
    return SYMBOLS[name].unit if name in SYMBOLS else ""


def display_unit(problem: Problem, draw: Draw, name: str, value: float) -> str:
    """The unit a value is shown in: as written by the author, by convention, or by size."""
    if name in draw.shown_units:
        return draw.shown_units[name]
    if name == problem.ask:
        return problem.unit
    if name in DISPLAY_UNITS:
        return DISPLAY_UNITS[name]
    unit = pint_unit(unit_of(problem, name))
    if unit == "byte":
        return next((u for u, size in _BINARY_UNITS if abs(value) >= size), "B")
    if unit == "s":
        return "ms" if abs(value) < 1 else "s"
    if unit == "byte/s":
        return "TB/s"
    if problem.custom is not None and name in problem.custom.units and unit_dimension(unit):
        return _PLURAL_RATES.get(unit, unit)
    return ""  # counts: tokens, requests, layers... shown as plain numbers


# A rate is read aloud in the plural: "6 requests/s", not "6 request/s".
_PLURAL_RATES = {"request/s": "requests/s", "token/s": "tokens/s"}


def show(problem: Problem, draw: Draw, name: str, unit: str | None = None) -> str:
    """Display text of a value: '128 KiB', '80 GB', '1,800', '0.9'."""

    text = draw.texts.get((name, unit))
    if text is None:
        value = draw.values[name]
        shown_unit = unit if unit is not None else display_unit(problem, draw, name, value)
        text = format_quantity(value / unit_factor(shown_unit), shown_unit, DISPLAY_FIGURES)
        draw.texts[(name, unit)] = text
    return text


def as_shown(problem: Problem, draw: Draw, name: str, value: float) -> float:
    """``value`` rounded as the prompt will show it, so the learner and the key agree."""

    unit = display_unit(problem, draw, name, value)
    factor = unit_factor(unit)
    text = format_number(value / factor, DISPLAY_FIGURES).replace(",", "")
    try:
        return float(text) * factor
    except ValueError:
        return value


def special_text(problem: Problem, draw: Draw, name: str) -> str | None:
    if name == "model":
        if draw.model is not None:
            return draw.model.name
        return synthetic_model(problem, draw)
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


def synthetic_model(problem: Problem, draw: Draw) -> str:
    parts = [
        words.format(format_number(draw.values[name]))
        for name, words in _ARCHITECTURE_WORDS
        if name in draw.values and (name in problem.synthetic_model or name in problem.given)
    ]
    return "a model with " + ", ".join(parts) if parts else "a model"


def placeholder_texts(problem: Problem, draw: Draw) -> dict[tuple[str, str | None], str]:
    texts: dict[tuple[str, str | None], str] = {}
    for name, unit in problem.placeholders:
        text = special_text(problem, draw, name)
        if text is None:
            if name not in draw.values:
                raise DrawingError(
                    _("placeholder {placeholder} has no value in this problem").format(
                        placeholder=f"{{{name}}}"
                    ),
                    "prompt",
                )
            text = show(problem, draw, name, unit)
        texts[(name, unit)] = text
    return texts
