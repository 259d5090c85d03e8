"""The package type-checks: mypy, configured in pyproject.toml ([tool.mypy]: check_untyped_defs
everywhere, every function annotated in engine/ and store/), finds no error.

The repository root is the ``kvdrill`` package, so mypy reads it through a link named
``kvdrill``. The link and mypy's cache sit at a path fixed for this checkout, so a second run
only checks what changed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mypy_home() -> Path:
    """A folder holding a link ``kvdrill`` to this checkout, and mypy's cache."""
    digest = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    home = Path(tempfile.gettempdir()) / f"kvdrill-types-{digest}"
    home.mkdir(exist_ok=True)
    link = home / "kvdrill"
    if not link.is_symlink():
        try:
            link.symlink_to(ROOT, target_is_directory=True)
        except FileExistsError:
            pass  # another run made it meanwhile
    return home


def run_mypy(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(home / "cache"), *args],
        cwd=home,
        env={**os.environ, "MYPYPATH": str(home)},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_package_has_no_type_error() -> None:
    home = mypy_home()
    run = run_mypy(home, "--config-file", str(ROOT / "pyproject.toml"), "-p", "kvdrill")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout
    checked = int(run.stdout.split(" in ")[-1].split()[0])
    assert checked > 150, run.stdout  # the whole package, not tests/ or scripts/


def test_the_check_sees_an_unannotated_engine_function(tmp_path: Path) -> None:
    """The configuration's strictness for engine/ applies: a package laid out like this one,
    with an engine function without annotations, fails."""
    package = tmp_path / "kvdrill"
    (package / "engine").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "engine" / "__init__.py").write_text("", encoding="utf-8")
    (package / "engine" / "loose.py").write_text("def f(x):\n    return x\n", encoding="utf-8")
    run = run_mypy(tmp_path, "--config-file", str(ROOT / "pyproject.toml"), "-p", "kvdrill")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "kvdrill/engine/loose.py:1: error: Function is missing a type annotation" in run.stdout
