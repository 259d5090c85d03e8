"""Worked solutions in a variant's own numbers: the formula, the numbers substituted, the result.

Expressions are printed with each symbol as a marker, filled in per variant, factors in the
catalog's symbol order (layers before heads before head_dim), the way people say them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache

import sympy

from kvdrill.engine.capacity.formulas import (
    FORMULAS,
    SYMBOLS,
    ReadableNumbers,
    pretty_formula,
    variant_for,
)
from kvdrill.engine.capacity.units import format_quantity
from kvdrill.engine.problems.display import Draw, show
from kvdrill.engine.problems.quantities import unit_factor
from kvdrill.engine.problems.template_types import Problem
from kvdrill.i18n import _

# --- worked solution -------------------------------------------------------------------------

_MARK = "\x00"


class _MarkedPrinter(ReadableNumbers):
    """Prints an expression with each symbol as a marker, filled in per variant."""

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        return f"{_MARK}{expr.name}{_MARK}"

    def _print_Mul(self, expr: sympy.Mul) -> str:
        # Factors in the catalog's symbol order (layers before heads before head_dim...), the
        # way people say them, instead of sympy's alphabetical order.
        from sympy.printing.precedence import PRECEDENCE

        coefficient, factors = expr.as_coeff_mul()
        numerator: list[sympy.Expr] = []
        denominator: list[sympy.Expr] = []
        if coefficient.is_Rational and coefficient not in (1, -1):
            if coefficient.p not in (1, -1):
                numerator.append(sympy.Integer(abs(coefficient.p)))
            if coefficient.q != 1:
                denominator.append(sympy.Integer(coefficient.q))
        for factor in factors:
            if factor.is_Pow and factor.exp.is_Rational and factor.exp.is_negative:
                denominator.append(factor.base ** (-factor.exp))
            else:
                numerator.append(factor)
        precedence = PRECEDENCE["Mul"]

        def join(items: list[sympy.Expr]) -> str:
            ordered = sorted(items, key=_factor_order)
            return "*".join(self.parenthesize(item, precedence) for item in ordered)

        text = join(numerator) if numerator else "1"
        if denominator:
            below = join(denominator)
            text += f"/({below})" if len(denominator) > 1 else f"/{below}"
        return f"-{text}" if coefficient < 0 else text

    def _print_Add(self, expr: sympy.Add, order: str | None = None) -> str:
        # Positive terms first, each side in the catalog's symbol order: a - b - c.
        from sympy.printing.precedence import PRECEDENCE

        terms = sorted(expr.args, key=lambda t: (t.could_extract_minus_sign(), _factor_order(t)))
        text = ""
        for index, term in enumerate(terms):
            negative = term.could_extract_minus_sign()
            shown = self.parenthesize(-term if negative else term, PRECEDENCE["Add"])
            if index == 0:
                text = f"-{shown}" if negative else shown
            else:
                text += f" - {shown}" if negative else f" + {shown}"
        return text


def _factor_order(factor: sympy.Expr) -> tuple[int, int, str]:
    if factor.is_number:
        return (-1, 0, "")
    position = min(symbol_position(s.name) for s in factor.free_symbols)
    return (int(factor.is_Add), position, str(factor))


@cache
def symbol_position(name: str) -> int:
    """Where a symbol stands in the catalog's table (architecture first, then precision...)."""

    names = list(SYMBOLS)
    return names.index(name) if name in names else len(names)


@lru_cache(maxsize=512)
def _marked(expr: sympy.Expr) -> str:
    return pretty_formula(_MarkedPrinter().doprint(expr))


@lru_cache(maxsize=512)
def expr_names(expr: sympy.Expr) -> frozenset[str]:
    return frozenset(s.name for s in expr.free_symbols)


@lru_cache(maxsize=1024)
def _split(marked: str) -> tuple[str, ...]:
    return tuple(marked.split(_MARK))  # odd parts are symbol names


@lru_cache(maxsize=1024)
def _symbolic(marked: str) -> str:
    """The formula with its symbol names."""
    return "".join(_split(marked))


def _unmark(marked: str, texts: Mapping[str, str]) -> str:
    """The formula with each symbol replaced by its text (names without one stay)."""
    parts = _split(marked)
    return "".join([texts.get(p, p) if i & 1 else p for i, p in enumerate(parts)])


@cache
def catalog_expr(name: str) -> sympy.Expr:
    return FORMULAS[name].expr


@lru_cache(maxsize=256)
def _solved_text(expr: sympy.Expr, output: str, ask: str) -> str | None:
    """The formula rearranged for ``ask``, printed with markers (None if sympy cannot)."""
    unknown = next((s for s in expr.free_symbols if s.name == ask), None)
    if unknown is None:
        return None
    relaxed = expr.replace(sympy.floor, lambda a: a).replace(sympy.ceiling, lambda a: a)
    relaxed = relaxed.replace(sympy.Max, lambda *a: next((x for x in a if not x.is_number), a[0]))
    try:
        roots = sympy.solve(sympy.Eq(sympy.Symbol(output, positive=True), relaxed), unknown)
    except (NotImplementedError, ValueError):
        return None
    return _marked(roots[0]) if len(roots) == 1 else None


@lru_cache(maxsize=256)
def _single_gpu(expr: sympy.Expr) -> sympy.Expr:
    """The formula with tp = 1, tidied: max(1, floor(kv_heads/1)) is kv_heads."""
    tp = next((s for s in expr.free_symbols if s.name == "tp"), None)
    if tp is None:
        return expr
    tidy = expr.subs(tp, 1)
    tidy = tidy.replace(
        lambda e: e.func is sympy.floor and e.args[0].is_Symbol, lambda e: e.args[0]
    )
    return tidy.replace(
        lambda e: e.func is sympy.Max and len(e.args) == 2 and 1 in e.args,
        lambda e: next(a for a in e.args if a != 1),
    )


# Derived quantities a worked solution computes first, when the variant did not give them.
_STEPS = ("weight_bytes", "kv_bytes_per_token", "kv_pool_bytes", "kv_pool_tokens")


def _tidy(expr: sympy.Expr, draw: Draw, ask: str) -> sympy.Expr:
    return _single_gpu(expr) if draw.values.get("tp") == 1 and ask != "tp" else expr


def earlier_steps(problem: Problem, draw: Draw, expr: sympy.Expr) -> list[tuple[str, sympy.Expr]]:
    """(quantity, formula) for derived inputs of ``expr``, dependencies first."""
    steps: list[tuple[str, sympy.Expr]] = []

    def visit(current: sympy.Expr) -> None:
        for name in sorted(expr_names(current), key=symbol_position):
            if (
                name in _STEPS
                and name not in problem.given
                and name not in draw.picks
                and name != problem.ask
                and name in draw.values
                and all(name != done for done, _ in steps)
            ):
                step = _tidy(catalog_expr(variant_for(name, draw.model, draw.values)), draw, "")
                visit(step)
                steps.append((name, step))

    if problem.custom is None or any(n in _STEPS for n in expr_names(expr)):
        visit(expr)
    return steps


def _forward_lines(
    problem: Problem, draw: Draw, name: str, expr: sympy.Expr, result: str
) -> list[str]:
    names = expr_names(expr)
    texts = {n: show(problem, draw, n) for n in names if n in draw.values and n != problem.ask}
    pad = " " * len(name)
    lines = [
        f"{name} = {_symbolic(_marked(expr))}",
        f"{pad} = {_unmark(_marked(expr), texts)}",
    ]
    if name == problem.output and problem.unit in _LONG_TIMES:
        # The formula gives seconds: show them before the hours, so the ÷ 3,600 is visible.
        lines.append(f"{pad} = {format_quantity(draw.values[name], 's')}")
    return [*lines, f"{pad} = {result}"]


# Time units an answer may be asked in that the formula's seconds must be converted to.
_LONG_TIMES = ("min", "h", "hour", "hours", "day", "days")


def worked_solution(problem: Problem, draw: Draw) -> tuple[str, str]:
    """(formula text, Markdown worked solution in this variant's numbers)."""
    expr = _tidy(
        problem.custom.expr if problem.custom else catalog_expr(draw.formula), draw, problem.ask
    )
    names = expr_names(expr)
    output = problem.output
    formula_text = f"{output} = {_symbolic(_marked(expr))}"
    answer_text = format_quantity(draw.answer / unit_factor(problem.unit), problem.unit)
    blocks = [
        _forward_lines(problem, draw, name, step, show(problem, draw, name))
        for name, step in earlier_steps(problem, draw, expr)
    ]
    if not problem.solving:
        blocks.append(_forward_lines(problem, draw, output, expr, answer_text))
    else:
        texts = {n: show(problem, draw, n) for n in names if n in draw.values and n != problem.ask}
        output_text = show(problem, draw, output)
        lines = [formula_text, f"{output_text} = {_unmark(_marked(expr), texts)}"]
        solved = _solved_text(expr, output, problem.ask)
        pad = " " * len(problem.ask)
        if solved is not None:
            with_output = {**texts, output: output_text}
            lines.append(f"{problem.ask} = {_symbolic(solved)}")
            lines.append(f"{pad} = {_unmark(solved, with_output)}")
            lines.append(f"{pad} = {answer_text}")
        else:
            lines.append(f"{problem.ask} = {answer_text}")
        blocks.append(lines)
    note = ""
    if not problem.solving and expr.func == sympy.floor:
        note = "\n\n" + _("Round down: a request or block that does not fit whole does not count.")
    elif not problem.solving and whole_by_ceiling(expr):
        note = "\n\n" + _("Round up: a part still needs a whole one (a block, a GPU, a replica).")
    body = "\n\n".join("\n".join(lines) for lines in blocks)
    answer = _("Answer: {answer}").format(answer=answer_text)
    markdown = f"```text\n{body}\n```\n\n**{answer}**{note}"
    return formula_text, markdown


def whole_by_ceiling(expr: sympy.Expr) -> bool:
    """The answer is a count the formula rounds up: ceil(...), perhaps plus a constant."""
    if expr.func == sympy.ceiling:
        return True
    terms = expr.args if expr.is_Add else ()
    return any(t.func == sympy.ceiling for t in terms) and all(
        t.is_number or t.func == sympy.ceiling for t in terms
    )
