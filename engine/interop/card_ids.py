"""The card ids ``kvdrill convert`` gives Anki's cards, and what they say back.

A note with Anki's guid gets ``anki-`` and a digest of the guid as its first card's id, and
``-N`` after it for its card N (a reversed note's second card, a cloze note's gap N): the same
note converts to the same cards however its text changes, so importing the new pack updates
them and keeps their history. A small module of its own: the import checks read these ids
without loading the converter.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvdrill.engine.packs.model import ParsedPack

GUID_ID_PREFIX = "anki-"
_GUID_DIGEST_CHARS = 16
_NOTE_OF_CARD_RE = re.compile(rf"({GUID_ID_PREFIX}[0-9a-f]{{{_GUID_DIGEST_CHARS}}})(?:-\d+)?")


def card_id_for_guid(guid: str) -> str:
    digest = hashlib.sha256(guid.encode("utf-8")).hexdigest()[:_GUID_DIGEST_CHARS]
    return GUID_ID_PREFIX + digest


def card_key_for(base: str, order: int) -> str:
    """A note's card id for Anki card ``order``: the first card keeps the note's id."""
    return base if order == 0 else f"{base}-{order + 1}"


def anki_note_of(card_key: str) -> str | None:
    """The Anki note a converted card came from (its card id without the ``-N`` of a later
    card), or None for a card id ``convert`` did not make from a guid."""
    match = _NOTE_OF_CARD_RE.fullmatch(card_key)
    return match.group(1) if match else None


def converted_again(stored_keys: Iterable[str], new_keys: Iterable[str]) -> bool:
    """Whether a pack file holding ``new_keys`` is the same Anki deck converted again as the
    stored pack of ``stored_keys`` (its live cards): it holds at least half of that pack's
    Anki notes, by their guids. A different deck shares none; a hand-written pack has none."""
    stored = {note for note in map(anki_note_of, stored_keys) if note}
    new = {note for note in map(anki_note_of, new_keys) if note}
    return bool(stored) and 2 * len(stored & new) >= len(stored)


def converted_from_anki(pack: ParsedPack) -> bool:
    """Whether any card of ``pack`` has an id ``convert`` made from an Anki note's guid."""
    return any(anki_note_of(card.key) for card in pack.cards)
