"""Card and verdict text as Markdown documents for the drill screen.

Everything here is pack or learner text going into the Markdown widget (which shows markup
literally), so no string built here is ever parsed as Rich/Textual markup.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import PurePath
from typing import TYPE_CHECKING

from kvdrill.app.services.media import media_link
from kvdrill.engine.errors import printable
from kvdrill.engine.packs.media import image_text, with_image_lines
from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.engine.packs.card_view import CardView
    from kvdrill.engine.problems.types import Verdict


def shown(text: str) -> str:
    """Pack or learner text as it may reach the terminal: control, bidi and zero-width
    characters written as escapes (engine/errors.printable), line breaks kept."""
    return printable(text, multiline=True)


# What a text may hold and still read the same without a Markdown parser: letters, digits,
# spaces, line breaks, any other non-ASCII character that is not a space, and the ASCII
# punctuation that CommonMark (with the GFM extras and linkify, as Textual's Markdown widget
# parses it) never reads as syntax inside a line. Line starts are checked apart: there
# ``-``, ``+``, ``=`` or ``1.`` open a block. A dot or colon before a letter may be a link.
_PLAIN_CHARACTERS = re.compile(r"(?:[A-Za-z0-9 \n,.;:?!'\"()/%$+=\-]|[^\x00-\x7f\s])*")
_NOT_PLAIN = re.compile(r"(?m)^ *(?:[-+=]|\d+[.)](?: |$))|^ {4}|  \n|[.:][^\W\d_]|://")


def plain_text(markdown: str) -> str | None:
    """``markdown`` as the Markdown widget would show it, when it is only paragraphs of
    ordinary text (most prompts): lines joined by a space, paragraphs by a blank line, runs of
    spaces as one. None when any of it could be Markdown syntax (the widget shows that text).

    The drill screen paints such text with a plain ``Static``, so the first card does not
    wait for markdown-it and the Markdown widget to load."""
    if not _PLAIN_CHARACTERS.fullmatch(markdown) or _NOT_PLAIN.search(markdown):
        return None
    paragraphs = (block.split() for block in re.split(r"\n *\n", markdown))
    return "\n\n".join(" ".join(words) for words in paragraphs if words)


_MARKDOWN_PUNCTUATION_RE = re.compile(r"([\\`*_\[\]{}()<>#+\-.!|~])")


def _image_link(pack_path: str, alt: str, file: PurePath | None, target: str) -> str:
    """An image as its placeholder line, linked so that a click opens it
    (app/services/media.py); a reference outside the pack's folder stays text."""
    text = _MARKDOWN_PUNCTUATION_RE.sub(r"\\\1", image_text(alt, file, target))
    if file is None:
        return f"\n\n{text}\n\n"
    return f"\n\n🖼 [{text}]({media_link(pack_path, file)})\n\n"


def with_images(markdown: str, card: CardView) -> str:
    """A card's Markdown with each image as a placeholder line giving the file's path."""
    if "![" not in markdown:
        return markdown
    return with_image_lines(markdown, card.pack_path, partial(_image_link, card.pack_path)).strip(
        "\n"
    )


def prompt_markdown(card: CardView) -> str:
    """The prompt as the drill screen shows it."""
    return shown(with_images(card.prompt, card))


def correct_letters(card: CardView) -> set[str]:
    """The letters of the right choices, lower case as the keys that pick them."""
    return {letter.lower() for letter in card.correct_letters}


def choice_markdown(card: CardView, selected: set[str], reveal: bool = False) -> str:
    """The choices, lettered; after answering, each marked right or wrong."""
    lines = []
    for choice in card.choices:
        letter = choice.letter.lower()
        mark = ""
        if reveal:
            if choice.correct:
                mark = "✓ "
            elif letter in selected:
                mark = "✗ "
        elif letter in selected:
            mark = "▸ "
        lines.append(f"- {mark}**{choice.letter}.** {_one_line(choice.text)}")
    if len(card.correct_letters) > 1 and not reveal:
        lines.append("")
        lines.append("*" + _("Several choices are correct: pick each, then press Enter.") + "*")
    return shown("\n".join(lines))


def reveal_markdown(card: CardView) -> str:
    """Answer, key numbers, explanation, related questions, tip and the learner's note."""
    parts = [
        f"## {_(heading)}\n\n"
        + (
            with_images(body, card)
            if isinstance(body, str)
            else "\n".join(f"- {_one_line(item)}" for item in body)
        )
        for heading, body in card.answer_sections()
    ]
    tip = card.tip.strip()
    if tip:
        parts.append("## " + _("Tip") + "\n\n" + with_images(tip, card))
    note = card.note.strip()
    empty = "*" + _("No note yet: press n to write one.") + "*"
    parts.append("## " + _("Your note") + "\n\n" + (note if note else empty))
    return shown("\n\n".join(parts))


def verdict_markdown(verdict: Verdict) -> str:
    """The checked answer: the expected value, the diagnosis and the worked solution."""
    parts = []
    if verdict.expected_text and verdict.expected_text not in verdict.headline:
        parts.append("**" + _("Expected:") + "** " + verdict.expected_text)
    if verdict.diagnosis:
        parts.append("**" + _("What went wrong:") + "** " + verdict.diagnosis)
    solution = verdict.worked_solution.strip()
    if solution:
        parts.append("## " + _("Worked solution") + "\n\n" + solution)
    return shown("\n\n".join(parts)) + ("\n\n" if parts else "")


def _one_line(text: str) -> str:
    return " ".join(text.split())
