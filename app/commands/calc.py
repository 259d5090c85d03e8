"""``kvdrill calc``: evaluate (or solve) one formula of the catalog for a model, GPU and precision."""

from __future__ import annotations

import argparse
import json

EPILOG = """\
examples:
  kvdrill calc kv_bytes_per_token --model llama-3.1-8b --unit KiB
  kvdrill calc weight_bytes --model llama-3.1-70b --dtype fp8 --unit GB
  kvdrill calc decode_floor_time --model llama-3.1-70b --gpu h100-sxm --tp 2 --unit ms
  kvdrill calc max_concurrency --model llama-3.1-8b --set pool=54.8GiB --set max_model_len=131072
  kvdrill calc requests_that_fit --set kv_pool_tokens=533k --set request_tokens=7000
  kvdrill calc max_model_len --model llama-3.1-8b --set pool=54.8GiB --set max_concurrency=10
QUANTITY is a formula name (see --list) or, to solve backwards, an input of a formula whose
result you give with --set. Values without a unit are in bytes, seconds or tokens."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "calc",
        help="capacity calculator: KV per token, weights, decode floor, pool, concurrency",
        description="Evaluate one serving formula for a model, GPU and precision.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("quantity", nargs="?", metavar="QUANTITY", help="what to compute")
    parser.add_argument("--model", metavar="ID", help="model id or alias (kvdrill models)")
    parser.add_argument("--gpu", metavar="ID", help="GPU id or alias (kvdrill gpus)")
    parser.add_argument("--dtype", default="bf16", metavar="D", help="weights: bf16 fp8 int4 ...")
    parser.add_argument("--kv-dtype", metavar="D", help="KV cache dtype (default: 16-bit)")
    parser.add_argument("--tp", type=int, default=1, metavar="N", help="tensor-parallel GPUs")
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a symbol, with a unit if you like: --set pool=54.8GiB (repeatable)",
    )
    parser.add_argument("--unit", metavar="U", help="show the result in this unit (KiB, GB, ms)")
    parser.add_argument("--explain", action="store_true", help="show formula and substitution")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--list", action="store_true", help="list the quantities and symbols")
    parser.set_defaults(func=run)


def _pint_unit(unit: str) -> str:
    return "" if unit == "dimensionless" else unit


def _parse_sets(pairs: list[str]) -> dict[str, float]:
    from engine.errors import UserError
    from engine.formulas import SYMBOLS, canonical_symbol
    from engine.units import convert, read_quantity_parts

    values: dict[str, float] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise UserError(f"--set wants NAME=VALUE, got {pair!r}")
        symbol = canonical_symbol(name)
        try:
            read = read_quantity_parts(text)
            # A bare number is already in the symbol's own unit (bytes, seconds, tokens).
            value = read.value
            if read.unit_text:
                value = convert(read.value, read.unit_text, _pint_unit(SYMBOLS[symbol].unit))
        except UserError as exc:
            raise UserError(f"--set {name.strip()}: {exc}") from None
        values[symbol] = value
    return values


def _resolve(quantity: str, model, known: dict[str, float]) -> tuple[str, str | None]:
    """(formula name, symbol to solve for or None) for what the user asked."""
    from engine.catalog import close_matches
    from engine.errors import UserError
    from engine.formulas import ALIASES, FORMULAS, QUANTITIES, SYMBOLS, variant_for

    key = quantity.strip().lower().replace("-", "_")
    key = ALIASES.get(key, key)
    if key in FORMULAS:
        return (variant_for(key, model, known), None)
    if key not in SYMBOLS:
        choices = [*FORMULAS, *SYMBOLS, *ALIASES]
        raise UserError(f"unknown quantity {quantity!r}{close_matches(key, choices)}")
    candidates = [
        variant_for(name, model, known)
        for name in QUANTITIES
        if name in known and key in FORMULAS[variant_for(name, model, known)].symbols
    ]
    if not candidates:
        users = sorted(f.output for f in FORMULAS.values() if key in f.symbols)
        raise UserError(
            f"{key} is an input: to solve for it, --set the result of a formula that uses it "
            f"({', '.join(dict.fromkeys(users))})"
        )
    return (candidates[0], key)


def _list() -> int:
    from engine.formulas import FORMULAS, SYMBOLS

    print("Quantities (formula: description):")
    for formula in FORMULAS.values():
        print(f"  {formula.name:<26} [{formula.unit}] {formula.description}")
    print("\nSymbols for --set (unit: description):")
    for symbol in SYMBOLS.values():
        print(f"  {symbol.name:<26} [{symbol.unit}] {symbol.description}")
    return 0


def run(args: argparse.Namespace) -> int:
    from engine.catalog import get_gpu, get_model
    from engine.errors import UserError
    from engine.formulas import (
        FORMULAS,
        SYMBOLS,
        default_kv_dtype,
        evaluate,
        explain,
        humanize,
        inputs_from,
        missing_inputs,
        solve_for,
    )
    from engine.units import convert, format_quantity

    if args.list:
        return _list()
    if not args.quantity:
        raise UserError("name a QUANTITY to compute (kvdrill calc --list shows them)")
    if args.tp < 1:
        raise UserError("--tp must be at least 1")
    model = get_model(args.model) if args.model else None
    gpu = get_gpu(args.gpu) if args.gpu else None
    overrides = _parse_sets(args.sets)
    inputs = inputs_from(model, gpu, args.dtype, args.kv_dtype, args.tp, overrides)
    name, solve_symbol = _resolve(args.quantity, model, overrides)
    formula = FORMULAS[name]

    if solve_symbol is None:
        missing = missing_inputs(name, inputs, model)
        if missing:
            raise UserError(
                f"{formula.output} needs {', '.join(missing)}: "
                "give --model/--gpu or --set NAME=VALUE"
            )
        value = evaluate(name, inputs)
        asked, unit = formula.output, formula.unit
        used = {s: inputs[s] for s in formula.symbols}
    else:
        known = {k: v for k, v in inputs.items() if k != solve_symbol}
        value = solve_for(name, solve_symbol, known)
        asked, unit = solve_symbol, SYMBOLS[solve_symbol].unit
        used = {s: known[s] for s in (formula.output, *formula.symbols) if s != solve_symbol}

    shown_value, shown_unit = value, unit
    if args.unit:
        try:
            shown_value = convert(value, _pint_unit(unit), args.unit)
        except UserError as exc:
            raise UserError(f"--unit {args.unit}: {exc}") from None
        shown_unit = args.unit
    text = format_quantity(shown_value, shown_unit) if args.unit else humanize(value, unit)

    if args.json:
        payload = {
            "quantity": asked,
            "formula": name,
            "value": shown_value,
            "unit": shown_unit,
            "text": text,
            "value_si": value,
            "unit_si": unit,
            "solved_for": solve_symbol,
            "expression": formula.text,
            "inputs": used,
            "input_units": {s: SYMBOLS[s].unit for s in used},
            "model": model.id if model else None,
            "gpu": gpu.id if gpu else None,
            "dtype": args.dtype,
            "kv_dtype": args.kv_dtype or default_kv_dtype(args.dtype),
            "tp": args.tp,
        }
        print(json.dumps(payload, indent=2))
        return 0
    if args.explain:
        if solve_symbol is None:
            print(explain(name, inputs))
        else:
            print(formula.text)
            print(f"solved for {solve_symbol} with " + _inputs_line(used))
    print(f"{asked} = {text}")
    return 0


def _inputs_line(values: dict[str, float]) -> str:
    from engine.units import format_number

    return ", ".join(f"{k}={format_number(v)}" for k, v in values.items())
