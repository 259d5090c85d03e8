"""Card and verdict text as Markdown documents for the drill screen.

Everything here is pack or learner text going into the Markdown widget (which shows markup
literally), so no string built here is ever parsed as Rich/Textual markup.
"""

from __future__ import annotations

from typing import Any

LETTERS = "abcdefgh"


def field(item: Any, name: str, default: Any = None) -> Any:
    """``item.name`` or ``item[name]``: session objects are dataclasses, stored JSON is dicts."""
    if item is None:
        return default
    if isinstance(item, dict):
        return item.get(name, default)
    return getattr(item, name, default)


def item_text(item: Any, name: str = "text") -> str:
    """The display text of a list item that is either a string or a mapping/object."""
    if isinstance(item, str):
        return item
    return str(field(item, name, "") or "")


def correct_letters(card: Any) -> set[str]:
    choices = field(card, "choices", []) or []
    return {LETTERS[i] for i, choice in enumerate(choices) if field(choice, "correct", False)}


def choice_markdown(card: Any, selected: set[str], reveal: bool = False) -> str:
    """The choices, lettered; after answering, each marked right or wrong."""
    right = correct_letters(card)
    lines = []
    for index, choice in enumerate(field(card, "choices", []) or []):
        letter = LETTERS[index]
        mark = ""
        if reveal:
            if letter in right:
                mark = "✓ "
            elif letter in selected:
                mark = "✗ "
        elif letter in selected:
            mark = "▸ "
        lines.append(f"- {mark}**{letter.upper()}.** {_one_line(item_text(choice))}")
    if len(right) > 1 and not reveal:
        lines.append("")
        lines.append("*Several choices are correct: pick each, then press Enter.*")
    return "\n".join(lines)


def reveal_markdown(card: Any) -> str:
    """Answer, key numbers, explanation, related questions, tip and the learner's note."""
    parts: list[str] = []
    answer = str(field(card, "answer", "") or "").strip()
    if answer:
        parts.append("## Answer\n\n" + answer)
    numbers = [item_text(n) for n in field(card, "key_numbers", []) or []]
    if numbers:
        parts.append("## Key numbers\n\n" + "\n".join(f"- {_one_line(n)}" for n in numbers))
    explanation = str(field(card, "explanation", "") or "").strip()
    if explanation:
        parts.append("## Explanation\n\n" + explanation)
    related = [item_text(r, "prompt") for r in field(card, "related", []) or []]
    if related:
        parts.append("## Related questions\n\n" + "\n".join(f"- {_one_line(r)}" for r in related))
    tip = str(field(card, "tip", "") or "").strip()
    if tip:
        parts.append("## Tip\n\n" + tip)
    note = str(field(card, "note", "") or "").strip()
    parts.append("## Your note\n\n" + (note if note else "*No note yet: press n to write one.*"))
    return "\n\n".join(parts)


def verdict_markdown(verdict: Any) -> str:
    """The checked answer: the expected value, the diagnosis and the worked solution."""
    parts = []
    expected = str(field(verdict, "expected_text", "") or "")
    if expected and expected not in str(field(verdict, "headline", "")):
        parts.append(f"**Expected:** {expected}")
    diagnosis = field(verdict, "diagnosis", None)
    if diagnosis:
        parts.append(f"**What went wrong:** {diagnosis}")
    solution = str(field(verdict, "worked_solution", "") or "").strip()
    if solution:
        parts.append("## Worked solution\n\n" + solution)
    return "\n\n".join(parts) + ("\n\n" if parts else "")


def _one_line(text: str) -> str:
    return " ".join(text.split())
