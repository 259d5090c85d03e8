"""What a drill shows of a card, built from one row of ``CARD_VIEW_SQL``. Standard library only.

``store/drill.py`` builds every card of a session here; the fast-start helper
(app/first_card.py) builds the first one the same way without importing SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kvdrill.store.queries_sql import stored_json

if TYPE_CHECKING:
    from kvdrill.engine.problems.types import Variant

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def problem_cards_supported() -> bool:
    """Whether the generator and checker exist yet; until then problem cards stay out of drills.

    Only looks for the modules: importing them loads sympy, which waits for the first problem.
    """
    from importlib.util import find_spec

    return all(
        find_spec(name) is not None
        for name in ("kvdrill.engine.problems.checker", "kvdrill.engine.problems.generator")
    )


def excluded_kinds() -> tuple[str, ...]:
    """The card kinds a session leaves out."""
    return () if problem_cards_supported() else ("problem",)


@dataclass(frozen=True)
class ChoiceView:
    letter: str  # A, B, C... in the order written
    text: str
    correct: bool


@dataclass(frozen=True)
class CardView:
    """What a screen shows of the current card. Text comes from a pack: show it literally."""

    card_id: int
    key: str  # the card's id in its pack, e.g. "kv-bytes-per-token" or "<parent>/follow-up"
    kind: str  # recall | choice | problem | followup
    pack_key: str
    pack_title: str
    title: str
    prompt: str  # for a problem: the variant's prompt
    answer: str = ""
    key_numbers: list[str] = field(default_factory=list)
    tip: str = ""
    choices: list[ChoiceView] = field(default_factory=list)
    explanation: str = ""
    related: list[str] = field(default_factory=list)  # prompts of related questions
    note: str = ""  # the learner's own note on this card
    variant: Variant | None = None  # problems only
    parent_title: str | None = None  # follow-ups: the card they follow
    tags: list[str] = field(default_factory=list)
    is_new: bool = False  # first time this card is shown to the profile
    is_repeat: bool = False  # missed earlier today, shown again (SM-2 step 7)
    leech: bool = False

    @property
    def correct_letters(self) -> str:
        return "".join(choice.letter for choice in self.choices if choice.correct)


def problem_spec(row: Mapping[str, Any]) -> dict[str, Any]:
    """A problem card's template, from its view row."""
    return stored_json(row["problem"]) or {}


def card_view(
    row: Mapping[str, Any], *, is_repeat: bool, variant: Variant | None = None
) -> CardView:
    """The view of the card in ``row``; a problem's prompt is its ``variant``'s."""
    return CardView(
        card_id=row["id"],
        key=row["key"],
        kind=row["kind"],
        pack_key=row["pack_key"],
        pack_title=row["pack_title"],
        title=row["title"],
        prompt=variant.prompt if variant is not None else row["prompt"],
        answer=row["answer"],
        key_numbers=[_item_text(item, "text") for item in stored_json(row["key_numbers"]) or []],
        tip=row["tip"],
        choices=[
            ChoiceView(LETTERS[i], str(c.get("text", "")), bool(c.get("correct")))
            for i, c in enumerate(stored_json(row["choices"]) or [])
        ],
        explanation=row["explanation"],
        related=[_item_text(item, "prompt") for item in stored_json(row["related"]) or []],
        note=row["note"] or "",
        variant=variant,
        parent_title=row["parent_title"],
        tags=list(stored_json(row["tags"]) or []),
        is_new=not row["reviews"],
        is_repeat=is_repeat,
        leech=bool(row["leech"]),
    )


def _item_text(item: Any, key: str) -> str:
    if isinstance(item, dict):
        return str(item.get(key, ""))
    return str(item)
