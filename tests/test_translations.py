"""Bundled translated editions check clean and stay in step with the packs they translate.

An edition is a bundled pack whose id is the original's id plus ``-<lang>`` (``memory-and-capacity-vi``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.engine.packs.claims import verify_claims
from kvdrill.engine.packs.parser import parse_paths

DECKS = Path(__file__).resolve().parent.parent / "decks"
EDITIONS = sorted(DECKS.glob("*-vi.md"))


def _pack(path: Path):
    packs, problems = parse_paths([path])
    assert problems == [], problems
    (pack,) = packs
    return pack


def _original(edition: Path) -> Path:
    return DECKS / f"{edition.stem.rsplit('-', 1)[0]}.md"


def test_there_are_editions_to_check() -> None:
    assert EDITIONS


@pytest.mark.parametrize("edition", EDITIONS, ids=lambda p: p.stem)
def test_an_edition_mirrors_its_original(edition: Path) -> None:
    translated, original = _pack(edition), _pack(_original(edition))
    assert translated.meta.lang == edition.stem.rsplit("-", 1)[1] != original.meta.lang
    assert translated.meta.pack == f"{original.meta.pack}-{translated.meta.lang}"
    assert verify_claims(translated) == []
    assert [c.key for c in translated.cards] == [c.key for c in original.cards]
    for mine, theirs in zip(translated.cards, original.cards, strict=True):
        assert mine.kind == theirs.kind, mine.key
        # The same figures, fact-checked the same way.
        assert [k.claim for k in mine.key_numbers] == [k.claim for k in theirs.key_numbers], (
            mine.key
        )
        # The same answer letters.
        assert [c.correct for c in mine.choices] == [c.correct for c in theirs.choices], mine.key
