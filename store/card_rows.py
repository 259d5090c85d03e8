"""A card view built from one row of ``CARD_VIEW_SQL``. Standard library only.

The drill session (through store/cards.py) and the fast-start reader (store/fast_start.py) build
every ``CardView`` here, so both give the very same card.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvdrill.engine.packs.card_view import CardView, choice_views
from kvdrill.engine.problems.types import Variant
from kvdrill.engine.records import unchecked
from kvdrill.store.queries_sql import stored_json


def problem_spec(row: Mapping[str, Any]) -> dict[str, Any]:
    """A problem card's template, from its view row."""
    return stored_json(row["problem"]) or {}


def card_view(
    row: Mapping[str, Any],
    *,
    is_repeat: bool,
    variant: Variant | None = None,
    seed: int | None = None,
) -> CardView:
    """The view of the card in ``row``; a problem's prompt is its ``variant``'s, a
    multiple-choice card's choices are shuffled with ``seed`` (engine/study/seeds.py)."""
    choice_seed = seed if row["kind"] == "choice" else None
    # Every field given (a test checks), so without the frozen dataclass's field-by-field
    # ``object.__setattr__``: one card view is built between an answer and the next card. A
    # dict display, not ``dict(...)``'s keywords: no keyword dict made and copied.
    return unchecked(
        CardView,
        {
            "card_id": row["id"],
            "key": row["key"],
            "kind": row["kind"],
            "pack_key": row["pack_key"],
            "pack_title": row["pack_title"],
            "title": row["title"],
            "prompt": variant.prompt if variant is not None else row["prompt"],
            "answer": row["answer"],
            "key_numbers": [
                _item_text(item, "text") for item in stored_json(row["key_numbers"]) or []
            ],
            "tip": row["tip"],
            "choices": choice_views(stored_json(row["choices"]) or [], choice_seed),
            "explanation": row["explanation"],
            "related": [_item_text(item, "prompt") for item in stored_json(row["related"]) or []],
            "note": row["note"] or "",
            "variant": variant,
            "parent_title": row["parent_title"],
            "tags": list(stored_json(row["tags"]) or []),
            "is_new": not row["reviews"],
            "is_repeat": is_repeat,
            "leech": bool(row["leech"]),
            "choice_seed": choice_seed,
            "priority": row["status"] == "priority",
            "pack_path": row["pack_path"] or "",
        },
    )


def _item_text(item: Any, key: str) -> str:
    if isinstance(item, dict):
        return str(item.get(key, ""))
    return str(item)
