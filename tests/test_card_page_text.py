"""A card's page as text: the prompt's first paragraph under one label, wrapped to the width."""

from __future__ import annotations

from datetime import date

import pytest

from kvdrill.app.card_page_text import page_lines
from kvdrill.engine.study.browse import BrowsedCard, CardPage

pytestmark = pytest.mark.unit


def test_the_prompts_first_paragraph_hangs_under_one_label() -> None:
    card = BrowsedCard(
        "pack/card", "Title", "recall", 0, 0, 2500, 0, None, None, False, None, False, None
    )
    prompt = (
        "An H100 rented at $3 an hour serves 2,500\noutput tokens a second at batch 32.\n\nMore."
    )
    page = CardPage(card=card, interval_days=0, prompt=prompt, history=[], note=None)
    lines = page_lines(page, date(2026, 12, 1), width=40)
    shown = [line for line in lines if "Prompt:" in line or line.startswith("        ")]
    assert sum("Prompt: " in line for line in lines) == 1
    assert " ".join(" ".join(shown).split()) == (
        "Prompt: An H100 rented at $3 an hour serves 2,500 output tokens a second at batch 32."
    )
    assert all(len(line) <= 40 for line in lines) and "More." not in "\n".join(lines)
