"""The dependency rules: UI and CLI -> services -> store -> engine, and no import cycles.

- engine/ imports no store, app, SQLAlchemy, Alembic, sqlite3 or Textual;
- store/ imports no app and no Textual;
- app/services/ imports no Textual; app/tui/ (the Textual UI) imports no store;
- nothing outside store/ imports SQLAlchemy, Alembic or sqlite3 (tests/ and scripts/ are
  outside the package and may: scripts build synthetic databases, tests inspect them);
- no two kvdrill modules import each other, directly or around a loop (top-level imports:
  those inside functions run later, after both modules are loaded).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FOLDERS = ("app", "engine", "store", "decks")
DATABASE_LIBRARIES = {"sqlalchemy", "alembic", "sqlite3"}

FORBIDDEN = {
    "engine": {"textual", "store", "app", *DATABASE_LIBRARIES},
    "store": {"textual", "app"},
    "app/services": {"textual"},
    "app/tui": {"store"},  # the Textual UI calls the services only
    "app": DATABASE_LIBRARIES,
}


def layer_of(module: str) -> str:
    """``kvdrill.store.db`` is in the layer ``store``; a third-party module is its own top level."""
    parts = module.split(".")
    return parts[1] if parts[0] == "kvdrill" and len(parts) > 1 else parts[0]


def imports_of(path: Path, top_level_only: bool = False) -> list[tuple[str, int]]:
    """(module, line) of every absolute import in ``path``; with ``top_level_only``, only those
    that run when the module loads (not inside functions or ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    nodes = _top_level_nodes(tree.body) if top_level_only else ast.walk(tree)
    found: list[tuple[str, int]] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
            # ``from kvdrill.app.services import environment`` imports a module too.
            found.extend((f"{node.module}.{alias.name}", node.lineno) for alias in node.names)
    return found


def _top_level_nodes(body: list[ast.stmt]) -> list[ast.stmt]:
    nodes: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.If | ast.Try):
            for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
                nodes.extend(_top_level_nodes(block))
            for handler in getattr(node, "handlers", []):
                nodes.extend(_top_level_nodes(handler.body))
        else:
            nodes.append(node)
    return nodes


def imported_top_levels(path: Path) -> set[tuple[str, int]]:
    return {(layer_of(module), line) for module, line in imports_of(path)}


def package_files() -> list[Path]:
    return sorted(path for folder in PACKAGE_FOLDERS for path in (ROOT / folder).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["kvdrill", *parts])


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    files = sorted((ROOT / layer).rglob("*.py"))
    assert files, f"{layer}/ has no Python files"
    bad = [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for path in files
        for name, line in imported_top_levels(path)
        if name in FORBIDDEN[layer] or name.split(".")[0] in FORBIDDEN[layer]
    ]
    assert not bad, "\n".join(bad)


def test_only_the_store_imports_a_database_library() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in package_files()
        if path.relative_to(ROOT).parts[0] != "store"
        for module, line in imports_of(path)
        if module.split(".")[0] in DATABASE_LIBRARIES
    ]
    assert not bad, "\n".join(bad)


def import_graph() -> dict[str, set[str]]:
    """kvdrill module -> the kvdrill modules it imports when it loads."""
    files = {module_name(path): path for path in package_files()}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        graph[name] = {
            module for module, _ in imports_of(path, top_level_only=True) if module in files
        } - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import loop in ``graph`` as a list of modules (first repeated at the end), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack = [(start, iter(sorted(graph[start])))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif child in on_path:
                return path[path.index(child) :] + [child]
            elif child not in done:
                stack.append((child, iter(sorted(graph.get(child, ())))))
                path.append(child)
                on_path.add(child)
    return None


def test_no_import_cycles_between_kvdrill_modules() -> None:
    graph = import_graph()
    assert "kvdrill.engine.study.queue" in graph  # the graph sees the package
    cycle = find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_sees_a_loop() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("def f():\n    from textual.app import App\n", encoding="utf-8")
    assert ("textual", 2) in imported_top_levels(sample)
    assert imports_of(sample, top_level_only=True) == []
