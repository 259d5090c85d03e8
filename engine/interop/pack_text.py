"""A ``ForeignDeck`` -> the text of a kvdrill pack, with ids that survive a second conversion.

A note with Anki's guid gets ``anki-`` and a digest of the guid as its card id: the same note
converts to the same card however its text changes, so importing the new pack updates the
card and keeps its history. A note without one (plain CSV, a text export without the "unique
identifier" column) gets a slug of its front, as ``kvdrill check --add-ids`` would make.

Cloze notes (``{{c1::...}}``) become one recall card each: the prompt shows every deletion as
``[...]`` (or its hint), the answer shows the text with the deletions in bold.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from kvdrill.engine.interop.markup import (
    html_to_markdown,
    text_to_markdown,
    title_markdown,
    visible_text,
)
from kvdrill.engine.interop.notes import ForeignDeck, ForeignField, ForeignNote
from kvdrill.engine.packs.headings import MAX_ID_CHARS, normalize_tag, slugify, unique_id
from kvdrill.engine.packs.model import MAX_CARDS_PER_PACK

GUID_ID_PREFIX = "anki-"
_GUID_DIGEST_CHARS = 16
_CLOZE_RE = re.compile(r"\{\{c\d+::(.*?)(?:::(.*?))?\}\}", re.DOTALL)
_TAG_BAD_RE = re.compile(r"[^\w.-]+")


@dataclass(frozen=True)
class ConvertedPack:
    text: str
    cards: int
    skipped: int  # notes with an empty front or back, left out
    media_skipped: int


class NothingToConvert(ValueError):
    """Every note was empty, or there are more notes than a pack holds."""


def card_id_for_guid(guid: str) -> str:
    digest = hashlib.sha256(guid.encode("utf-8")).hexdigest()[:_GUID_DIGEST_CHARS]
    return GUID_ID_PREFIX + digest


def pack_tag(tag: str) -> str | None:
    """An Anki tag as a pack tag: ``a::b`` becomes ``a.b``; other odd characters ``-``."""
    text = _TAG_BAD_RE.sub("-", normalize_tag(tag).replace("::", ".")).strip("._-")
    return text[:MAX_ID_CHARS].rstrip("._-") or None


def _markdown(field: ForeignField, is_html: bool) -> str:
    return html_to_markdown(field.text) if is_html else text_to_markdown(field.text)


def _cloze_sides(text: str) -> tuple[str, str] | None:
    if not _CLOZE_RE.search(text):
        return None
    prompt = _CLOZE_RE.sub(lambda m: f"[{m.group(2) or '...'}]", text)
    answer = _CLOZE_RE.sub(lambda m: f"<b>{m.group(1)}</b>", text)
    return prompt, answer


def _extra(fields: tuple[ForeignField, ...], is_html: bool) -> list[str]:
    """The fields after the back, each as a paragraph, under its name when known."""
    parts = []
    for field in fields:
        text = _markdown(field, is_html)
        if text:
            name = title_markdown(field.name or "")
            parts.append(f"**{name}:**\n\n{text}" if name else text)
    return parts


def _sides(note: ForeignNote) -> tuple[str, str, str]:
    """(title text, prompt Markdown, answer Markdown) of a note."""
    front = note.fields[0]
    cloze = _cloze_sides(front.text) if note.html else None
    if cloze is not None:
        prompt_html, answer_html = cloze
        prompt, answer = html_to_markdown(prompt_html), html_to_markdown(answer_html)
        extra = _extra(note.fields[1:], note.html)
        title = visible_text(prompt_html, True)
    else:
        prompt = _markdown(front, note.html)
        answer = _markdown(note.fields[1], note.html) if len(note.fields) > 1 else ""
        extra = _extra(note.fields[2:], note.html) if answer else []
        title = visible_text(front.text, note.html)
    answer = "\n\n".join(part for part in (answer, *extra) if part)
    return title, prompt, answer


def build_pack_text(
    deck: ForeignDeck, pack_id: str, *, source_name: str, title: str | None = None
) -> ConvertedPack:
    """The pack's Markdown. ``NothingToConvert`` when no note has both a front and a back."""
    blocks: list[str] = []
    taken: set[str] = set()
    skipped = 0
    for note in deck.notes:
        heading, prompt, answer = _sides(note)
        if not prompt or not answer:
            skipped += 1
            continue
        base = card_id_for_guid(note.source_id) if note.source_id else slugify(heading)
        card_id = unique_id(base, taken)
        taken.add(card_id)
        tags = sorted({tag for tag in map(pack_tag, note.tags) if tag})
        heading_text = title_markdown(heading) or f"Note {len(taken)}"
        tag_text = "".join(f" #{tag}" for tag in tags)
        blocks.append(
            f"## {heading_text} {{#{card_id}}}{tag_text}\n\n"
            f"### Prompt\n\n{prompt}\n\n### Answer\n\n{answer}\n"
        )
    if not blocks:
        raise NothingToConvert("no note has both a front and a back")
    if len(blocks) > MAX_CARDS_PER_PACK:
        raise NothingToConvert(
            f"{len(blocks):,} notes; a pack holds at most {MAX_CARDS_PER_PACK:,} cards, "
            "so convert the deck in parts (export its subdecks one at a time)"
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
        media_skipped=deck.media_skipped,
    )
