"""``kvdrill calc``: evaluate (or solve) one formula of the catalog for a model, GPU and precision."""

from __future__ import annotations

import argparse
import json

from kvdrill.i18n import N_, _

# The commands of --help's examples, as typed (no words to translate).
EXAMPLES = """\
  kvdrill calc kv_bytes_per_token --model llama-3.1-8b --unit KiB
  kvdrill calc weight_bytes --model llama-3.1-70b --dtype fp8 --unit GB
  kvdrill calc decode_floor_time --model llama-3.1-70b --gpu h100-sxm --tp 2 \\
      --unit ms
  kvdrill calc max_concurrency --model llama-3.1-8b --set pool=54.8GiB \\
      --set max_model_len=131072
  kvdrill calc requests_that_fit --set kv_pool_tokens=533k \\
      --set request_tokens=7000
  kvdrill calc max_model_len --model llama-3.1-8b --set pool=54.8GiB \\
      --set max_concurrency=10
  kvdrill calc max_concurrency --model llama-3.1-8b --gpu h100-sxm \\
      --set max_model_len=131072
  kvdrill calc prefill_flops --model llama-3.1-8b --set prompt_tokens=1000
  kvdrill calc acceptance_rate --set speculative_expected_tokens=3 \\
      --set draft_tokens=4
"""
# Hand-wrapped to 80 columns, as argparse prints an epilog as written.
QUANTITY_NOTE = N_(
    "QUANTITY is a formula name (see --list) or, to solve backwards, an input of a\n"
    "formula whose result you give with --set. Values without a unit are in bytes,\n"
    "seconds or tokens."
)


def register(subparsers) -> None:
    from kvdrill.app.commands.completes import completes

    parser = subparsers.add_parser(
        "calc",
        help=_("capacity calculator: KV per token, weights, decode floor, pool, concurrency"),
        description=_("Evaluate one serving formula for a model, GPU and precision."),
        epilog=_("examples:") + "\n" + EXAMPLES + _(QUANTITY_NOTE),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("quantity", nargs="?", metavar="QUANTITY", help=_("what to compute"))
    completes(
        parser.add_argument("--model", metavar="ID", help=_("model id or alias (kvdrill models)")),
        "models",
    )
    completes(
        parser.add_argument("--gpu", metavar="ID", help=_("GPU id or alias (kvdrill gpus)")),
        "gpus",
    )
    parser.add_argument(
        "--dtype", default="bf16", metavar="D", help=_("weights: bf16 fp8 int4 ...")
    )
    parser.add_argument("--kv-dtype", metavar="D", help=_("KV cache dtype (default: 16-bit)"))
    parser.add_argument("--tp", type=int, default=1, metavar="N", help=_("tensor-parallel GPUs"))
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=_("set a symbol, with a unit if you like: --set pool=54.8GiB (repeatable)"),
    )
    parser.add_argument("--unit", metavar="U", help=_("show the result in this unit (KiB, GB, ms)"))
    parser.add_argument("--explain", action="store_true", help=_("show formula and substitution"))
    parser.add_argument("--json", action="store_true", help=_("print one JSON object"))
    parser.add_argument("--list", action="store_true", help=_("list the quantities and symbols"))
    parser.set_defaults(func=run)


def _unit_word(unit: str) -> str:
    """A symbol's unit as --list shows it: units stay as typed, "dimensionless" is a word."""
    return _("dimensionless") if unit == "dimensionless" else unit


def _pint_unit(unit: str) -> str:
    return "" if unit == "dimensionless" else unit


def _parse_sets(pairs: list[str]) -> dict[str, float]:
    from kvdrill.engine.capacity.compute import symbol_value
    from kvdrill.engine.errors import UserError

    values: dict[str, float] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise UserError(_("--set wants NAME=VALUE, got {pair}").format(pair=repr(pair)))
        try:
            symbol, value = symbol_value(name, text)
        except UserError as exc:
            raise UserError(f"--set {exc}") from None
        values[symbol] = value
    return values


def _list(as_json: bool = False) -> int:
    from kvdrill.engine.capacity.formulas import ALIASES, FORMULAS, SYMBOLS

    if as_json:
        payload = {
            "quantities": [
                {"name": f.name, "output": f.output, "unit": f.unit, "description": f.description}
                for f in FORMULAS.values()
            ],
            "symbols": [
                {"name": s.name, "unit": s.unit, "description": s.description}
                for s in SYMBOLS.values()
            ],
            "aliases": ALIASES,
        }
        print(json.dumps(payload, indent=2))
        return 0
    from kvdrill.app.text_table import table_lines

    print(_("Quantities (formula: description):"))
    rows = [[f.name, f"[{_unit_word(f.unit)}] {_(f.description)}"] for f in FORMULAS.values()]
    print("\n".join(table_lines(rows, indent="  ")))
    print("\n" + _("Symbols for --set (unit: description):"))
    rows = [[s.name, f"[{_unit_word(s.unit)}] {_(s.description)}"] for s in SYMBOLS.values()]
    print("\n".join(table_lines(rows, indent="  ")))
    return 0


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.shown_numbers import figure
    from kvdrill.engine.capacity.catalog import get_gpu, get_model
    from kvdrill.engine.capacity.compute import compute
    from kvdrill.engine.capacity.forward import SYMBOLS, default_kv_dtype, humanize
    from kvdrill.engine.capacity.units import convert, format_quantity
    from kvdrill.engine.errors import UserError

    if args.list:
        return _list(as_json=args.json)
    if not args.quantity:
        raise UserError(_("name a QUANTITY to compute (kvdrill calc --list shows them)"))
    if args.tp < 1:
        raise UserError(_("--tp must be at least 1"))
    # An empty value (--model "" from an unset shell variable) is a mistake, not "no model".
    for option, given in (
        ("--model", args.model),
        ("--gpu", args.gpu),
        ("--kv-dtype", args.kv_dtype),
        ("--unit", args.unit),
    ):
        if given is not None and not given.strip():
            raise UserError(
                _("{option} needs a value (it was given an empty one)").format(option=option)
            )
    model = get_model(args.model) if args.model is not None else None
    gpu = get_gpu(args.gpu) if args.gpu is not None else None
    result = compute(
        args.quantity,
        model=model,
        gpu=gpu,
        dtype=args.dtype,
        kv_dtype=args.kv_dtype,
        tp=args.tp,
        overrides=_parse_sets(args.sets),
        number=figure,
    )
    shown_value, shown_unit = result.value, result.unit
    if args.unit is not None:
        try:
            shown_value = convert(result.value, _pint_unit(result.unit), args.unit)
        except UserError as exc:
            raise UserError(f"--unit: {exc}") from None
        shown_unit = args.unit
    # The engineering form for --json (what --set and an answer take), the reader's for the line.
    if args.unit is not None:
        text = format_quantity(shown_value, shown_unit)
        shown = format_quantity(shown_value, shown_unit, number=figure)
    else:
        text = humanize(result.value, result.unit)
        shown = humanize(result.value, result.unit, number=figure)

    if args.json:
        payload = {
            "quantity": result.quantity,
            "formula": result.formula,
            "value": shown_value,
            "unit": shown_unit,
            "text": text,
            "value_si": result.value,
            "unit_si": result.unit,
            "solved_for": result.solved_for,
            "expression": _formula(result.formula).text,
            "inputs": result.inputs,
            "input_units": {s: SYMBOLS[s].unit for s in result.inputs},
            "model": model.id if model else None,
            "gpu": gpu.id if gpu else None,
            "dtype": args.dtype,
            "kv_dtype": args.kv_dtype or default_kv_dtype(args.dtype),
            "tp": args.tp,
        }
        print(json.dumps(payload, indent=2))
        return 0
    if args.explain and result.solved_for is None:
        from kvdrill.engine.capacity.formulas import explain

        # The formula and its numbers; the result line below says the result, once.
        formula_line, numbers_line, _result_line = explain(
            result.formula, result.all_inputs
        ).splitlines()
        print(formula_line)
        print(numbers_line)
    elif args.explain:
        print(_formula(result.formula).text)
        print(
            _("solved for {name} with {inputs}").format(
                name=result.solved_for, inputs=_inputs_line(result.inputs)
            )
        )
    print(f"{result.quantity} = {shown}")
    return 0


def _formula(name: str):
    """The sympy form of a formula, for --explain and --json (sympy is imported only then)."""
    from kvdrill.engine.capacity.formulas import FORMULAS

    return FORMULAS[name]


def _inputs_line(values: dict[str, float]) -> str:
    from kvdrill.engine.capacity.units import format_number

    return ", ".join(f"{k}={format_number(v)}" for k, v in values.items())
