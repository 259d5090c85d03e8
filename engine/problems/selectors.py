"""The catalog entries a template's ``model``, ``gpu``, ``dtype`` and ``kv_dtype`` axes name."""

from __future__ import annotations

from typing import Any

from kvdrill.engine.capacity.catalog import (
    UnknownModel,
    get_dtype,
    get_gpu,
    get_model,
    gpus,
    models,
)
from kvdrill.i18n import _

MODEL_SELECTORS = ("all", "mha", "gqa", "mla", "moe", "dense", "swa")
GPU_SELECTORS = ("all", "fp8", "fp4")


def select_models(raw: Any) -> tuple[Any, ...]:
    words = raw.split("|") if isinstance(raw, str) else []
    if words and all(word.strip() in MODEL_SELECTORS for word in words):
        chosen = [m for m in models().values() if any(model_matches(m, w.strip()) for w in words)]
        if not chosen:
            raise ValueError(_("no model in the catalog is {selector}").format(selector=raw))
        return tuple(chosen)
    if isinstance(raw, str):
        try:
            return (get_model(raw),)
        except UnknownModel as exc:
            if exc.suggested:
                raise
            raise ValueError(
                _(
                    "{raw} is neither a model id (see kvdrill models) nor a selector: expected "
                    "{selectors}, a list of model ids, or `synthetic:`"
                ).format(raw=repr(raw), selectors="|".join(MODEL_SELECTORS))
            ) from None
    if not isinstance(raw, list) or not raw:
        raise ValueError(
            _("expected a selector ({selectors}), a list of model ids, or `synthetic:`").format(
                selectors="|".join(MODEL_SELECTORS)
            )
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
        raise ValueError(
            _("expected a selector ({selectors}) or a list of GPU ids").format(
                selectors="|".join(GPU_SELECTORS)
            )
        )
    return tuple(get_gpu(str(item)) for item in raw)


def select_dtypes(raw: Any) -> tuple[str, ...]:
    values = raw if isinstance(raw, list) else [raw]
    if not values:
        raise ValueError(_("give at least one dtype"))
    return tuple(get_dtype(str(item)).name for item in values)
