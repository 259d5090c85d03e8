"""Bundled translated editions check clean and stay in step with the packs they translate.

An edition is a bundled pack whose front matter names its original (``edition_of:``); its id is
the original's id plus ``-<lang>`` (``memory-and-capacity-vi``).
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from kvdrill.app.services.pack_files import parse_paths
from kvdrill.engine.packs.claims import verify_claims

DECKS = Path(__file__).resolve().parent.parent / "decks"
EDITIONS = sorted(DECKS.glob("*-vi.md"))


@functools.cache
def _pack(path: Path):
    """The pack in ``path``, parsed once per test process (the tests only read it; each test
    looks up its edition's original among every deck)."""
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
    """decks/README.md lists the bundled packs with their counts, and each English pack's
    Vietnamese edition (or "none yet"); a pack added or renamed must appear there."""
    from kvdrill.app.services.pack_files import parse_pack

    readme = (DECKS / "README.md").read_text(encoding="utf-8")
    table = readme.split("## The bundled packs", 1)[1].split("\n## ", 1)[0]
    packs = [parse_pack(path) for path in sorted(DECKS.glob("*.md")) if path.name != "README.md"]
    lines = [line for line in table.splitlines() if line.startswith("|")]
    header = lines[0].strip("|").split("|")
    uneven = [line for line in lines if len(line.strip("|").split("|")) != len(header)]
    assert not uneven, f"rows with other than the header's {len(header)} cells: {uneven}"
    editions = {pack.meta.edition_of: pack.meta.pack for pack in packs if pack.meta.edition_of}
    for pack in packs:
        name = Path(pack.path).name
        rows = [line for line in table.splitlines() if line.startswith(f"| `{pack.meta.pack}` (")]
        assert rows and f"`{pack.meta.pack}` ({name})" in rows[0], f"{name} is not in the table"
        cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
        kinds = [card.kind for card in pack.cards]
        claims = sum(1 for card in pack.cards for item in card.key_numbers if item.claim)
        counted = [int(cells[i]) for i in (3, 4, 5, 6, 7)]
        expected = [kinds.count(k) for k in ("recall", "followup", "choice", "problem")]
        assert counted == [*expected, claims], f"{name}: the table's counts are out of date"
        if pack.meta.lang == "en":
            edition = editions.get(pack.meta.pack)
            assert cells[8:9] == [f"`{edition}`" if edition else "none yet"], (
                f"{name}: its row's last column should name its Vietnamese edition"
            )
        else:
            assert cells[8:9] == [f"edition of `{pack.meta.edition_of}`"], (
                f"{name}: its row's last column should name the pack it is an edition of"
            )
