"""Write engine/capacity/data/catalog_snapshot.json: the model and GPU catalogs, validated.

``kvdrill calc`` and every other lookup read that JSON, so they import neither PyYAML nor
pydantic. It holds what engine/capacity/catalog.py ``load_entries`` makes of models.yaml and
gpus.yaml, with their CRC-32s: a lookup falls back to the YAML when they differ, and
tests/test_catalog_snapshot.py fails until this script is run again after a YAML edit.

    .venv/bin/python scripts/generate_catalog_snapshot.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    from kvdrill.engine.capacity.catalog import catalog_snapshot_text
    from kvdrill.engine.capacity.data_files import SNAPSHOT_PATH

    SNAPSHOT_PATH.write_text(catalog_snapshot_text(), encoding="utf-8")
    print(f"wrote {SNAPSHOT_PATH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
