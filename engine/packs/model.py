"""What a parsed pack is: the contract between the pack parser and the importer.

The parser (engine/packs/parser.py) builds these from Markdown; store/importer.py stores them.
They are frozen plain dataclasses, not pydantic models: the parser has already checked every
value and worded every problem, so validating each card again only cost time (about half of
parsing a big pack went to it and to loading pydantic).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

# Defined with the reading of files, which needs no pydantic; named here with the other limits.
from kvdrill.engine.packs.source import MAX_PACK_BYTES  # noqa: F401

CardKind = Literal["recall", "choice", "problem", "followup"]
Status = Literal["solid", "priority"]

MAX_CARDS_PER_PACK = 2000


class _Record:
    """``model_dump`` and ``model_copy``, the two methods readers of the former pydantic models
    call, with the same results."""

    def model_dump(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Any:
        return dataclasses.replace(self, **(update or {}))  # type: ignore[type-var]


class _FlatRecord(_Record):
    """A record of plain values only: its dict is a copy of its fields, without the recursion
    and deep copies of ``dataclasses.asdict`` (the importer dumps every key number)."""

    def model_dump(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True, kw_only=True)
class Choice(_FlatRecord):
    text: str
    correct: bool


@dataclass(frozen=True, kw_only=True)
class Related(_FlatRecord):
    prompt: str
    card: str | None = None  # key of a card in the same pack, when linked


@dataclass(frozen=True, kw_only=True)
class KeyNumber(_FlatRecord):
    text: str  # the item's Markdown, without the claim span
    claim: str | None = None  # the claim's text after ``claim:``, if any
    line: int  # 1-based line in the file


@dataclass(frozen=True, kw_only=True)
class ParsedCard(_Record):
    key: str
    kind: CardKind
    title: str
    status: Status | None = None
    tags: list[str] = field(default_factory=list)  # heading tags + Tags: field (not pack tags)
    lessons: list[str] = field(default_factory=list)
    prompt: str = ""
    answer: str = ""
    key_numbers: list[KeyNumber] = field(default_factory=list)
    tip: str = ""
    choices: list[Choice] = field(default_factory=list)
    explanation: str = ""
    related: list[Related] = field(default_factory=list)
    problem: dict[str, Any] | None = None  # the problem block's YAML mapping, unvalidated here
    problem_line: int | None = None  # line of the opening fence
    problem_field_lines: dict[str, int] = field(default_factory=dict)  # field -> its line
    parent: str | None = None  # follow-ups: the parent card's key
    line: int  # line of the ``##`` heading (for a follow-up: of its ``### Follow-up``)


@dataclass(frozen=True, kw_only=True)
class PackMeta(_Record):
    pack: str
    title: str
    version: str
    lang: str = "en"
    lessons: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    description: str = ""
    edition_of: str | None = None  # the pack id this pack translates (engine/packs/editions.py)


@dataclass(frozen=True, kw_only=True)
class ParsedPack(_Record):
    meta: PackMeta
    intro: str = ""
    cards: list[ParsedCard]  # in file order; a follow-up comes right after its parent
    path: str
    content_hash: str  # sha256 of the file's bytes
