"""The model and GPU catalogs (engine/capacity/data/*.yaml) and the precisions kvdrill knows.

Public API (stable; the generator, checker, claim checks and ``kvdrill calc`` use it):

- ``models() -> dict[str, ModelSpec]`` and ``gpus() -> dict[str, GpuSpec]``: every entry by id,
  in file order, loaded once. They come from data/catalog_snapshot.json (the YAML files already
  validated, written by scripts/generate_catalog_snapshot.py), so a lookup imports neither
  PyYAML nor pydantic; while a YAML file differs from the one the snapshot was made from, they
  come from ``load_entries`` instead, which validates the YAML with pydantic.
- ``get_model(name) -> ModelSpec`` and ``get_gpu(name) -> GpuSpec``: by id or alias, case and
  ``_``/space insensitive; an unknown name raises ``UserError`` listing close matches.
- ``get_dtype(name) -> Dtype`` and ``DTYPES``: bytes per element and weight bits per precision.
- ``close_matches(word, choices) -> str``: the "did you mean" text used by every lookup here.

``ModelSpec`` fields: layers, heads, kv_heads, head_dim (always explicit), hidden, intermediate
(the dense MLP size), vocab, tied_embeddings, qkv_bias, optional ``moe`` (experts,
active_experts, expert_intermediate, shared_experts, dense_layers), optional ``mla``
(kv_lora_rank, rope_dim, q_lora_rank, qk_nope_dim, v_head_dim), optional ``sliding_window``
(window, sliding_layers), max_context, published parameter counts and a ``source`` note.
Derived: ``attention_kind`` ("mha", "gqa" or "mla"), ``is_moe``.

``GpuSpec`` fields: memory_gb (the datasheet's label: "80 GB" of HBM is 80 GiB), bandwidth_tbps
(decimal TB/s), bf16_tflops (dense), fp8, fp8_tflops (dense, given exactly when fp8), fp4,
visible_memory_gib (the total the GPU runtime reports, as vLLM logs it) with
visible_memory_source (where it was read). Derived: ``visible_memory_bytes`` (what vLLM
multiplies by gpu_memory_utilization), ``bandwidth_bytes_per_s``, ``peak_flops(weight_dtype)``
(FLOP/s of the compute dtype).

Entries are frozen dataclasses; ``dataclasses.asdict`` gives their fields as plain data.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import MISSING, asdict, dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

from kvdrill.engine.capacity.data_files import (
    GPUS_PATH,
    MODELS_PATH,
    SNAPSHOT_PATH,
    data_bytes,
    data_text,
)
from kvdrill.engine.capacity.units import shorten
from kvdrill.engine.errors import UserError
from kvdrill.i18n import _


def _bound(default: Any = MISSING, **limits: float) -> Any:
    """A field with limits (gt, ge, min_length) that pydantic checks when it reads the YAML."""
    return field(default=default, metadata=limits)  # pydantic takes metadata as Field(**limits)


class _Entry:
    """Catalog entries are frozen plain dataclasses, so a lookup needs neither pydantic nor YAML.

    ``load_entries`` validates the YAML into them with pydantic: types, the ``_bound`` limits,
    unknown keys, and ``__post_init__`` (rules across fields, which raise ValueError).
    """

    __pydantic_config__ = {"extra": "forbid"}  # a mistyped key in the YAML is an error


@dataclass(frozen=True, kw_only=True)
class MoE(_Entry):
    """Mixture of experts: every expert sits in memory, ``active_experts`` run per token."""

    experts: int = _bound(gt=0)  # routed experts per MoE layer
    active_experts: int = _bound(gt=0)  # routed experts each token goes through
    expert_intermediate: int = _bound(gt=0)  # MLP size of one expert
    shared_experts: int = _bound(0, ge=0)  # experts every token goes through
    dense_layers: int = _bound(0, ge=0)  # leading layers with a dense MLP instead


@dataclass(frozen=True, kw_only=True)
class MLA(_Entry):
    """Multi-head latent attention: the KV cache holds one latent per token per layer."""

    kv_lora_rank: int = _bound(gt=0)
    rope_dim: int = _bound(gt=0)  # decoupled RoPE key, cached beside the latent
    q_lora_rank: int = _bound(gt=0)
    qk_nope_dim: int = _bound(gt=0)
    v_head_dim: int = _bound(gt=0)


@dataclass(frozen=True, kw_only=True)
class SlidingWindow(_Entry):
    """Layers that attend (and cache) only the last ``window`` tokens."""

    window: int = _bound(gt=0)
    sliding_layers: int = _bound(gt=0)
    pattern: str = ""


@dataclass(frozen=True, kw_only=True)
class Checkpoint(_Entry):
    """A published checkpoint of the same architecture whose config differs in its context
    (an Instruct model without the base model's long-context rope scaling)."""

    id: str
    name: str
    aliases: tuple[str, ...] = ()
    max_context: int = _bound(gt=0)
    source: str = _bound(min_length=1)


@dataclass(frozen=True, kw_only=True)
class ModelSpec(_Entry):
    id: str
    name: str
    aliases: tuple[str, ...] = ()
    layers: int = _bound(gt=0)
    heads: int = _bound(gt=0)
    kv_heads: int = _bound(gt=0)
    head_dim: int = _bound(gt=0)
    hidden: int = _bound(gt=0)
    intermediate: int = _bound(gt=0)
    vocab: int = _bound(gt=0)
    tied_embeddings: bool
    qkv_bias: bool = False
    moe: MoE | None = None
    mla: MLA | None = None
    sliding_window: SlidingWindow | None = None
    max_context: int | None = _bound(None, gt=0)
    published_params_b: float = _bound(gt=0)
    published_active_params_b: float | None = _bound(None, gt=0)
    source: str = _bound(min_length=1)
    checkpoints: tuple[Checkpoint, ...] = ()  # looked up by get_model, not listed by models()

    def __post_init__(self) -> None:
        if self.heads % self.kv_heads:
            raise ValueError(f"heads ({self.heads}) is not a multiple of kv_heads")
        if self.moe and self.moe.dense_layers > self.layers:
            raise ValueError("moe.dense_layers exceeds layers")
        if self.moe and self.moe.active_experts > self.moe.experts:
            raise ValueError("moe.active_experts exceeds moe.experts")
        if self.sliding_window and self.sliding_window.sliding_layers > self.layers:
            raise ValueError("sliding_window.sliding_layers exceeds layers")

    @property
    def attention_kind(self) -> Literal["mha", "gqa", "mla"]:
        if self.mla:
            return "mla"
        return "mha" if self.kv_heads == self.heads else "gqa"

    @property
    def is_moe(self) -> bool:
        return self.moe is not None

    def tp_refusal(self, tp: int) -> str | None:
        """Why vLLM refuses this tensor-parallel size for the model, in its words, or None.

        vLLM checks that TP divides the attention heads (ModelConfig), and in the attention
        layers that it divides the KV heads or, past their count, is a multiple of them (each
        KV head is then replicated). MLA caches one shared latent, so only the heads count.
        """
        if self.heads % tp:
            return _(
                "{model}: tensor-parallel size {tp} does not divide its {heads} attention heads, "
                "and vLLM refuses it"
            ).format(model=self.name, tp=tp, heads=self.heads)
        if self.mla is None and (self.kv_heads % tp if tp <= self.kv_heads else tp % self.kv_heads):
            return _(
                "{model}: tensor-parallel size {tp} neither divides its {kv_heads} KV heads nor "
                "is a multiple of them, and vLLM refuses it"
            ).format(model=self.name, tp=tp, kv_heads=self.kv_heads)
        return None

    def max_model_len_refusal(self, max_model_len: float) -> str | None:
        """Why vLLM refuses a max_model_len beyond the model's context, or None."""
        if self.max_context is None or max_model_len <= self.max_context:
            return None
        return _(
            "{model}: max_model_len {asked} is above its context of {context} tokens, and vLLM "
            "refuses it"
        ).format(model=self.name, asked=f"{max_model_len:,.0f}", context=f"{self.max_context:,}")


@dataclass(frozen=True, kw_only=True)
class GpuSpec(_Entry):
    id: str
    name: str
    aliases: tuple[str, ...] = ()
    memory_gb: float = _bound(gt=0)  # the datasheet's label; HBM is binary-sized
    bandwidth_tbps: float = _bound(gt=0)  # decimal TB/s
    bf16_tflops: float = _bound(gt=0)  # dense
    fp8: bool
    fp8_tflops: float | None = _bound(None, gt=0)  # dense, where FP8 tensor cores exist
    fp4: bool = False
    visible_memory_gib: float = _bound(gt=0)  # the total the runtime reports, in GiB
    visible_memory_source: str = _bound(min_length=1)  # where that total was read
    memory_note: str = ""
    source: str = _bound(min_length=1)

    def __post_init__(self) -> None:
        if self.fp8 != (self.fp8_tflops is not None):
            raise ValueError("fp8_tflops is given exactly when fp8 is true")
        if self.visible_memory_gib > self.memory_gb:
            raise ValueError("visible_memory_gib exceeds the HBM the datasheet gives (in GiB)")

    @property
    def visible_memory_bytes(self) -> float:
        """What vLLM multiplies by gpu_memory_utilization: the total the runtime reports."""
        return self.visible_memory_gib * 2**30

    def peak_flops(self, weight_dtype: str) -> float:
        """Dense FLOP/s for the math: FP8 tensor cores run FP8 weights, else BF16 (weight-only)."""
        if weight_dtype == "fp8" and self.fp8_tflops is not None:
            return self.fp8_tflops * 1e12
        return self.bf16_tflops * 1e12

    @property
    def bandwidth_bytes_per_s(self) -> float:
        return self.bandwidth_tbps * 1e12


@dataclass(frozen=True, kw_only=True)
class Dtype:
    name: str
    bytes: float  # per element (KV cache) or per parameter before scales (weights)
    bits: float
    scale_bits: float  # default per-parameter overhead of quantization scales, in bits


# 4-bit formats carry scales: int4 (GPTQ/AWQ style) one 16-bit scale per group of 128 weights
# = 0.125 bit per weight; fp4 (NVFP4) one 8-bit scale per 16 values = 0.5 bit per weight.
DTYPES: dict[str, Dtype] = {
    d.name: d
    for d in (
        Dtype(name="fp32", bytes=4.0, bits=32.0, scale_bits=0.0),
        Dtype(name="bf16", bytes=2.0, bits=16.0, scale_bits=0.0),
        Dtype(name="fp16", bytes=2.0, bits=16.0, scale_bits=0.0),
        Dtype(name="fp8", bytes=1.0, bits=8.0, scale_bits=0.0),
        Dtype(name="int8", bytes=1.0, bits=8.0, scale_bits=0.0),
        Dtype(name="int4", bytes=0.5, bits=4.0, scale_bits=0.125),
        Dtype(name="fp4", bytes=0.5, bits=4.0, scale_bits=0.5),
    )
}
_DTYPE_ALIASES = {
    "float16": "fp16",
    "half": "fp16",
    "bfloat16": "bf16",
    "float32": "fp32",
    "fp8-e4m3": "fp8",
    "fp8-e5m2": "fp8",
    "4bit": "int4",
    "4-bit": "int4",
    "8bit": "int8",
    "nvfp4": "fp4",
    "awq": "int4",
    "gptq": "int4",
}


def _key(name: str) -> str:
    return name.strip().lower().replace("_", "-").replace(" ", "-")


# Past this many names a "known:" list is a wall of text rather than a hint.
MAX_KNOWN_LISTED = 30


def nearest(word: str, choices: list[str]) -> list[str]:
    """The (at most four) choices close to ``word``, closest first."""
    import difflib  # only an error needs it

    return difflib.get_close_matches(word, list(dict.fromkeys(choices)), n=4, cutoff=0.5)


class UnknownModel(UserError):
    """A model id the catalog does not have; ``suggested`` when the message names close ones."""

    def __init__(self, message: str, suggested: bool) -> None:
        super().__init__(message)
        self.suggested = suggested


def close_matches(word: str, choices: list[str], listing: str = "") -> str:
    """' (did you mean a, b?)' or a list of what exists, for a one-line error.

    ``listing`` ("kvdrill calc --list shows them") replaces a list longer than MAX_KNOWN_LISTED.
    """
    choices = list(dict.fromkeys(choices))
    near = nearest(word, choices)
    if near:
        return _(" (did you mean {names}?)").format(names=", ".join(near))
    if listing and len(choices) > MAX_KNOWN_LISTED:
        return _(" (none is close; {listing})").format(listing=_(listing))
    return _(" (known: {names})").format(names=", ".join(sorted(choices)))


def quoted(text: str) -> str:
    """What the user typed, for an error line: quoted, control characters escaped, shortened."""
    return repr(shorten(text, 40))


def load_entries(path: Path, spec: type[_Entry]) -> dict:
    """Entries of one catalog file by id, validated by pydantic; any problem is a one-line
    ``UserError``. The slow, thorough path: lookups read the snapshot made from it."""
    import yaml
    from pydantic import TypeAdapter, ValidationError

    try:
        raw = yaml.safe_load(data_text(path))
    except (OSError, yaml.YAMLError) as exc:
        raise UserError(f"{path}: cannot read the catalog ({type(exc).__name__})") from None
    if not isinstance(raw, list):
        raise UserError(f"{path}: expected a list of entries")
    adapter = TypeAdapter(spec)
    entries: dict = {}
    for index, item in enumerate(raw):
        try:
            entry: Any = adapter.validate_python(item)  # a ModelSpec or GpuSpec: has an id
        except ValidationError as exc:
            first = exc.errors()[0]
            where = "".join(f" {'.'.join(str(p) for p in first['loc'])}" if first["loc"] else "")
            message = first["msg"].removeprefix("Value error, ")
            raise UserError(f"{path}: entry {index + 1}{where}: {message}") from None
        if entry.id in entries:
            raise UserError(f"{path}: duplicate id {entry.id}")
        entries[entry.id] = entry
    return entries


def source_fingerprints() -> dict[str, int]:
    """CRC-32 of each catalog file, recorded in the snapshot to tell when it is stale."""
    return {path.name: zlib.crc32(data_bytes(path)) for path in (MODELS_PATH, GPUS_PATH)}


@cache
def _snapshot() -> dict | None:
    """The checked-in snapshot, or None when a YAML file changed after it was written."""
    try:
        snapshot = json.loads(data_text(SNAPSHOT_PATH))
    except (OSError, ValueError):
        return None
    return snapshot if snapshot.get("sources") == source_fingerprints() else None


_NESTED = {"moe": MoE, "mla": MLA, "sliding_window": SlidingWindow}


def _from_snapshot(spec: type[_Entry], entry: dict) -> Any:
    """One entry as ``load_entries`` made it, from its snapshot dict."""
    values = {
        key: _NESTED[key](**value) if key in _NESTED and value is not None else value
        for key, value in entry.items()
    }
    values["aliases"] = tuple(values["aliases"])
    if "checkpoints" in values:
        values["checkpoints"] = tuple(
            Checkpoint(**{**c, "aliases": tuple(c.get("aliases", ()))})
            for c in values["checkpoints"]
        )
    return spec(**values)


def _entries(key: str, path: Path, spec: type[_Entry]) -> dict:
    """Entries by id: from the snapshot while it matches the YAML, else validated from it."""
    snapshot = _snapshot()
    if snapshot is None:
        return load_entries(path, spec)
    return {entry["id"]: _from_snapshot(spec, entry) for entry in snapshot[key]}


@cache
def models() -> dict[str, ModelSpec]:
    return _entries("models", MODELS_PATH, ModelSpec)


@cache
def gpus() -> dict[str, GpuSpec]:
    return _entries("gpus", GPUS_PATH, GpuSpec)


def catalog_snapshot_text() -> str:
    """What SNAPSHOT_PATH must hold: the YAML files validated, as JSON, with their CRC-32s."""
    snapshot = {
        "generated_by": "scripts/generate_catalog_snapshot.py from models.yaml and gpus.yaml",
        "sources": source_fingerprints(),
        "models": [asdict(m) for m in load_entries(MODELS_PATH, ModelSpec).values()],
        "gpus": [asdict(g) for g in load_entries(GPUS_PATH, GpuSpec).values()],
    }
    return json.dumps(snapshot, indent=1) + "\n"


@cache
def _model_index() -> dict[str, str]:
    return _index(models())


@cache
def _gpu_index() -> dict[str, str]:
    return _index(gpus())


def _index(entries: dict) -> dict[str, str]:
    index = {}
    for entry in entries.values():
        for name in (entry.id, *entry.aliases):
            index[_key(name)] = entry.id
    return index


@cache
def _checkpoints() -> dict[str, ModelSpec]:
    """Each published checkpoint by id: its architecture's entry with the checkpoint's context."""
    found: dict[str, ModelSpec] = {}
    for spec in models().values():
        for checkpoint in spec.checkpoints:
            entry = replace(
                spec,
                id=checkpoint.id,
                name=checkpoint.name,
                aliases=checkpoint.aliases,
                max_context=checkpoint.max_context,
                source=checkpoint.source,
                checkpoints=(),
            )
            for name in (checkpoint.id, *checkpoint.aliases):
                found[_key(name)] = entry
    return found


def get_model(name: str) -> ModelSpec:
    checkpoint = _checkpoints().get(_key(name))
    if checkpoint is not None:
        return checkpoint
    index = _model_index()
    if _key(name) not in index:
        choices = [*index, *_checkpoints()]
        raise UnknownModel(
            _("unknown model {name}{hint}").format(
                name=quoted(name), hint=close_matches(_key(name), choices)
            ),
            suggested=bool(nearest(_key(name), choices)),
        )
    return models()[index[_key(name)]]


def get_gpu(name: str) -> GpuSpec:
    index = _gpu_index()
    if _key(name) not in index:
        raise UserError(
            _("unknown GPU {name}{hint}").format(
                name=quoted(name), hint=close_matches(_key(name), list(index))
            )
        )
    return gpus()[index[_key(name)]]


def get_dtype(name: str) -> Dtype:
    key = _key(name)
    key = _DTYPE_ALIASES.get(key, key)
    if key not in DTYPES:
        raise UserError(
            _("unknown dtype {name}{hint}").format(
                name=quoted(name), hint=close_matches(key, list(DTYPES))
            )
        )
    return DTYPES[key]
