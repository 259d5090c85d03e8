"""What a drill shows of a card: the one shape a card has from the store to every screen, to
plain mode and to the fast-start helper's JSON. Standard library only (the fast start imports it).

The store builds it (store/card_rows.py); ``to_dict``/``from_dict`` carry it across the
fast-start helper's pipe unchanged.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field, fields
from string import ascii_uppercase
from typing import Any, TypedDict, cast

from kvdrill.engine.problems.types import Variant
from kvdrill.i18n import N_, _

MIN_CHOICES, MAX_CHOICES = 2, 8
# One letter per possible choice: A, B, C... in the order shown.
CHOICE_LETTERS = ascii_uppercase[:MAX_CHOICES]
CHOICE_SEPARATORS = " ,;/+"  # what may stand between typed letters: "A C", "a,c"
# A follow-up is named by its question, cut to this many characters.
FOLLOW_UP_TITLE_WIDTH = 60


def own_title(kind: str, title: str, prompt: str) -> str:
    """The title that names this card: a follow-up carries its parent's title, so it is named
    by its own question instead ("follow-up: How much KV does…")."""
    if kind != "followup":
        return title
    question = " ".join(prompt.split())
    if len(question) > FOLLOW_UP_TITLE_WIDTH:
        question = question[: FOLLOW_UP_TITLE_WIDTH - 1].rstrip() + "…"
    return _("follow-up: {question}").format(question=question)


class ChoiceJson(TypedDict):
    letter: str
    text: str
    correct: bool
    pack_letter: str


class CardJson(TypedDict):
    """``CardView.to_dict``: the card as the fast-start helper pipes it (asdict's shape)."""

    card_id: int
    key: str
    kind: str
    pack_key: str
    pack_title: str
    title: str
    prompt: str
    answer: str
    key_numbers: list[str]
    tip: str
    choices: list[ChoiceJson]
    explanation: str
    related: list[str]
    note: str
    variant: dict[str, Any] | None
    parent_title: str | None
    tags: list[str]
    is_new: bool
    is_repeat: bool
    leech: bool
    choice_seed: int | None
    priority: bool
    pack_path: str


class DrillStateJson(TypedDict):
    card: CardJson | None
    remaining: int
    done: int
    answer_seconds: int


@dataclass(frozen=True)
class ChoiceView:
    letter: str  # A, B, C... in the order shown (shuffled per showing)
    text: str
    correct: bool
    pack_letter: str = ""  # its letter in the order written in the pack


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
    # Multiple choice: the seed the choices were shuffled with (logged with the answer).
    choice_seed: int | None = None
    priority: bool = False  # the pack marks it [priority]: learn it early

    @property
    def own_title(self) -> str:
        return own_title(self.kind, self.title, self.prompt)

    pack_path: str = ""  # the pack's file as imported: its images are beside it (packs/media.py)

    @property
    def correct_letters(self) -> str:
        return "".join(choice.letter for choice in self.choices if choice.correct)

    @property
    def choice_order(self) -> str:
        """The pack letters in the order shown, e.g. ``"CADB"`` (logged with the answer)."""
        return "".join(choice.pack_letter for choice in self.choices)

    def answer_sections(self) -> list[tuple[str, str | list[str]]]:
        """The parts of the back that have content, in the order every mode shows them:
        (heading, text) or (heading, list items). The TUI and plain mode both read this list."""
        sections: list[tuple[str, str | list[str]]] = [
            (N_("Answer"), self.answer.strip()),
            (N_("Key numbers"), self.key_numbers),
            (N_("Explanation"), self.explanation.strip()),
            (N_("Related questions"), self.related),
        ]
        return [(heading, body) for heading, body in sections if body]

    def to_dict(self) -> CardJson:
        """Plain JSON-able values."""
        return cast(CardJson, asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardView:
        """The inverse of ``to_dict``."""
        values = {item.name: data[item.name] for item in fields(cls) if item.name in data}
        values["choices"] = [ChoiceView(**choice) for choice in values.get("choices") or []]
        variant = values.get("variant")
        values["variant"] = Variant(**variant) if variant is not None else None
        return cls(**values)


def choice_views(choices: list[dict[str, Any]], seed: int | None = None) -> list[ChoiceView]:
    """Stored choices (``{"text", "correct"}``) lettered in the order shown: shuffled with
    ``seed`` (the same seed, the same order), or in the order written when ``seed`` is None.

    A fresh order on every showing keeps a missed card from coming back with its answer in the
    same place."""
    order = list(range(len(choices)))
    if seed is not None:
        random.Random(seed).shuffle(order)
    return [
        ChoiceView(
            CHOICE_LETTERS[shown],
            str(choices[index].get("text", "")),
            bool(choices[index].get("correct")),
            CHOICE_LETTERS[index],
        )
        for shown, index in enumerate(order)
    ]


@dataclass(frozen=True)
class DrillState:
    """Where a drill session stands: its current card (None: over) and its counts.

    The fast-start helper sends one through a pipe (``to_dict`` as JSON, then ``from_dict``)."""

    card: CardView | None
    remaining: int
    done: int
    answer_seconds: int

    def to_dict(self) -> DrillStateJson:
        return {
            "card": self.card.to_dict() if self.card is not None else None,
            "remaining": self.remaining,
            "done": self.done,
            "answer_seconds": self.answer_seconds,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DrillState:
        card = data.get("card")
        return cls(
            card=CardView.from_dict(card) if card is not None else None,
            remaining=int(data["remaining"]),
            done=int(data["done"]),
            answer_seconds=int(data["answer_seconds"]),
        )
