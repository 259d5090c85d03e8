"""A parsed card's content as the store keeps it: its column values, the hash that says whether
it changed, its topics, and the JSON text of its columns. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kvdrill.store.sql import Sql

if TYPE_CHECKING:
    from kvdrill.engine.packs.model import ParsedCard, ParsedPack

# What ``card_hash`` encodes with: a stable text of everything the learner sees.
_HASH_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str).encode


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _lesson(value: str) -> str:
    # "05" and "5" are the same lesson.
    return str(int(value)) if value.isdigit() else value


@dataclass(frozen=True)
class PackDefaults:
    """What every card of a pack starts from: the pack's tags and its lessons (normalised),
    each once. Worked out once per pack, not per card."""

    tags: list[str]
    lessons: list[str]

    @classmethod
    def of(cls, pack: ParsedPack) -> PackDefaults:
        return cls(
            _unique(pack.meta.tags), _unique(_lesson(lesson) for lesson in pack.meta.lessons)
        )


def card_values(
    pack: ParsedPack, card: ParsedCard, defaults: PackDefaults | None = None
) -> dict[str, Any]:
    """The columns a parsed card is stored in, except its position, lines and parent row id.

    Tags are the pack's plus the card's; lessons are the card's own, else the pack's.
    ``defaults``: the pack's ``PackDefaults``, if the caller has them already.
    """
    if defaults is None:
        defaults = PackDefaults.of(pack)
    return {
        "kind": card.kind,
        "title": card.title,
        "status": card.status,
        "prompt": card.prompt,
        "answer": card.answer,
        "key_numbers": [number.model_dump() for number in card.key_numbers],
        "tip": card.tip,
        "choices": [choice.model_dump() for choice in card.choices] if card.choices else [],
        "explanation": card.explanation,
        "related": [related.model_dump() for related in card.related] if card.related else [],
        "problem": card.problem,
        "tags": _unique([*defaults.tags, *card.tags]) if card.tags else list(defaults.tags),
        "lessons": (
            _unique(_lesson(lesson) for lesson in card.lessons)
            if card.lessons
            else list(defaults.lessons)
        ),
    }


def card_hash(values: dict[str, Any], parent_key: str | None) -> str:
    """sha256 of what the learner sees of a card; line numbers left out so moving is no change."""
    content = dict(values)
    content["key_numbers"] = [
        {k: v for k, v in number.items() if k != "line"} for number in values["key_numbers"]
    ]
    content["parent"] = parent_key
    encoded = _HASH_JSON(content)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def card_topics(pack_key: str, values: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        ("pack", pack_key),
        *(("tag", tag) for tag in values["tags"]),
        *(("lesson", lesson) for lesson in values["lessons"]),
    }


class Encoded:
    """JSON text of a pack's cards, each list of tags or lessons encoded once."""

    def __init__(self, db: Sql):
        self.json = db.json
        self._lists: dict[tuple[str, ...], str | None] = {}

    def listed(self, values: list[str]) -> str | None:
        key = tuple(values)
        found = self._lists.get(key)
        if found is None:
            found = self._lists[key] = self.json(values)
        return found

    def json_each_reads_back(self) -> bool:
        """Whether SQLite's json_each gives back every tag and lesson encoded so far."""
        return not any(text and "\\u0000" in text for text in self._lists.values())

    def content(self, values: dict[str, Any], digest: str, placement: tuple) -> tuple:
        """A card's ``_CONTENT_COLUMNS``, in that order."""
        json = self.json
        return (
            values["kind"],
            values["title"],
            values["status"],
            values["prompt"],
            values["answer"],
            json(values["key_numbers"]),
            values["tip"],
            json(values["choices"]),
            values["explanation"],
            json(values["related"]),
            json(values["problem"]),
            self.listed(values["tags"]),
            self.listed(values["lessons"]),
            digest,
            *placement,
        )
