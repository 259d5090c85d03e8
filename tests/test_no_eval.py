"""Pack and learner text is never evaluated: no call in the code may reach an evaluator.

Formulas go through engine/capacity/expr.py (a whitelisting parser that builds sympy nodes itself) and
answers through engine/problems/answers.py and engine/capacity/units.py (a strict reader, then whitelisted unit
names). This test keeps it that way for the whole code base.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILTIN_EVALUATORS = {"eval", "exec", "compile"}  # as bare names: re.compile is fine
LIBRARY_EVALUATORS = {"sympify", "parse_expr", "S", "parse_expression"}  # under any name


def evaluator_calls(source: str, filename: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                name = func.id
                evaluators = BUILTIN_EVALUATORS | LIBRARY_EVALUATORS
            else:
                name = getattr(func, "attr", None)
                evaluators = LIBRARY_EVALUATORS
            if name in evaluators:
                found.append((node.lineno, name))
    return found


def test_no_code_calls_an_evaluator() -> None:
    files = [path for layer in ("app", "engine", "store") for path in (ROOT / layer).rglob("*.py")]
    assert len(files) > 20
    bad = [
        f"{path.relative_to(ROOT)}:{line}: calls {name}"
        for path in files
        for line, name in evaluator_calls(path.read_text(encoding="utf-8"), str(path))
    ]
    assert not bad, "\n".join(bad)


def test_the_scan_sees_an_evaluator_call() -> None:
    sample = "import sympy\nx = sympy.sympify(text)\ny = eval(text)\n"
    assert evaluator_calls(sample, "sample.py") == [(2, "sympify"), (3, "eval")]
