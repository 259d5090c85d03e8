"""Bundled translated editions check clean and stay in step with the packs they translate.

An edition is a bundled pack whose front matter names its original (``edition_of:``); its id is
the original's id plus ``-<lang>`` (``memory-and-capacity-vi``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.app.services.pack_files import parse_paths
from kvdrill.engine.packs.claims import verify_claims

DECKS = Path(__file__).resolve().parent.parent / "decks"
EDITIONS = sorted(DECKS.glob("*-vi.md"))


def _pack(path: Path):
    packs, problems = parse_paths([path])
    assert problems == [], problems
    (pack,) = packs
    return pack


def _original(edition: Path) -> Path:
    (original,) = [
        path
        for path in DECKS.glob("*.md")
        if path.name != "README.md" and _pack(path).meta.pack == _pack(edition).meta.edition_of
    ]
    return original


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


def test_the_pack_table_in_decks_readme_names_every_bundled_pack() -> None:
    """decks/README.md lists the bundled packs; a pack added or renamed must appear there."""
    from kvdrill.app.services.pack_files import parse_pack

    readme = (DECKS / "README.md").read_text(encoding="utf-8")
    table = readme.split("## The bundled packs", 1)[1].split("\n## ", 1)[0]
    for path in sorted(DECKS.glob("*.md")):
        if path.name == "README.md":
            continue
        pack = parse_pack(path)
        assert f"`{pack.meta.pack}` ({path.name})" in table, f"{path.name} is not in the table"
        kinds = [card.kind for card in pack.cards]
        row = next(line for line in table.splitlines() if f"`{pack.meta.pack}`" in line)
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        counted = [int(cells[i]) for i in (3, 4, 5, 6)]
        assert counted == [kinds.count(k) for k in ("recall", "followup", "choice", "problem")], (
            f"{path.name}: the table's counts are out of date"
        )
