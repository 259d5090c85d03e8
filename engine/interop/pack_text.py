"""A ``ForeignDeck`` -> the text of a kvdrill pack, with ids that survive a second conversion.

A note with Anki's guid gets its card ids from the guid (engine/interop/card_ids.py): the same
note converts to the same cards however its text changes. A note without one (plain CSV, a
text export without the "unique identifier" column) gets a slug of its front, as
``kvdrill check --add-ids`` would make.

Cloze notes (``{{c1::...}}``) become one recall card each: the prompt shows every deletion as
``[...]`` (or its hint), the answer shows the text with the deletions in bold.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from kvdrill.engine.interop.card_ids import card_id_for_guid, card_key_for
from kvdrill.engine.interop.markup import (
    ImageNames,
    escape_markdown,
    html_to_markdown,
    text_to_html,
    text_to_markdown,
    title_markdown,
    visible_text,
)
from kvdrill.engine.interop.notes import AnkiCard, ForeignDeck, ForeignField, ForeignNote
from kvdrill.engine.packs.headings import MAX_ID_CHARS, normalize_tag, slugify, unique_id
from kvdrill.engine.packs.media import is_image
from kvdrill.engine.packs.model import MAX_CARDS_PER_PACK

DECK_TAG_PREFIX = "deck::"  # becomes the pack tag ``deck.<deck name>``
_CLOZE_RE = re.compile(r"\{\{c(\d{1,4})::(.*?)(?:::(.*?))?\}\}", re.DOTALL)
_CLOZE_NUMBER_RE = re.compile(r"\{\{c(\d{1,4})::")
_TAG_BAD_RE = re.compile(r"[^\w.-]+")


@dataclass(frozen=True)
class ConvertedPack:
    text: str
    cards: int
    skipped: int  # notes with an empty front or back, left out
    images: frozenset[str]  # the package's media files the cards show: copied beside the pack
    media_skipped: int  # its other media files (sounds, files no card shows)
    anki_cards: dict[str, AnkiCard] = dataclass_field(
        default_factory=dict
    )  # card id -> its Anki card


class NothingToConvert(ValueError):
    """Every note was empty, or there are more notes than a pack holds."""


def pack_tag(tag: str) -> str | None:
    """An Anki tag as a pack tag: ``a::b`` becomes ``a.b``; other odd characters ``-``."""
    text = _TAG_BAD_RE.sub("-", normalize_tag(tag).replace("::", ".")).strip("._-")
    return text[:MAX_ID_CHARS].rstrip("._-") or None


def _markdown(field: ForeignField, is_html: bool, images: ImageNames) -> str:
    return html_to_markdown(field.text, images) if is_html else text_to_markdown(field.text)


def cloze_numbers(text: str) -> list[int]:
    """The cloze numbers a field uses, in order (``{{c2::..}}`` is 2)."""
    return sorted({int(number) for number in _CLOZE_NUMBER_RE.findall(text)})


def _cloze_sides(text: str, number: int) -> tuple[str, str]:
    """Anki's card for cloze ``number``: that gap hidden (its hint shown) on the question,
    shown in bold on the answer; the other gaps' text shown on both."""

    def question(match: re.Match[str]) -> str:
        if int(match.group(1)) == number:
            return f"[{match.group(3) or '...'}]"
        return match.group(2)

    def answer(match: re.Match[str]) -> str:
        shown = match.group(2)
        return f"<b>{shown}</b>" if int(match.group(1)) == number else shown

    return _CLOZE_RE.sub(question, text), _CLOZE_RE.sub(answer, text)


def _extra(fields: tuple[ForeignField, ...], is_html: bool, images: ImageNames) -> list[str]:
    """The fields after the back, each as a paragraph, under its name when known."""
    parts = []
    for field in fields:
        text = _markdown(field, is_html, images)
        if text:
            name = escape_markdown(title_markdown(field.name or ""))
            parts.append(f"**{name}:**\n\n{text}" if name else text)
    return parts


@dataclass(frozen=True)
class _Side:
    ord: int  # Anki's card ord: the template, or the cloze number minus one
    title: str
    prompt: str
    answer: str


def _note_sides(note: ForeignNote, images: ImageNames) -> list[_Side]:
    """The cards of a note: one per Anki card (a reversed note has two, a cloze note one per
    cloze number); a note from a text file has one per cloze number, or one."""
    front = note.fields[0]
    # A plain-text field is read as text: its cloze markers are found in the escaped HTML.
    front_html = front.text if note.html else text_to_html(front.text)
    numbers = cloze_numbers(front_html)
    if numbers:
        wanted = [card.ord + 1 for card in note.cards] or numbers
        extra = _extra(note.fields[1:], note.html, images)
        sides = []
        for number in wanted:
            if number not in numbers:
                continue
            prompt_html, answer_html = _cloze_sides(front_html, number)
            answer = "\n\n".join([html_to_markdown(answer_html, images), *extra])
            sides.append(
                _Side(
                    number - 1,
                    visible_text(prompt_html, True),
                    html_to_markdown(prompt_html, images),
                    answer.strip("\n"),
                )
            )
        return sides
    cards = note.cards or ()
    ords = [card.ord for card in cards] or [0]
    sides = []
    for order in ords:
        card = next((c for c in cards if c.ord == order), None)
        fields = _fields_for(note, card)
        prompt = _markdown(fields[0], note.html, images)
        answer = _markdown(fields[1], note.html, images) if len(fields) > 1 else ""
        extra = _extra(fields[2:], note.html, images) if answer else []
        answer = "\n\n".join(part for part in (answer, *extra) if part)
        sides.append(_Side(order, visible_text(fields[0].text, note.html), prompt, answer))
    return sides


def _fields_for(note: ForeignNote, card: AnkiCard | None) -> tuple[ForeignField, ...]:
    """The note's fields for one card: the fields its question shows first, then the rest.
    The first card of a note keeps the note's own order (front, back, others)."""
    if card is None or card.ord == 0 or not card.front_fields:
        return note.fields
    shown = [f for name in card.front_fields for f in note.fields if f.name == name]
    if not shown:
        return note.fields
    front = ForeignField(
        shown[0].name,
        "<br>".join(f.text for f in shown) if note.html else "\n".join(f.text for f in shown),
    )
    rest = tuple(f for f in note.fields if f not in shown)
    return (front, *rest)


def build_pack_text(
    deck: ForeignDeck,
    pack_id: str,
    *,
    source_name: str,
    title: str | None = None,
    media_folder: str = "",
) -> ConvertedPack:
    """The pack's Markdown. ``NothingToConvert`` when no note has both a front and a back.
    The package's image files are referenced in ``media_folder`` (a folder beside the pack:
    the caller copies ``ConvertedPack.images`` there)."""
    images = ImageNames(
        {name: f"{media_folder}/{name}" for name in deck.media if is_image(name)}
        if media_folder
        else {}
    )
    blocks: list[str] = []
    taken: set[str] = set()
    anki_cards: dict[str, AnkiCard] = {}
    skipped = 0
    # Several Anki decks in one package stay one pack (one file to check and import, one id
    # for the history), each card tagged with its deck: drill one with --tag deck.NAME.
    several_decks = len({note.deck for note in deck.notes if note.deck}) > 1
    for note in deck.notes:
        deck_tags = (DECK_TAG_PREFIX + note.deck,) if several_decks and note.deck else ()
        tags = sorted({tag for tag in map(pack_tag, note.tags + deck_tags) if tag})
        tag_text = "".join(f" #{tag}" for tag in tags)
        sides = _note_sides(note, images)
        if not any(side.prompt and side.answer for side in sides):
            skipped += 1
            continue
        for side in sides:
            if not side.prompt or not side.answer:
                continue
            base = card_id_for_guid(note.source_id) if note.source_id else slugify(side.title)
            card_id = unique_id(card_key_for(base, side.ord), taken)
            taken.add(card_id)
            card = next((c for c in note.cards if c.ord == side.ord), None)
            if card is not None:
                anki_cards[card_id] = card
            heading_text = title_markdown(side.title) or f"Note {len(taken)}"
            blocks.append(
                f"## {heading_text} {{#{card_id}}}{tag_text}\n\n"
                f"### Prompt\n\n{side.prompt}\n\n### Answer\n\n{side.answer}\n"
            )
        if len(blocks) > MAX_CARDS_PER_PACK:
            break
    if not blocks:
        raise NothingToConvert("no note has both a front and a back")
    if len(blocks) > MAX_CARDS_PER_PACK:
        raise NothingToConvert(
            f"more than {MAX_CARDS_PER_PACK:,} cards; a pack holds at most "
            f"{MAX_CARDS_PER_PACK:,}, so convert the deck in parts (export its subdecks one "
            "at a time)"
        )
    # A deck name is untrusted too: one line, no control characters.
    pack_title = visible_text(title or deck.title, False) or pack_id
    description = f"Converted from {visible_text(source_name, False)} by kvdrill convert."
    # JSON strings are valid YAML double-quoted scalars: any title is written safely.
    front_matter = (
        "---\n"
        f"pack: {json.dumps(pack_id)}\n"
        f"title: {json.dumps(pack_title, ensure_ascii=False)}\n"
        "version: 1\n"
        f"description: {json.dumps(description, ensure_ascii=False)}\n"
        "---\n\n"
    )
    return ConvertedPack(
        text=front_matter + "\n".join(blocks),
        cards=len(blocks),
        skipped=skipped,
        images=frozenset(images.shown),
        media_skipped=len(deck.media) - len(images.shown),
        anki_cards=anki_cards,
    )
