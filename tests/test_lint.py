"""ruff stays clean and the code formatted: the lint is part of the test suite so CI enforces it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


RUFF = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [RUFF, "check", "--quiet", str(ROOT)], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted() -> None:
    result = subprocess.run(
        [RUFF, "format", "--check", str(ROOT)], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, f"run ruff format:\n{result.stdout}{result.stderr}"
