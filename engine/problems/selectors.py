"""The catalog entries a template's ``model``, ``gpu``, ``dtype`` and ``kv_dtype`` axes name."""

from __future__ import annotations

from typing import Any

from kvdrill.engine.capacity.catalog import get_dtype, get_gpu, get_model, gpus, models
from kvdrill.engine.errors import UserError

MODEL_SELECTORS = ("all", "mha", "gqa", "mla", "moe", "dense", "swa")
GPU_SELECTORS = ("all", "fp8", "fp4")


def select_models(raw: Any) -> tuple[Any, ...]:
    words = raw.split("|") if isinstance(raw, str) else []
    if words and all(word.strip() in MODEL_SELECTORS for word in words):
        chosen = [m for m in models().values() if any(model_matches(m, w.strip()) for w in words)]
        if not chosen:
            raise ValueError(f"no model in the catalog is {raw}")
        return tuple(chosen)
    if isinstance(raw, str):
        try:
            return (get_model(raw),)
        except UserError as exc:
            if "did you mean" in str(exc):
                raise
            raise ValueError(
                f"{raw!r} is neither a model id (see kvdrill models) nor a selector: "
                f"expected {'|'.join(MODEL_SELECTORS)}, a list of model ids, or `synthetic:`"
            ) from None
    if not isinstance(raw, list) or not raw:
        raise ValueError(
            f"expected a selector ({'|'.join(MODEL_SELECTORS)}), a list of model ids, "
            "or `synthetic:`"
        )
    return tuple(get_model(str(item)) for item in raw)


def model_matches(model: Any, selector: str) -> bool:
    if selector == "all":
        return True
    if selector == "moe":
        return model.is_moe
    if selector == "dense":
        return not model.is_moe
    if selector == "swa":
        return model.sliding_window is not None
    return model.attention_kind == selector


def select_gpus(raw: Any) -> tuple[Any, ...]:
    if isinstance(raw, str) and raw in GPU_SELECTORS:
        return tuple(g for g in gpus().values() if raw == "all" or getattr(g, raw))
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"expected a selector ({'|'.join(GPU_SELECTORS)}) or a list of GPU ids")
    return tuple(get_gpu(str(item)) for item in raw)


def select_dtypes(raw: Any) -> tuple[str, ...]:
    values = raw if isinstance(raw, list) else [raw]
    if not values:
        raise ValueError("give at least one dtype")
    return tuple(get_dtype(str(item)).name for item in values)
