"""The dependency rule: app -> store -> engine, app -> engine; engine and store never import Textual."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "engine": {"textual", "store", "app", "sqlalchemy", "alembic"},
    "store": {"textual", "app"},
}


def layer_of(module: str) -> str:
    """``kvdrill.store.db`` is in the layer ``store``; a third-party module is its own top level."""
    parts = module.split(".")
    return parts[1] if parts[0] == "kvdrill" and len(parts) > 1 else parts[0]


def imported_top_levels(path: Path) -> set[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((layer_of(alias.name), node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add((layer_of(node.module), node.lineno))
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    files = sorted((ROOT / layer).rglob("*.py"))
    assert files, f"{layer}/ has no Python files"
    bad = [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for path in files
        for name, line in imported_top_levels(path)
        if name in FORBIDDEN[layer]
    ]
    assert not bad, "\n".join(bad)


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("def f():\n    from textual.app import App\n", encoding="utf-8")
    assert ("textual", 2) in imported_top_levels(sample)
