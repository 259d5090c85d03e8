"""Every problem template of every bundled pack draws variants whose own answer is accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.app.services.pack_files import parse_paths
from kvdrill.engine.capacity.units import format_quantity
from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant

DECKS = Path(__file__).resolve().parent.parent / "decks"
PACK_FILES = sorted(p for p in DECKS.glob("*.md") if p.name != "README.md")


@pytest.mark.parametrize("path", PACK_FILES, ids=lambda p: p.stem)
def test_templates_accept_their_own_answers(path: Path) -> None:
    packs, problems = parse_paths([path])
    assert problems == []
    (pack,) = packs
    for template in (c for c in pack.cards if c.kind == "problem"):
        assert template.tip, template.key
        for seed in range(12):
            variant = make_variant(template.problem, f"{pack.meta.pack}/{template.key}", seed)
            typed = format_quantity(variant.expected_value, variant.unit, 6)
            assert check_answer(variant, typed).correct, (template.key, seed, typed)
            assert "{" not in variant.prompt, (template.key, variant.prompt)


@pytest.mark.parametrize("path", PACK_FILES, ids=lambda p: p.stem)
def test_choice_cards_explain_with_a_bold_takeaway(path: Path) -> None:
    packs, _ = parse_paths([path])
    (pack,) = packs
    for card in (c for c in pack.cards if c.kind == "choice"):
        assert card.explanation.count("**") >= 2, card.key


@pytest.mark.parametrize("path", PACK_FILES, ids=lambda p: p.stem)
def test_prompts_name_each_unit_once(path: Path) -> None:
    # "{tokens_per_second} tokens per second" printed "6,000 tokens/s tokens per second".
    packs, _ = parse_paths([path])
    (pack,) = packs
    for template in (c for c in pack.cards if c.kind == "problem"):
        for seed in range(3):
            prompt = make_variant(template.problem, f"{pack.meta.pack}/{template.key}", seed).prompt
            for doubled in (
                "/s per second",
                "/s tokens per second",
                "× GPU,",
                "× GPU ",
                " request/s",
            ):
                assert doubled not in prompt, (template.key, prompt)
