"""Answer one question of the formula catalog: evaluate a quantity, or solve back for an input.

This is what ``kvdrill calc`` does, as a pure function other parts can share (claim checks):

- ``symbol_value(name, text) -> tuple[str, float]``: a ``--set name=value`` pair read with the
  project's units ("54.8GiB", "90%", "533k"), as (canonical symbol, value in its base unit).
  A bare number is already in the symbol's own unit (bytes, seconds, tokens). A value outside
  the symbol's domain (a negative size, 0 layers, TP 2.5, utilization above 100 %) is refused.
- ``check_symbol_value(symbol, value)``: that domain check alone, for values given as numbers.
- ``compute(quantity, *, model=None, gpu=None, dtype="bf16", kv_dtype=None, tp=1,
  overrides=None) -> Result``: QUANTITY is a formula name or alias (the model picks the MLA or
  sliding-window variant), or an input of a formula whose result is among ``overrides``, which
  is then solved for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kvdrill.engine.capacity.catalog import (
    GpuSpec,
    ModelSpec,
    close_matches,
    get_gpu,
    get_model,
    quoted,
)
from kvdrill.engine.capacity.forward import (
    ALIASES,
    FORMULA_NAMES,
    LISTED,
    QUANTITIES,
    SIGNATURES,
    SYMBOLS,
    canonical_symbol,
    evaluate,
    humanize,
    inputs_from,
    inputs_of,
    missing_inputs,
    output_of,
    variant_for,
)
from kvdrill.engine.capacity.units import format_number
from kvdrill.engine.errors import UserError
from kvdrill.i18n import N_, _


@dataclass(frozen=True)
class Result:
    quantity: str  # what was asked: a formula's output, or the input solved for
    formula: str  # the formula (variant) used
    value: float  # in ``unit``, SI base
    unit: str  # the quantity's unit in SYMBOLS ("byte", "token", "s", ...)
    solved_for: str | None  # the input solved for, or None for a plain evaluation
    inputs: dict[str, float]  # the values the formula used (its output too, when solving)
    all_inputs: dict[str, float]  # every symbol value known (for explain)


# Results that may be negative: a change can cost capacity (lower utilization, wider dtype).
_SIGNED = frozenset({"extra_kv_tokens", "kv_dtype_gain_tokens", "weight_quant_gain_tokens"})
# Room left after the weights: a negative value means the model does not fit at all.
_CAPACITIES = frozenset(
    {
        "kv_pool_bytes",
        "kv_pool_tokens",
        "max_concurrency",
        "requests_that_fit",
        "sessions_that_fit",
        "kv_dtype_gain_tokens",
    }
)
# Fractions, with what they are a fraction of: above 1 is not a setting vLLM takes, nor a chance.
_FRACTIONS = {
    "gpu_util": N_("a fraction of GPU memory"),
    "new_gpu_util": N_("a fraction of GPU memory"),
    "acceptance_rate": N_("a probability"),
}


def check_symbol_value(symbol: str, value: float) -> None:
    """Refuse a value no real deployment has, before it yields a negative or absurd figure."""
    spec = SYMBOLS[symbol]
    shown = format_number(value)
    if symbol in _SIGNED:
        return
    if symbol in QUANTITIES or spec.can_be_zero:
        if value < 0:
            raise UserError(
                _("{symbol} cannot be negative, got {value}").format(symbol=symbol, value=shown)
            )
    elif value <= 0:
        raise UserError(
            _("{symbol} must be more than 0, got {value}").format(symbol=symbol, value=shown)
        )
    if spec.integer and abs(value - round(value)) > 1e-9 * max(1.0, abs(value)):
        raise UserError(
            _("{symbol} must be a whole number, got {value}").format(symbol=symbol, value=shown)
        )
    if symbol in _FRACTIONS and value > 1:
        raise UserError(
            _("{symbol} is {what}, at most 1 (100%), got {value}").format(
                symbol=symbol, what=_(_FRACTIONS[symbol]), value=shown
            )
        )
    if symbol == "acceptance_rate" and value == 1:
        raise UserError(
            _(
                "acceptance_rate must be below 1: (1 - a^(k+1)) / (1 - a) divides by zero there "
                "(a draft always accepted yields draft_tokens + 1 tokens)"
            )
        )


# What to suggest typing for a value of each unit: a count (layers, heads, tokens) is a plain
# number; a size, a time or a rate is a number with its unit.
_TYPING_EXAMPLES = {
    "byte": "something like 128 KiB",
    "byte/s": "something like 3.35 TB/s",
    "s": "something like 20 ms",
}


def symbol_value(name: str, text: str) -> tuple[str, float]:
    """(canonical symbol, value in its base unit) for one ``name=value`` setting."""
    from kvdrill.engine.capacity.units import convert, read_quantity_parts

    symbol = canonical_symbol(name)
    unit = SYMBOLS[symbol].unit
    example = _TYPING_EXAMPLES.get(unit, "a plain number like 32")
    try:
        read = read_quantity_parts(text, example)
        if not read.unit_text:
            value = read.value
        else:
            value = convert(read.value, read.unit_text, "" if unit == "dimensionless" else unit)
    except UserError as exc:
        raise UserError(f"{name.strip()}: {exc}") from None
    check_symbol_value(symbol, value)
    return symbol, value


def _resolve(
    quantity: str, spec: ModelSpec | None, given: Mapping[str, float]
) -> tuple[str, str | None]:
    """(formula name, input to solve for or None) for what was asked."""
    key = quantity.strip().lower().replace("-", "_")
    key = ALIASES.get(key, key)
    if key in SIGNATURES:
        return variant_for(key, spec, given), None
    if key not in SYMBOLS:
        choices = [*FORMULA_NAMES, *SYMBOLS, *ALIASES]
        raise UserError(
            _("unknown quantity {quantity}{hint}").format(
                quantity=quoted(quantity), hint=close_matches(key, choices, LISTED)
            )
        )
    candidates = [
        variant_for(output, spec, given)
        for output in QUANTITIES
        if output in given and key in inputs_of(variant_for(output, spec, given))
    ]
    if not candidates:
        users = dict.fromkeys(
            sorted(output for output, symbols in SIGNATURES.values() if key in symbols)
        )
        raise UserError(
            _(
                "{symbol} is an input: to solve for it, set the result of a formula that uses "
                "it ({formulas})"
            ).format(symbol=key, formulas=", ".join(users))
        )
    return candidates[0], key


def compute(
    quantity: str,
    *,
    model: str | ModelSpec | None = None,
    gpu: str | GpuSpec | None = None,
    dtype: str = "bf16",
    kv_dtype: str | None = None,
    tp: int = 1,
    overrides: Mapping[str, float] | None = None,
    number: Callable[[float], str] = format_number,
) -> Result:
    """Evaluate ``quantity`` (or solve for it) from catalog picks and symbol overrides.
    ``number`` writes the figures of a refusal (the app passes the reader's convention)."""
    if tp < 1:
        raise UserError(_("tp must be at least 1"))
    spec = get_model(model) if isinstance(model, str) else model
    card = get_gpu(gpu) if isinstance(gpu, str) else gpu
    given = {canonical_symbol(k): float(v) for k, v in (overrides or {}).items()}
    for symbol, value in given.items():
        check_symbol_value(symbol, value)
    inputs = inputs_from(spec, card, dtype, kv_dtype, tp, given)
    name, solve_symbol = _resolve(quantity, spec, given)
    output, symbols = output_of(name), inputs_of(name)
    if solve_symbol is None:
        missing = missing_inputs(name, inputs, spec)
        if missing:
            raise UserError(
                _("{output} needs {missing}: pick a model/GPU or set them").format(
                    output=output, missing=", ".join(missing)
                )
            )
        used = {s: inputs[s] for s in symbols}
        value = evaluate(name, inputs)
        unit = SYMBOLS[output].unit
        pool = inputs.get("kv_pool_bytes", value)
        if value < 0 and output in _CAPACITIES and pool < 0:
            raise UserError(
                _(
                    "the weights do not fit: {output} would be {value} (the pool left per GPU "
                    "is {pool}); try more GPUs (tp), a smaller weight dtype or a bigger GPU"
                ).format(
                    output=output,
                    value=humanize(value, unit, number),
                    pool=humanize(pool, "byte", number),
                )
            )
        return Result(output, name, value, unit, None, used, inputs)
    # Solving needs sympy: imported only here, so a forward evaluation stays light.
    from kvdrill.engine.capacity.formulas import solve_for

    known = {k: v for k, v in inputs.items() if k != solve_symbol}
    value = solve_for(name, solve_symbol, known)
    used = {s: known[s] for s in (output, *symbols) if s != solve_symbol}
    unit = SYMBOLS[solve_symbol].unit
    return Result(solve_symbol, name, value, unit, solve_symbol, used, known)
