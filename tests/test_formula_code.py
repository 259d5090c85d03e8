"""The plain-Python formulas ``kvdrill calc`` evaluates are the sympy formulas, and stay so.

engine/capacity/formula_code.py is generated from engine/capacity/formulas.py: it must be what
the generator writes today (else a formula changed without regenerating), and every function
must give what sympy gives for the same inputs, for every catalog model and GPU.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

from kvdrill.engine.capacity.catalog import gpus, models
from kvdrill.engine.capacity.formula_code import FUNCTIONS, SIGNATURES
from kvdrill.engine.capacity.formulas import FORMULAS, QUANTITIES, inputs_from

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "scripts" / "generate_formula_code.py"

# Inputs no catalog entry gives, so that every formula has a value to compare.
SCENARIO = {
    "seq_tokens": 8192,
    "request_tokens": 1800,
    "prompt_tokens": 1000,
    "new_gpu_util": 0.95,
    "draft_tokens": 4,
    "acceptance_rate": 0.7,
    "arrival_rate": 12.5,
    "latency": 2.4,
    "gpus": 8,
    "price_per_gpu_hour": 2.5,
    "tokens_per_second": 25000,
    "unquantized_bits": 16,
}


def _generator():
    spec = importlib.util.spec_from_file_location("generate_formula_code", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_module_is_up_to_date() -> None:
    generator = _generator()
    committed = generator.TARGET.read_text(encoding="utf-8")
    assert committed == generator.formula_code(), (
        "engine/capacity/formula_code.py is stale: run scripts/generate_formula_code.py"
    )


def test_every_formula_has_its_signature() -> None:
    assert list(SIGNATURES) == list(FORMULAS) == list(FUNCTIONS)
    for name, formula in FORMULAS.items():
        assert SIGNATURES[name] == (formula.output, formula.symbols)
    assert QUANTITIES == tuple(dict.fromkeys(f.output for f in FORMULAS.values()))


def _sympy_value(name: str, values: dict[str, float]) -> float:
    expr = FORMULAS[name].expr
    return _sympy_at(
        name, tuple(_exact(type(values[s.name]), values[s.name]) for s in _symbols(expr))
    )


# Many models, GPUs and tensor-parallel sizes give a formula the same inputs: each value is
# made exact, and each formula evaluated at one set of inputs, once per run.
@functools.cache
def _exact(kind: type, value: float) -> sympy.Expr:
    """The number as written (a float's shortest decimal), exactly: what nsimplify(value,
    rational=True) gives, without its search."""
    return sympy.Integer(value) if kind is int else sympy.Rational(repr(value))


@functools.cache
def _symbols(expr: sympy.Expr) -> tuple[sympy.Symbol, ...]:
    return tuple(sorted(expr.free_symbols, key=lambda symbol: symbol.name))


@functools.cache
def _sympy_at(name: str, exact: tuple[sympy.Expr, ...]) -> float:
    expr = FORMULAS[name].expr
    # xreplace swaps the symbols for the exact numbers and evaluates; subs would also try to
    # match subexpressions, for the same result.
    return float(expr.xreplace(dict(zip(_symbols(expr), exact, strict=True))).evalf(30))


@pytest.mark.parametrize("gpu", list(gpus()))
def test_the_plain_functions_agree_with_sympy_on_every_catalog_model(gpu: str) -> None:
    compared = set()
    for model in models():
        for tp in (1, 2, 8):
            if models()[model].tp_refusal(tp):
                continue
            values = inputs_from(model, gpu, tp=tp, overrides=SCENARIO)
            for name, (_, symbols) in SIGNATURES.items():
                if not set(symbols) <= set(values):
                    continue
                got = FUNCTIONS[name](*(values[s] for s in symbols))
                assert math.isclose(got, _sympy_value(name, values), rel_tol=1e-12), (
                    name,
                    model,
                    tp,
                )
                compared.add(name)
    assert compared == set(FORMULAS)


def test_a_forward_calc_loads_neither_sympy_nor_pint() -> None:
    code = (
        "import sys; from kvdrill.app.cli import main; "
        "main(['calc', 'kv_bytes_per_token', '--model', 'llama-3.1-8b', '--unit', 'KiB']); "
        "print('sympy' in sys.modules, 'pint' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.splitlines() == ["kv_bytes_per_token = 128 KiB", "False False"]
