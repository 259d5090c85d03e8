"""The catalog snapshot lookups read is the YAML catalog validated, and stays so.

engine/capacity/data/catalog_snapshot.json is written by scripts/generate_catalog_snapshot.py
from models.yaml and gpus.yaml through pydantic (``load_entries``). It must be what the
generator writes today, else a YAML file changed without regenerating; and while it is stale a
lookup must read the YAML, so an edit is never ignored.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from kvdrill.engine.capacity import catalog
from kvdrill.engine.capacity.catalog import (
    GPUS_PATH,
    MODELS_PATH,
    SNAPSHOT_PATH,
    GpuSpec,
    ModelSpec,
    catalog_snapshot_text,
    get_model,
    gpus,
    load_entries,
    models,
)
from kvdrill.engine.errors import UserError

ROOT = Path(__file__).resolve().parent.parent


def test_the_snapshot_is_what_the_generator_writes_from_the_yaml_today() -> None:
    assert SNAPSHOT_PATH.read_text(encoding="utf-8") == catalog_snapshot_text(), (
        "engine/capacity/data/catalog_snapshot.json is stale: run "
        "scripts/generate_catalog_snapshot.py"
    )


def test_entries_from_the_snapshot_are_the_validated_yaml_entries() -> None:
    # repr, not ==: 80 and 80.0 are equal, but a JSON dump or a division could tell them apart.
    assert repr(models()) == repr(load_entries(MODELS_PATH, ModelSpec))
    assert repr(gpus()) == repr(load_entries(GPUS_PATH, GpuSpec))


@pytest.fixture
def catalog_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The catalog files copied to tmp_path, looked up from there, caches cleared around."""
    caches = (catalog._snapshot, catalog.models, catalog.gpus)
    caches += (catalog._model_index, catalog._gpu_index)
    for path in (MODELS_PATH, GPUS_PATH, SNAPSHOT_PATH):
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.setattr(catalog, "MODELS_PATH", tmp_path / MODELS_PATH.name)
    monkeypatch.setattr(catalog, "GPUS_PATH", tmp_path / GPUS_PATH.name)
    monkeypatch.setattr(catalog, "SNAPSHOT_PATH", tmp_path / SNAPSHOT_PATH.name)
    for cached in caches:
        cached.cache_clear()
    yield tmp_path
    for cached in caches:
        cached.cache_clear()


def test_a_yaml_edit_is_seen_before_the_snapshot_is_regenerated(catalog_copy: Path) -> None:
    models_yaml = catalog_copy / "models.yaml"
    text = models_yaml.read_text(encoding="utf-8")
    models_yaml.write_text(text.replace("name: Llama 3.1 8B\n", "name: Edited 8B\n"), "utf-8")
    assert catalog._snapshot() is None
    assert get_model("llama-3.1-8b").name == "Edited 8B"

    catalog_copy.joinpath(SNAPSHOT_PATH.name).write_text(catalog_snapshot_text(), "utf-8")
    for cached in (catalog._snapshot, catalog.models, catalog._model_index):
        cached.cache_clear()
    assert catalog._snapshot() is not None
    assert get_model("llama-3.1-8b").name == "Edited 8B"


def test_a_broken_yaml_edit_is_an_error_line_not_an_old_figure(catalog_copy: Path) -> None:
    models_yaml = catalog_copy / "models.yaml"
    text = models_yaml.read_text(encoding="utf-8")
    models_yaml.write_text(text.replace("  layers: 32\n", "  layers: 0\n", 1), "utf-8")
    with pytest.raises(
        UserError, match=r"models.yaml: entry 1 layers: Input should be greater than 0"
    ):
        get_model("llama-2-7b")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kv_heads": 7}, r"heads \(32\) is not a multiple of kv_heads"),
        ({"source": ""}, "source: String should have at least 1 character"),
        ({"moe": {"experts": 2, "active_experts": 4, "expert_intermediate": 8}}, "exceeds"),
        ({"layers": "many"}, "layers: Input should be a valid integer"),
    ],
)
def test_the_yaml_rules_hold_for_every_entry(tmp_path: Path, change: dict, message: str) -> None:
    entry = {k: v for k, v in asdict(get_model("llama-2-7b")).items() if v is not None}
    path = tmp_path / "models.yaml"
    path.write_text(json.dumps([{**entry, **change}]), encoding="utf-8")  # JSON is valid YAML
    with pytest.raises(UserError, match=message):
        load_entries(path, ModelSpec)


def test_a_forward_calc_imports_no_heavy_library() -> None:
    heavy = ("pydantic", "yaml", "sympy", "pint", "sqlalchemy")
    code = (
        "import sys; from kvdrill.app.cli import main; "
        "main(['calc', 'kv_bytes_per_token', '--model', 'llama-3.1-8b', '--unit', 'KiB']); "
        "main(['calc', 'decode_floor_time', '--model', 'llama-3.1-70b', '--gpu', 'h100-sxm', "
        "'--tp', '2', '--unit', 'ms']); "
        "main(['calc', 'max_concurrency', '--model', 'llama-3.1-8b', '--set', 'pool=54.8GiB', "
        "'--set', 'max_model_len=131072']); "
        f"print([name for name in {heavy!r} if name in sys.modules])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.splitlines() == [
        "kv_bytes_per_token = 128 KiB",
        "decode_floor_time = 21.06 ms",
        "max_concurrency = 3.425",
        "[]",
    ]
