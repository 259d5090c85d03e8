"""kvdrill cards -> Anki notes: the note types, and each card's fields as Anki's HTML.

Recall cards and follow-ups become "kvdrill recall" notes (prompt, answer, key numbers, tip).
Multiple-choice cards become "kvdrill choice" notes (prompt, lettered choices, the correct
letters, explanation, tip). A problem template becomes ``PROBLEM_VARIANTS`` recall notes, one
per fixed seed, drawn by the engine's generator: the same seeds give the same questions, so
exporting again updates those notes in Anki instead of adding new ones. Each note's guid is a
digest of (pack, card, seed), which is what makes re-imports into Anki update in place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from urllib.parse import quote

from kvdrill.engine.errors import UserError
from kvdrill.engine.interop.anki_history import AnkiScheduling
from kvdrill.engine.interop.markup import escape_markdown, markdown_to_html
from kvdrill.engine.packs.media import image_text, media_folder_name, with_image_lines
from kvdrill.engine.packs.model import PackMeta, ParsedCard

PROBLEM_VARIANTS = 5
PROBLEM_SEEDS = tuple(range(1, PROBLEM_VARIANTS + 1))
DECK_PREFIX = "kvdrill::"
_CSS = """.card { font-family: sans-serif; font-size: 20px; text-align: left; }
.section { margin-top: 1em; font-weight: bold; }
.source { margin-top: 2em; font-size: 12px; color: #888; }"""


@dataclass(frozen=True)
class AnkiNoteType:
    model_id: int  # fixed: Anki matches note types by id on import
    name: str
    fields: tuple[str, ...]
    front_template: str
    back_template: str
    css: str = _CSS


def _section(field: str) -> str:
    return f'{{{{#{field}}}}}<div class="section">{field}</div>{{{{{field}}}}}{{{{/{field}}}}}'


NOTE_FIELD = "Your note"  # the learner's own note on the card
RECALL = AnkiNoteType(
    model_id=1_607_392_319,
    name="kvdrill recall",
    fields=("Prompt", "Answer", "Key numbers", "Tip", "Source", NOTE_FIELD),
    front_template="{{Prompt}}",
    back_template=(
        '{{FrontSide}}<hr id="answer">{{Answer}}'
        + _section("Key numbers")
        + _section("Tip")
        + _section(NOTE_FIELD)
        + '<div class="source">{{Source}}</div>'
    ),
)
CHOICE = AnkiNoteType(
    model_id=1_607_392_320,
    name="kvdrill choice",
    fields=("Prompt", "Choices", "Correct", "Explanation", "Tip", "Source", NOTE_FIELD),
    front_template="{{Prompt}}{{Choices}}",
    back_template=(
        '{{FrontSide}}<hr id="answer"><div class="section">Correct: {{Correct}}</div>'
        + _section("Explanation")
        + _section("Tip")
        + _section(NOTE_FIELD)
        + '<div class="source">{{Source}}</div>'
    ),
)
# A follow-up's tag names its card: ``follow-up-of::<card id>``.
FOLLOW_UP_TAG = "follow-up-of::"
NOTE_TYPES = (RECALL, CHOICE)


@dataclass(frozen=True)
class AnkiNote:
    note_type: str  # an ``AnkiNoteType.name``
    fields: tuple[str, ...]  # HTML, in the note type's field order
    tags: tuple[str, ...]
    guid: str
    deck: str
    deck_id: int
    scheduling: AnkiScheduling | None = None  # its card's, with --with-scheduling


@dataclass(frozen=True)
class LearnerCard:
    """What the profile has of a card: its own note, and its schedule as Anki's."""

    note: str = ""
    scheduling: AnkiScheduling | None = None


_NO_LEARNER = LearnerCard()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def deck_id_for(pack_key: str) -> int:
    """A stable Anki deck id for a pack: re-imports land in the same deck."""
    return (1 << 30) + int(_digest(f"kvdrill-deck/{pack_key}")[:8], 16) % (1 << 30)


def _html(markdown: str) -> str:
    return markdown_to_html(markdown) if markdown.strip() else ""


class _AnkiImages:
    """A pack's images as Anki media: a card's ``![alt](PACK.media/x.png)`` becomes
    ``<img src="PACK-x.png">``, ``![alt](figures/x.png)`` ``PACK-figures-x.png`` (Anki's media
    names are one flat folder per collection, so the pack id keeps two packs' ``x.png`` apart),
    and ``files`` collects each name's file. An image outside the pack's folder stays a text
    mark, as the terminal shows it."""

    def __init__(self, pack: str, pack_path: str) -> None:
        self.pack, self.pack_path = pack, pack_path
        self.files: dict[str, PurePath] = {}

    def _reference(self, alt: str, file: PurePath | None, target: str) -> str:
        if file is None:
            return escape_markdown(image_text(alt, file, target))
        pack_file = PurePath(self.pack_path)
        parts = file.relative_to(pack_file.parent).parts
        if parts[0] == media_folder_name(pack_file):
            parts = parts[1:]
        name = "-".join((self.pack, *parts))
        self.files[name] = file
        return f"![{escape_markdown(alt)}]({quote(name)})"

    def html(self, markdown: str) -> str:
        if "![" in markdown:
            markdown = with_image_lines(markdown, self.pack_path, self._reference)
        return _html(markdown)


def _list_html(items: list[str]) -> str:
    return _html("\n".join(f"- {item}" for item in items)) if items else ""


def _choice_fields(card: ParsedCard) -> tuple[str, str]:
    letters = "ABCDEFGH"
    choices = "\n".join(
        f"- **{letters[i]}.** {choice.text}" for i, choice in enumerate(card.choices)
    )
    correct = ", ".join(letters[i] for i, choice in enumerate(card.choices) if choice.correct)
    return _html(choices), correct


def _variant_sides(meta: PackMeta, card: ParsedCard, seed: int) -> tuple[str, str]:
    # sympy and pint load only when a problem card is exported.
    from kvdrill.engine.problems.checker import expected_text, worked_solution
    from kvdrill.engine.problems.generator import make_variant

    variant = make_variant(card.problem or {}, f"{meta.pack}/{card.key}", seed)
    answer = f"**{expected_text(variant)}**\n\n{worked_solution(variant)}"
    if card.explanation:
        answer += f"\n\n{card.explanation}"
    return variant.prompt, answer


def _guid(source: str, seed: int | None = None) -> str:
    return _digest(f"kvdrill/{source}" + (f"#{seed}" if seed is not None else ""))[:20]


def anki_notes(
    meta: PackMeta,
    cards: list[ParsedCard],
    learner: Mapping[str, LearnerCard] | None = None,
    pack_path: str = "",
) -> tuple[list[AnkiNote], list[str], dict[str, PurePath]]:
    """The notes of one pack's cards (with ``learner``'s notes and schedules, by card key),
    a line for each card that could not be exported, and the media the notes show (Anki's
    name -> the image file beside the pack at ``pack_path``). A problem template's variants
    carry no schedule: the learner's answers were to other variants."""
    learner = learner or {}
    images = _AnkiImages(meta.pack, pack_path)
    deck, deck_id = DECK_PREFIX + meta.title.replace("::", ":"), deck_id_for(meta.pack)
    notes: list[AnkiNote] = []
    problems: list[str] = []
    for card in cards:
        source = f"{meta.pack}/{card.key}"
        tags = tuple(card.tags) + ((FOLLOW_UP_TAG + card.parent,) if card.parent else ())
        own = learner.get(card.key, _NO_LEARNER)
        note = _html(own.note)
        if card.kind == "choice":
            choices, correct = _choice_fields(card)
            fields: tuple[str, ...] = (
                images.html(card.prompt),
                choices,
                correct,
                images.html(card.explanation),
                images.html(card.tip),
                source,
                note,
            )
            notes.append(
                AnkiNote(CHOICE.name, fields, tags, _guid(source), deck, deck_id, own.scheduling)
            )
        elif card.kind == "problem":
            try:
                sides = [(seed, _variant_sides(meta, card, seed)) for seed in PROBLEM_SEEDS]
            except UserError as exc:
                problems.append(f"{source}: not exported: {exc}")
                continue
            for seed, (prompt, answer) in sides:
                fields = (
                    _html(prompt),
                    _html(answer),
                    "",
                    images.html(card.tip),
                    f"{source} #{seed}",
                    note,
                )
                notes.append(
                    AnkiNote(RECALL.name, fields, tags, _guid(source, seed), deck, deck_id)
                )
        else:  # recall and follow-up
            numbers = _list_html([number.text for number in card.key_numbers])
            fields = (
                images.html(card.prompt),
                images.html(card.answer),
                numbers,
                images.html(card.tip),
                source,
                note,
            )
            notes.append(
                AnkiNote(RECALL.name, fields, tags, _guid(source), deck, deck_id, own.scheduling)
            )
    return notes, problems, images.files
