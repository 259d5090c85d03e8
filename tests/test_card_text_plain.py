"""The drill screen's plain-text shortcut shows exactly what the Markdown widget would.

``plain_text`` claims a text is only paragraphs of ordinary words; the screen then paints it
with a ``Static`` instead of Textual's Markdown widget. Every claim is checked here against
markdown-it with the parser Textual uses ("gfm-like", linkify on): the tokens must be plain
paragraphs of text and soft breaks, and the text the widget builds from them (text with
runs of white space as one space, a soft break as a space, paragraphs a blank line apart)
must be ``plain_text``'s, character for character. Texts: every card text of the bundled
decks and the test packs, the same texts with one character inserted, and random texts
weighted towards Markdown's syntax characters.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from textual.app import App

from kvdrill.app.services.pack_files import parse_pack
from kvdrill.app.tui.card_text import plain_text, shown
from kvdrill.app.tui.widgets import card_markdown
from kvdrill.app.tui.widgets.card_markdown import CardMarkdown

ROOT = Path(__file__).resolve().parent.parent
PARSER = MarkdownIt("gfm-like")
SYNTAX = "`*_[]()<>#|\\~&!=+-.:;/@'\"%$0123456789\t  \n\n\n"
WORDS = ["KV", "cache", "per", "token", "Llama", "3.1", "8B", "H100", "vllm.ai", "é", "×", "—"]


def as_the_widget_shows(markdown: str) -> str | None:
    """What Textual's Markdown widget shows for plain paragraphs; None for anything else."""
    tokens = PARSER.parse(markdown)
    if len(tokens) % 3:
        return None
    paragraphs = []
    for index in range(0, len(tokens), 3):
        opening, inline, closing = tokens[index : index + 3]
        if (opening.type, inline.type, closing.type) != (
            "paragraph_open",
            "inline",
            "paragraph_close",
        ):
            return None
        parts = []
        for child in inline.children or []:
            if child.type == "text":
                parts.append(re.sub(r"\s+", " ", child.content))
            elif child.type == "softbreak":
                parts.append(" ")
            else:
                return None
        paragraphs.append("".join(parts))
    return "\n\n".join(paragraphs)


def card_texts() -> list[str]:
    texts = []
    packs = sorted((ROOT / "decks").glob("*.md")) + sorted((ROOT / "tests").rglob("*.md"))
    for path in packs:
        if path.name == "README.md":
            continue
        try:
            pack = parse_pack(path)
        except Exception:  # noqa: BLE001 - hostile test packs: their texts are not needed
            continue
        for card in pack.cards:
            texts += [card.prompt or "", card.answer or "", card.tip or "", card.explanation or ""]
            texts += [choice.text for choice in card.choices or []]
    return [shown(text) for text in texts if text]


def random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randint(1, 12)):
            pieces.append(rng.choice(WORDS) if rng.random() < 0.5 else rng.choice(SYNTAX))
            pieces.append(rng.choice(["", " ", " ", "\n", "  "]))
        texts.append("".join(pieces))
    return texts


def mutated(texts: list[str], seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for text in texts:
        place = rng.randint(0, len(text))
        out.append(text[:place] + rng.choice(SYNTAX) + text[place:])
    return out


CARD_TEXTS = card_texts()


@pytest.mark.parametrize(
    "texts",
    [
        pytest.param(CARD_TEXTS, id="card-texts"),
        pytest.param(mutated(CARD_TEXTS, 1), id="card-texts-one-character-added"),
        pytest.param(random_texts(4000, 2), id="random-texts"),
    ],
)
def test_plain_text_is_what_the_markdown_widget_shows(texts):
    claimed = 0
    for text in texts:
        plain = plain_text(text)
        if plain is None:
            continue
        claimed += 1
        assert plain == as_the_widget_shows(text), repr(text)
    assert claimed, "no text took the plain path: the test checks nothing"


def test_most_bundled_prompts_paint_without_the_markdown_widget():
    prompts = []
    for path in sorted((ROOT / "decks").glob("*.md")):
        if path.name != "README.md":
            prompts += [shown(card.prompt) for card in parse_pack(path).cards if card.prompt]
    plain = [prompt for prompt in prompts if plain_text(prompt) is not None]
    assert len(plain) >= 0.7 * len(prompts), f"{len(plain)} of {len(prompts)} prompts are plain"


@pytest.mark.parametrize(
    "text",
    [
        "two spaces end this line  \nso the widget breaks it",
        "see vllm.ai for the flags",
        "- a list item",
        "1. the first step",
        "Total\n===",
        "    indented code",
        "a *stressed* word",
        "snake_case name",
        "R&amp;D",
        "https://example.com",
    ],
)
def test_markdown_syntax_goes_to_the_markdown_widget(text):
    assert plain_text(text) is None


class OneCardText(App):
    CSS = "CardMarkdown { padding: 0 1; background: $boost; }"

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self):
        yield CardMarkdown(id="card")

    async def on_mount(self) -> None:
        await self.query_one(CardMarkdown).update(self.text)


async def screenshot(text: str, size: tuple[int, int]) -> tuple[list, bool]:
    """Every cell of the screen as (character, style), and whether no Markdown widget was made.
    Styles without their meta: it holds each cell's offset in its widget, for mouse selection,
    which differs (one Static, or one widget per paragraph) and shows nothing."""
    app = OneCardText(text)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        cells = [
            [
                (character, segment.style.clear_meta_and_links() if segment.style else None)
                for segment in strip
                for character in segment.text
            ]
            for strip in app.screen._compositor.render_strips()
        ]
        return cells, app.query_one(CardMarkdown).markdown is None


PLAIN = [text for text in CARD_TEXTS if plain_text(text) is not None and "\n" in text]
PLAIN_PROMPTS = PLAIN[:5] + [text for text in PLAIN if not text.isascii()][:2]


@pytest.mark.parametrize("size", [(80, 24), (37, 30)])
@pytest.mark.parametrize("text", [*PLAIN_PROMPTS, "One paragraph.\n\nAnd   a second\none."])
async def test_the_plain_path_paints_what_the_markdown_widget_paints(
    text: str, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, without_markdown = await screenshot(text, size)
    monkeypatch.setattr(card_markdown, "plain_text", lambda text: None)
    through_markdown, _ = await screenshot(text, size)
    assert without_markdown  # the fast path was taken
    assert plain == through_markdown


async def test_the_last_update_shows_when_several_overlap() -> None:
    """Updates not awaited (a multiple-choice key press) must end on the last text given."""
    app = OneCardText("First, plain.")
    async with app.run_test(size=(60, 10)) as pilot:
        card = app.query_one(CardMarkdown)
        card.update("- a **list**, through Markdown")
        card.update("Plain again.")
        await pilot.pause()
        assert card.plain.display and not card.markdown.display
        assert str(card.plain.visual) == "Plain again."
        card.update("Plain once more.")
        card.update("`code`, then")
        last = card.update("the *last* text")
        await last
        await pilot.pause()
        assert not card.plain.display and card.markdown.display
        assert card.markdown.source == card.source == "the *last* text"
