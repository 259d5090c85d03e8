"""The bundled packs' problem templates, as (template id, problem block) pairs, for tests."""

from __future__ import annotations

from pathlib import Path

from kvdrill.app.services.pack_files import parse_paths

DECKS = Path(__file__).resolve().parent.parent / "decks"


def bundled_templates(lang: str | None = None) -> list[tuple[str, dict]]:
    """Every problem template of decks/ (of one language when ``lang`` is given)."""
    packs, problems = parse_paths([DECKS])
    assert problems == []
    return [
        (f"{pack.meta.pack}/{card.key}", card.problem)
        for pack in packs
        if lang is None or pack.meta.lang == lang
        for card in pack.cards
        if card.kind == "problem"
    ]
