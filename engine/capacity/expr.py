"""A whitelisting parser for formulas written in packs: text in, sympy expression out.

Pack text is untrusted, so it never reaches eval, exec, sympify, parse_expr or ``sympy.S(str)``.
This module tokenizes the text itself and builds sympy objects node by node. It accepts:

- numbers: ``42``, ``0.92``, ``1e9``, ``1.5e-3`` (exact rationals, literal exponents within ±308);
- declared names only (the caller says which);
- ``+ - * /``, ``**`` (right-associative, exponent a constant of at most 64 in size),
  parentheses and unary minus/plus;
- the functions ``ceil``, ``floor``, ``min``, ``max``;
- in a condition, one comparison: ``<``, ``<=``, ``>``, ``>=``.

Errors are ``FormulaError`` with a 1-based column; the caller turns them into ``path:line:``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import sympy

MAX_FORMULA_CHARS = 1000
MAX_NESTING = 40
MAX_EXPONENT = 64
MAX_LITERAL_EXPONENT = 308  # of a literal like 1e9
MAX_CONSTANT_DIGITS = 400  # a constant power may not exceed about 10**400

FUNCTIONS = {
    "ceil": (sympy.ceiling, 1),
    "floor": (sympy.floor, 1),
    "min": (sympy.Min, None),
    "max": (sympy.Max, None),
}
COMPARISONS = {
    "<": sympy.StrictLessThan,
    "<=": sympy.LessThan,
    ">": sympy.StrictGreaterThan,
    ">=": sympy.GreaterThan,
}
_OPERATOR_CHARS = "+-*/(),<>="


class FormulaError(ValueError):
    """A formula the parser refuses, with the 1-based column where the trouble starts."""

    def __init__(self, message: str, column: int):
        self.message = message
        self.column = column
        super().__init__(f"column {column}: {message}")


@dataclass(frozen=True)
class Token:
    kind: str  # "number", "name", "op", "end"
    text: str
    column: int


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; any character outside the whitelist is an error."""
    if len(text) > MAX_FORMULA_CHARS:
        raise FormulaError(
            f"formula is {len(text):,} characters long; the limit is {MAX_FORMULA_CHARS:,}", 1
        )
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        char = text[i]
        column = i + 1
        if char in " \t":
            i += 1
        elif char.isascii() and (char.isdigit() or char == "."):
            end = _scan_number(text, i)
            tokens.append(Token("number", text[i:end], column))
            i = end
        elif char.isascii() and (char.isalpha() or char == "_"):
            end = i + 1
            while (
                end < len(text)
                and text[end].isascii()
                and (text[end].isalnum() or text[end] == "_")
            ):
                end += 1
            tokens.append(Token("name", text[i:end], column))
            i = end
        elif text.startswith("**", i) or text[i : i + 2] in ("<=", ">="):
            tokens.append(Token("op", text[i : i + 2], column))
            i += 2
        elif char in _OPERATOR_CHARS and char != "=":
            tokens.append(Token("op", char, column))
            i += 1
        elif char == "^":
            raise FormulaError("'^' is not a power here: write ** (as in 2**30)", column)
        elif char == "=":
            raise FormulaError("'=' is not allowed; a condition compares with < <= > >=", column)
        else:
            raise FormulaError(f"character {char!r} is not allowed in a formula", column)
    tokens.append(Token("end", "", len(text) + 1))
    return tokens


def _scan_number(text: str, start: int) -> int:
    """End index of the number literal at ``start``: digits, one dot, an optional e-exponent."""
    i = start
    while i < len(text) and text[i].isascii() and text[i].isdigit():
        i += 1
    if i < len(text) and text[i] == ".":
        i += 1
        while i < len(text) and text[i].isascii() and text[i].isdigit():
            i += 1
    mantissa = text[start:i]
    if mantissa == ".":
        raise FormulaError("'.' is only allowed inside a number (no attribute access)", start + 1)
    if i < len(text) and text[i] in "eE":
        j = i + 1
        if j < len(text) and text[j] in "+-":
            j += 1
        digits_start = j
        while j < len(text) and text[j].isascii() and text[j].isdigit():
            j += 1
        if j == digits_start:
            raise FormulaError(f"number {text[start:j]!r} has no exponent digits", start + 1)
        if abs(int(text[i + 1 : j])) > MAX_LITERAL_EXPONENT:
            raise FormulaError(
                f"number {text[start:j]!r} is out of range (exponent above {MAX_LITERAL_EXPONENT})",
                start + 1,
            )
        i = j
    if i < len(text) and (text[i] == "." or text[i].isalpha() or text[i] == "_"):
        raise FormulaError(f"unexpected {text[i]!r} after the number {text[start:i]!r}", i + 1)
    return i


class _Parser:
    """Recursive descent over the token list; every node is a sympy object built here."""

    def __init__(self, text: str, symbols: Mapping[str, sympy.Symbol]):
        self.tokens = tokenize(text)
        self.symbols = symbols
        self.pos = 0
        self.depth = 0

    # token helpers
    def peek(self) -> Token:
        return self.tokens[self.pos]

    def take(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expect(self, text: str) -> Token:
        token = self.peek()
        if token.kind != "op" or token.text != text:
            raise FormulaError(f"expected {text!r}, found {_describe(token)}", token.column)
        return self.take()

    def enter(self, column: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise FormulaError(f"formula is nested more than {MAX_NESTING} levels deep", column)

    # grammar
    def parse_formula(self) -> sympy.Expr:
        expr = self.sum()
        self.finish()
        return expr

    def parse_condition(self) -> sympy.core.relational.Relational:
        left = self.sum()
        token = self.peek()
        if token.kind != "op" or token.text not in COMPARISONS:
            raise FormulaError(
                f"expected a comparison (< <= > >=), found {_describe(token)}", token.column
            )
        self.take()
        right = self.sum()
        self.finish()
        return COMPARISONS[token.text](left, right, evaluate=False)

    def finish(self) -> None:
        token = self.peek()
        if token.kind != "end":
            raise FormulaError(f"unexpected {_describe(token)}", token.column)

    def sum(self) -> sympy.Expr:
        terms = [self.product()]
        while self.peek().kind == "op" and self.peek().text in "+-":
            operator = self.take().text
            term = self.product()
            terms.append(term if operator == "+" else -term)
        return sympy.Add(*terms) if len(terms) > 1 else terms[0]

    def product(self) -> sympy.Expr:
        result = self.unary()
        while self.peek().kind == "op" and self.peek().text in ("*", "/"):
            operator = self.take()
            factor = self.unary()
            if operator.text == "*":
                result = sympy.Mul(result, factor)
            else:
                if factor.is_zero:
                    raise FormulaError("division by zero", operator.column)
                result = sympy.Mul(result, sympy.Pow(factor, -1))
        return result

    def unary(self) -> sympy.Expr:
        token = self.peek()
        if token.kind == "op" and token.text in "+-":
            self.take()
            self.enter(token.column)
            operand = self.unary()
            self.depth -= 1
            return -operand if token.text == "-" else operand
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        token = self.peek()
        if token.kind == "op" and token.text == "**":
            self.take()
            self.enter(token.column)
            exponent_column = self.peek().column
            exponent = self.unary()  # right-associative, and 2**-1 reads
            self.depth -= 1
            return _bounded_power(base, exponent, exponent_column)
        return base

    def atom(self) -> sympy.Expr:
        token = self.take()
        if token.kind == "number":
            value = Fraction(token.text)
            return sympy.Rational(value.numerator, value.denominator)
        if token.kind == "name":
            return self.name(token)
        if token.kind == "op" and token.text == "(":
            self.enter(token.column)
            inner = self.sum()
            self.expect(")")
            self.depth -= 1
            return inner
        raise FormulaError(
            f"expected a number, a name or '(', found {_describe(token)}", token.column
        )

    def name(self, token: Token) -> sympy.Expr:
        following = self.peek()
        is_call = following.kind == "op" and following.text == "("
        if token.text in FUNCTIONS:
            if not is_call:
                raise FormulaError(
                    f"{token.text} is a function: write {token.text}(...)", token.column
                )
            return self.call(token)
        if is_call:
            raise FormulaError(
                f"unknown function {token.text!r}; allowed: {', '.join(FUNCTIONS)}", token.column
            )
        if token.text not in self.symbols:
            raise FormulaError(
                f"unknown name {token.text!r}{_suggest(token.text, self.symbols)}", token.column
            )
        return self.symbols[token.text]

    def call(self, name: Token) -> sympy.Expr:
        function, arity = FUNCTIONS[name.text]
        self.enter(name.column)
        self.expect("(")
        arguments = [self.sum()]
        while self.peek().kind == "op" and self.peek().text == ",":
            self.take()
            arguments.append(self.sum())
        self.expect(")")
        self.depth -= 1
        if arity is not None and len(arguments) != arity:
            raise FormulaError(
                f"{name.text} takes {arity} argument, not {len(arguments)}", name.column
            )
        if arity is None and len(arguments) < 2:
            raise FormulaError(f"{name.text} takes two or more arguments", name.column)
        return function(*arguments)


def _bounded_power(base: sympy.Expr, exponent: sympy.Expr, column: int) -> sympy.Expr:
    """``base ** exponent``, refusing exponents that are not small constants (9**9**9)."""
    if exponent.free_symbols or not exponent.is_number:
        raise FormulaError("an exponent must be a number, not a name", column)
    if not exponent.is_real or abs(exponent) > MAX_EXPONENT:
        raise FormulaError(f"exponent {exponent} is too large (at most {MAX_EXPONENT})", column)
    if base.is_Number and not base.is_zero:
        digits = float(abs(exponent)) * _log10_magnitude(base)
        if digits > MAX_CONSTANT_DIGITS:
            raise FormulaError(
                f"this power has about {digits:,.0f} digits; it is too large", column
            )
    if base.is_zero and exponent.is_negative:
        raise FormulaError("division by zero", column)
    return sympy.Pow(base, exponent)


def _log10_magnitude(number: sympy.Number) -> float:
    """|log10| of a nonzero sympy number, computed without building huge intermediates."""
    if number.is_Rational:
        value = abs(math.log10(abs(int(number.p))) - math.log10(int(number.q)))
    else:
        value = abs(math.log10(abs(float(number))))
    return max(value, 1.0)


def _suggest(name: str, known: Iterable[str]) -> str:
    """' (known: a, b)' for a short list, else ' (did you mean ...?)' when something is close."""
    names = sorted(known)
    if len(names) <= 8:
        return f" (known: {', '.join(names) or 'none declared'})"
    near = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    return f" (did you mean {', '.join(near)}?)" if near else ""


def _describe(token: Token) -> str:
    return "the end of the formula" if token.kind == "end" else repr(token.text)


def _symbol_table(names: Mapping[str, sympy.Symbol] | Iterable[str]) -> Mapping[str, sympy.Symbol]:
    if isinstance(names, Mapping):
        table = names  # not copied: a caller's mapping may resolve names on demand
    else:
        table = {name: sympy.Symbol(name, positive=True) for name in names}
    for name in table:
        if name in FUNCTIONS:
            raise FormulaError(f"{name!r} is a function name and cannot be a symbol", 1)
    return table


def parse_formula(text: str, names: Mapping[str, sympy.Symbol] | Iterable[str]) -> sympy.Expr:
    """Parse ``text`` into a sympy expression over ``names`` (a name->Symbol map, or names).

    Plain names become positive symbols, which lets ``sympy.solve`` pick the physical root.
    """
    return _Parser(text, _symbol_table(names)).parse_formula()


def parse_condition(
    text: str, names: Mapping[str, sympy.Symbol] | Iterable[str]
) -> sympy.core.relational.Relational:
    """Parse one comparison such as ``weight_bytes < 0.9 * gpu_memory`` (unevaluated)."""
    return _Parser(text, _symbol_table(names)).parse_condition()


def is_name(text: str) -> bool:
    """Whether ``text`` can be declared as a symbol of a formula."""
    return (
        bool(text)
        and text.isascii()
        and (text[0].isalpha() or text[0] == "_")
        and all(c.isalnum() or c == "_" for c in text)
        and text not in FUNCTIONS
    )
