"""Run ``kvdrill`` until its first card is painted, for the start and memory benchmarks.

    KVDRILL_FIRST_CARD_FILE=STAMP python scripts/first_card_probe.py [kvdrill arguments: drill]

kvdrill itself has no benchmark hook: this patches ``KvdrillApp.first_card_painted`` from
outside so that, once the first card is on screen, the wall clock, the process's CPU time and
where the card came from (``helper`` or ``session``) are written to STAMP and the app exits.
scripts/bench_start.py and scripts/bench_memory.py run kvdrill through it.
The patch is put in when app/tui/app.py is first imported (an import hook), not by importing
it here: that would load Textual before ``kvdrill drill`` starts its fast-start helper, and
time a start that no learner gets.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

APP_MODULE = "kvdrill.app.tui.app"
STAMP_VARIABLE = "KVDRILL_FIRST_CARD_FILE"


def stop_at_first_card(module: ModuleType, stamp: Path) -> None:
    app_class = module.KvdrillApp
    painted = app_class.first_card_painted

    def first_card_painted(self: Any, source: str) -> None:
        painted(self, source)
        stamp.write_text(f"{time.time()!r} {time.process_time()!r} {source}", encoding="utf-8")
        self.exit()

    app_class.first_card_painted = first_card_painted


class PatchOnImport(MetaPathFinder):
    """Finds ``APP_MODULE`` as usual, and patches it once it has run."""

    def __init__(self, stamp: Path):
        self.stamp = stamp

    def find_spec(self, name: str, path: Any, target: Any = None) -> ModuleSpec | None:
        if name != APP_MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module
        stamp = self.stamp

        def exec_module(module: ModuleType) -> None:
            run(module)
            stop_at_first_card(module, stamp)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def main() -> int:
    sys.meta_path.insert(0, PatchOnImport(Path(os.environ[STAMP_VARIABLE])))
    from kvdrill.app.cli import main as kvdrill

    return kvdrill(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
