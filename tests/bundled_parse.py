"""The bundled decks parsed once per test process (a pytest plugin).

Hundreds of tests start kvdrill on a new database, and a first start imports the bundled decks:
parsing and checking their 28 files is nearly all of that import's CPU (storing them is a
twentieth of it). The files do not change during a run, so the first-start import
(``import_bundled``) reuses this process's first parse of them, keyed by their paths and
bytes; the rows it stores are the same. Every other reader of pack files (``kvdrill check``,
``kvdrill import``, a test's own decks folder) still parses, and so does a ``kvdrill``
subprocess.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session", autouse=True)
def bundled_decks_parsed_once() -> Iterator[None]:
    from kvdrill.app.services import importing

    parse = importing.read_files
    parsed: dict[tuple[tuple[str, str], ...], Any] = {}

    def read_files(files: list[Path], *args: Any, **kwargs: Any) -> Any:
        # import_bundled passes the files alone; check and import pass more and parse anew.
        bundled = files and all(path.parent == importing.BUNDLED_DECKS for path in files)
        if args or kwargs or not bundled:
            return parse(files, *args, **kwargs)
        key = tuple((str(path), hashlib.sha256(path.read_bytes()).hexdigest()) for path in files)
        if key not in parsed:
            parsed[key] = parse(files)
        read = parsed[key]
        return importing.ReadPacks(
            list(read.files), list(read.packs), list(read.problems), read.cards
        )

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(importing, "read_files", read_files)
        yield
