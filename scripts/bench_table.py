"""One line per row of the README's benchmark table, the same for every benchmark script:

    row | kvdrill | anchor | ratio | target | met/missed

Figures are given as text (each script words its own units); ``met`` is decided by the caller
against the row's target. ``load`` words the machine's load average, which every script prints
with its rows: on a shared machine the ratios hold, the absolute times do not.
"""

from __future__ import annotations

import os
from pathlib import Path

HEADER = "row | kvdrill | anchor | ratio | target | met/missed"


def print_header() -> None:
    print(HEADER)


def print_row(row: str, kvdrill: str, anchor: str, ratio: float | None, target: str, met: bool):
    ratio_text = "-" if ratio is None else f"{ratio:.2f}x"
    print(f"{row} | {kvdrill} | {anchor} | {ratio_text} | {target} | {'met' if met else 'missed'}")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms"


def importable(checkout: Path, folder: Path) -> dict[str, str]:
    """An environment where ``import kvdrill`` finds ``checkout`` (the repo root is the
    package, so a link named kvdrill to it goes first on the path)."""
    link = folder / "kvdrill"
    link.symlink_to(checkout.resolve(), target_is_directory=True)
    return dict(os.environ, PYTHONPATH=str(folder))
