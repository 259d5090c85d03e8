"""The pack formula parser accepts arithmetic over declared names and refuses everything else."""

from __future__ import annotations

import pytest
import sympy

from kvdrill.engine.capacity.expr import FormulaError, parse_condition, parse_formula

NAMES = ["layers", "kv_heads", "head_dim", "dtype_bytes", "tokens", "x", "y"]


def value(text: str, **values: float) -> float:
    expr = parse_formula(text, NAMES)
    return float(expr.subs({sympy.Symbol(k, positive=True): v for k, v in values.items()}))


def test_kv_formula_reads_and_evaluates() -> None:
    kv = value(
        "2 * layers * kv_heads * head_dim * dtype_bytes",
        layers=32,
        kv_heads=8,
        head_dim=128,
        dtype_bytes=2,
    )
    assert kv == 131072


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("2 ** 3 ** 2", 512),  # right-associative, as in Python
        ("-2 ** 2", -4),  # unary minus binds looser than **
        ("2 ** -1", 0.5),
        ("10 - 4 - 3", 3),
        ("12 / 4 / 3", 1),
        ("1e9 / 2**30", 1e9 / 2**30),
        ("0.92 * 100", 92),
        ("ceil(1800 / 16)", 113),
        ("floor(449.9)", 449),
        ("min(3, 1, 2) + max(4, 5)", 6),
        ("--x", 7),
    ],
)
def test_arithmetic_follows_python_precedence(text: str, expected: float) -> None:
    assert value(text, x=7) == pytest.approx(expected)


def test_decimals_are_exact() -> None:
    assert parse_formula("0.1 + 0.2", []) == sympy.Rational(3, 10)


def test_declared_symbols_can_be_passed_in() -> None:
    pool = sympy.Symbol("pool", positive=True)
    assert parse_formula("pool / 2", {"pool": pool}) == pool / 2


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("__import__('os').system('x')", 12, "not allowed"),
        ("__import__", 1, "unknown name"),
        ("x.__class__", 2, "attribute"),
        ("lambda: 1", 7, "not allowed"),
        ("lambda", 1, "unknown name"),
        ("'abc'", 1, "not allowed"),
        ('"abc"', 1, "not allowed"),
        ("9**9**9", 4, "too large"),
        ("(10**64)**64", 11, "too large"),
        ("x ** y", 6, "must be a number"),
        ("1e99999", 1, "out of range"),
        ("z + 1", 1, "unknown name 'z'"),
        ("open(x)", 1, "unknown function"),
        ("x[0]", 2, "not allowed"),
        ("x; y", 2, "not allowed"),
        ("2^10", 2, "write **"),
        ("x = 1", 3, "'=' is not allowed"),
        ("x y", 3, "unexpected 'y'"),
        ("3x", 2, "after the number"),
        ("1/0", 2, "division by zero"),
        ("(x + 1", 7, "expected ')'"),
        ("", 1, "expected a number"),
        ("ceil", 1, "is a function"),
        ("ceil(x, y)", 1, "takes 1 argument"),
        ("x\x00", 2, "not allowed"),
        ("x\n+1", 2, "not allowed"),
        ("ｘ", 1, "not allowed"),
    ],
)
def test_refuses_anything_outside_the_whitelist(text: str, column: int, words: str) -> None:
    with pytest.raises(FormulaError) as caught:
        parse_formula(text, NAMES)
    assert caught.value.column == column
    assert words in caught.value.message


def test_refuses_very_long_text_before_reading_it() -> None:
    with pytest.raises(FormulaError, match="limit"):
        parse_formula("x+" * 5000, NAMES)


def test_refuses_deep_nesting() -> None:
    with pytest.raises(FormulaError, match="nested"):
        parse_formula("(" * 200 + "x" + ")" * 200, NAMES)
    with pytest.raises(FormulaError, match="nested"):
        parse_formula("-" * 200 + "x", NAMES)


def test_condition_reads_one_comparison() -> None:
    condition = parse_condition("x * 2 <= y", NAMES)
    x, y = sympy.symbols("x y", positive=True)
    assert condition.subs({x: 3, y: 6}) == sympy.true
    assert condition.subs({x: 4, y: 6}) == sympy.false


def test_condition_without_comparison_is_an_error() -> None:
    with pytest.raises(FormulaError, match="comparison"):
        parse_condition("x * 2", NAMES)


def test_function_names_cannot_be_declared() -> None:
    with pytest.raises(FormulaError, match="function name"):
        parse_formula("ceil", ["ceil"])
