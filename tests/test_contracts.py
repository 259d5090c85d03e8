"""The layers as checked contracts, no import cycles, and no module reaching into another's
private names.

The contracts live in pyproject.toml (``[tool.importlinter]``): UI and CLI -> services ->
store -> engine, the engine pure, the services the only callers of the store. import-linter
reads every import statement, those inside functions too (a test below proves it on a package
of its own). The cycle check counts imports inside functions as well: a loop that closes only
when a function runs is still two modules that cannot be understood apart.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FOLDERS = ("app", "engine", "store", "decks", "i18n")
LINT_IMPORTS = [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()"]


def lint_imports(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    run = subprocess.run(
        [*LINT_IMPORTS, "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return run.returncode, run.stdout + run.stderr


def test_the_import_contracts_hold() -> None:
    code, output = lint_imports(ROOT)
    assert "0 broken" in output, output
    assert code == 0, output
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert f"{len(contracts['contracts'])} kept" in output, output


def test_the_contracts_see_imports_inside_functions(tmp_path: Path) -> None:
    """A package whose lower layer imports the upper one, and whose pure part imports sqlite3,
    both only inside functions: import-linter must refuse both."""
    package = tmp_path / "sample"
    for folder, text in {
        "": "",
        "upper": "from sample import lower\n",
        "lower": "def later():\n    from sample import upper\n    return upper\n",
        "pure": "def later():\n    import sqlite3\n    return sqlite3\n",
    }.items():
        (package / folder).mkdir(parents=True, exist_ok=True)
        (package / folder / "__init__.py").write_text(text, encoding="utf-8")
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_package = "sample"\ninclude_external_packages = true\n\n'
        '[[tool.importlinter.contracts]]\nname = "layers"\ntype = "layers"\n'
        'layers = ["sample.upper", "sample.lower"]\n\n'
        '[[tool.importlinter.contracts]]\nname = "pure"\ntype = "forbidden"\n'
        'source_modules = ["sample.pure"]\nforbidden_modules = ["sqlite3"]\n',
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    code, output = lint_imports(tmp_path, "--config", str(config), env=env)
    assert code != 0, output
    assert "2 broken" in output, output
    assert "sample.lower -> sample.upper" in output, output
    assert "sample.pure -> sqlite3" in output, output


def test_every_app_module_outside_the_services_is_kept_from_the_store_and_its_callers() -> None:
    """The contract naming what services and store may not import lists every app module
    outside services, so a new one is covered the day it is added."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [
        c for c in contracts["contracts"] if "kvdrill.app.services" in c.get("source_modules", [])
    ]
    app_children = {
        f"kvdrill.app.{path.stem if path.is_file() else path.name}"
        for path in (ROOT / "app").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    assert app_children - {"kvdrill.app.services"} <= set(contract["forbidden_modules"])


# --- cycles -------------------------------------------------------------------------------------


def import_graph() -> dict[str, set[str]]:
    """kvdrill module -> the kvdrill modules it imports, anywhere in its code (imports only for
    type checkers left out: they never run)."""
    graph = grimp.build_graph("kvdrill", exclude_type_checking_imports=True, cache_dir=None)
    return {
        module: set(graph.find_modules_directly_imported_by(module)) - {module}
        for module in graph.modules
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import loop in ``graph`` as a list of modules (first repeated at the end), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        on_path = {start}
        stack = [(start, iter(sorted(graph[start])))]
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


def test_the_graph_counts_an_import_inside_a_function() -> None:
    graph = import_graph()
    # app/cli.py imports the drill command inside main() only.
    assert "kvdrill.app.commands.drill" in graph["kvdrill.app.cli"]


# --- private names ------------------------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["kvdrill", *parts])


def package_files() -> list[Path]:
    return sorted(
        [ROOT / "__init__.py", *ROOT.glob("*.py")]
        + [path for folder in PACKAGE_FOLDERS for path in (ROOT / folder).rglob("*.py")]
    )


def _private(name: str) -> bool:
    # ``_`` is gettext's translation function (kvdrill/i18n), public by that convention.
    return name.startswith("_") and not name.startswith("__") and name != "_"


def private_reaches(path: Path) -> list[tuple[int, str]]:
    """(line, what) for each private name of another module that ``path`` uses: imported
    (``from m import _x``, ``import m._x``, ``from m._x import y``) or reached through an
    object (``thing._x``, with ``self`` and ``cls`` the object's own)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if any(_private(part) for part in module.split(".")):
                found.append((node.lineno, f"imports from {module}"))
            found.extend(
                (node.lineno, f"imports {alias.name} from {module}")
                for alias in node.names
                if _private(alias.name)
            )
        elif isinstance(node, ast.Import):
            found.extend(
                (node.lineno, f"imports {alias.name}")
                for alias in node.names
                if any(_private(part) for part in alias.name.split("."))
            )
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append((node.lineno, f"uses {ast.unparse(node)}"))
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in package_files()
        for line, what in private_reaches(path)
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("from kvdrill.engine.packs.parser import _hidden\n", "imports _hidden"),
        ("def f():\n    from textual.widgets._markdown import X\n", "imports from textual"),
        ("import json.encoder._private\n", "imports json.encoder._private"),
        ("def f(session):\n    session._variants = {}\n", "uses session._variants"),
    ],
)
def test_the_private_name_check_sees_each_way_in(tmp_path: Path, source: str, what: str) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(source, encoding="utf-8")
    assert any(found.startswith(what) for _, found in private_reaches(sample))


def test_the_private_name_check_lets_a_class_use_its_own(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "class A:\n    def f(self):\n        return self._x\n"
        "    @classmethod\n    def g(cls):\n        return cls._y\n",
        encoding="utf-8",
    )
    assert private_reaches(sample) == []


# --- the engine does no I/O -----------------------------------------------------------------------

# Calls that touch the file system (pathlib's methods and the builtin ``open``).
FILE_CALLS = {
    "open", "read_text", "read_bytes", "write_text", "write_bytes", "exists", "is_file",
    "is_dir", "is_symlink", "stat", "lstat", "iterdir", "glob", "rglob", "unlink", "mkdir",
    "rmdir", "rename", "replace", "touch", "resolve", "chmod", "walk",
}  # fmt: skip
# The one engine module that reads files: the package's own data (the catalogs, the units).
DATA_FILES = ROOT / "engine" / "capacity" / "data_files.py"


def file_calls(path: Path) -> list[tuple[int, str]]:
    """(line, call) for each call in ``path`` that may touch the file system. ``replace`` and
    ``resolve`` of other things (str, dataclasses, datetime, sympy) are told apart by their
    arguments: Path.replace takes one, Path.resolve none."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in FILE_CALLS:
            continue
        if name == "replace" and (len(node.args) != 1 or node.keywords):
            continue
        if name == "resolve" and (node.args or isinstance(func, ast.Name)):
            continue
        found.append((node.lineno, ast.unparse(node)[:60]))
    return found


def test_the_engine_reads_and_writes_no_file_but_its_own_data() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {call}"
        for path in sorted((ROOT / "engine").rglob("*.py"))
        if path != DATA_FILES
        for line, call in file_calls(path)
    ]
    assert not bad, "\n".join(bad)


def test_the_file_call_check_sees_a_read(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(path, text):\n    text.replace('a', 'b')\n    return path.read_text()\n",
        encoding="utf-8",
    )
    assert [line for line, _ in file_calls(sample)] == [3]
