"""Placeholders in a problem prompt: ``{name}``, ``{name:unit}``, ``{{`` and ``}}``."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from kvdrill.engine.problems.quantities import catalog_symbol

SPECIAL_PLACEHOLDERS = ("model", "gpu", "dtype", "kv_dtype", "unit")

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}:]{1,40}))?\}|[{}]")


def iter_placeholders(text: str) -> Iterator[tuple[str, str | None] | None]:
    """Yield (name, unit or None) for each placeholder; None for a stray brace."""
    for match in _PLACEHOLDER.finditer(text):
        token = match.group(0)
        if token in ("{{", "}}"):
            continue
        if match.group(1) is None:
            yield None
        else:
            yield match.group(1), (match.group(2).strip() if match.group(2) else None)


def fill_placeholders(text: str, shown: Mapping[tuple[str, str | None], str]) -> str:
    """Replace each placeholder with its display text; ``{{``/``}}`` become braces."""

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        unit = match.group(2).strip() if match.group(2) else None
        name = match.group(1)
        key = (name if name in SPECIAL_PLACEHOLDERS else catalog_symbol(name) or name, unit)
        return shown.get(key, token)

    return _PLACEHOLDER.sub(replace, text)
