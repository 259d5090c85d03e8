"""What a parsed pack is: the contract between the pack parser and the importer.

The parser (engine/packs/parser.py) builds these from Markdown; store/importer.py stores them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Defined with the reading of files, which needs no pydantic; named here with the other limits.
from kvdrill.engine.packs.source import MAX_PACK_BYTES  # noqa: F401

CardKind = Literal["recall", "choice", "problem", "followup"]
Status = Literal["solid", "priority"]

MAX_CARDS_PER_PACK = 2000


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Choice(Strict):
    text: str
    correct: bool


class Related(Strict):
    prompt: str
    card: str | None = None  # key of a card in the same pack, when linked


class KeyNumber(Strict):
    text: str  # the item's Markdown, without the claim span
    claim: str | None = None  # the claim's text after ``claim:``, if any
    line: int  # 1-based line in the file


class ParsedCard(Strict):
    key: str
    kind: CardKind
    title: str
    status: Status | None = None
    tags: list[str] = Field(default_factory=list)  # heading tags + Tags: field (not pack tags)
    lessons: list[str] = Field(default_factory=list)
    prompt: str = ""
    answer: str = ""
    key_numbers: list[KeyNumber] = Field(default_factory=list)
    tip: str = ""
    choices: list[Choice] = Field(default_factory=list)
    explanation: str = ""
    related: list[Related] = Field(default_factory=list)
    problem: dict[str, Any] | None = None  # the problem block's YAML mapping, unvalidated here
    problem_line: int | None = None  # line of the opening fence
    problem_field_lines: dict[str, int] = Field(default_factory=dict)  # field -> its line
    parent: str | None = None  # follow-ups: the parent card's key
    line: int  # line of the ``##`` heading (for a follow-up: of its ``### Follow-up``)


class PackMeta(Strict):
    pack: str
    title: str
    version: str
    lang: str = "en"
    lessons: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    description: str = ""


class ParsedPack(Strict):
    meta: PackMeta
    intro: str = ""
    cards: list[ParsedCard]  # in file order; a follow-up comes right after its parent
    path: str
    content_hash: str  # sha256 of the file's bytes
