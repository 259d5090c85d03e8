"""The package's own data files, read here and nowhere else in the engine.

engine/capacity/data/ holds the model and GPU catalogs (YAML), their validated snapshot (JSON)
and the unit definitions (pint's format). They ship inside the package as its code does.
Apart from these the engine reads no file and writes none: a pack, an export or an id written
back is read and written by the services (app/services/pack_files.py and others), and the
engine is handed the text.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"
MODELS_PATH = DATA_DIR / "models.yaml"
GPUS_PATH = DATA_DIR / "gpus.yaml"
# The YAML files validated once, as plain JSON; written by scripts/generate_catalog_snapshot.py.
SNAPSHOT_PATH = DATA_DIR / "catalog_snapshot.json"
UNITS_PATH = DATA_DIR / "units.txt"


def data_text(path: Path) -> str:
    """A data file's text (OSError when it cannot be read; the caller words it)."""
    return path.read_text(encoding="utf-8")


def data_bytes(path: Path) -> bytes:
    """A data file's bytes (OSError when it cannot be read)."""
    return path.read_bytes()
