"""Card text on the drill screen: a plain ``Static`` when the text is plain, else Markdown.

Most prompts are a paragraph or two of ordinary words (card_text.plain_text says which). For
those a ``Static`` shows exactly what Textual's Markdown widget would, without importing
markdown-it and the Markdown widget, which the first card would otherwise wait for.
Anything that may be Markdown goes to a Markdown widget, created the first time one is needed.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.await_complete import AwaitComplete
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from kvdrill.app.tui.card_text import plain_text

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.widgets import Markdown


class CardMarkdown(Widget):
    """Shows ``source`` (Markdown); ``update`` replaces it, awaitable like ``Markdown.update``."""

    DEFAULT_CSS = """
    CardMarkdown {
        height: auto;
        layout: vertical;
    }
    CardMarkdown > .plain-text {
        width: 1fr;
        height: auto;
        color: $foreground;
    }
    CardMarkdown > Markdown {
        margin: 0;
        padding: 0;
    }
    /* As the plain text: no blank line under the last paragraph. */
    CardMarkdown > Markdown > MarkdownParagraph:last-child {
        margin-bottom: 0;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source = ""
        self.plain = Static(Content(""), classes="plain-text")
        self.plain.display = False
        self.markdown: Markdown | None = None
        self.markdown_mounted = asyncio.Event()
        self.shown: asyncio.Future[None] | None = None  # the Markdown of ``source``, laid out

    def compose(self) -> ComposeResult:
        yield self.plain

    def update(self, markdown: str) -> AwaitComplete:
        """Show ``markdown``; the last call wins when several are still under way. The text
        shown already (or on its way) is not laid out again: awaiting waits for it."""
        if markdown == self.source and self.shown is not None:
            return AwaitComplete(self.shown)
        self.source = markdown
        text = plain_text(markdown)
        if text is None:
            self.shown = asyncio.ensure_future(self._show_markdown(markdown))
            return AwaitComplete(self.shown)
        self.plain.update(Content(text))
        self.plain.display = bool(text)
        if self.markdown is not None:
            self.markdown.display = False
        self.shown = None
        return AwaitComplete.nothing()

    async def _show_markdown(self, markdown: str) -> None:
        if self.markdown is None:
            from textual.widgets import Markdown

            self.markdown = Markdown(markdown)
            self.markdown.display = False  # until it is known to be the latest text
            await self.mount(self.markdown)
            self.markdown_mounted.set()
        else:
            await self.markdown_mounted.wait()
            if self.source != markdown:
                return
            await self.markdown.update(markdown)
        if self.source == markdown:
            self.plain.display = False
            self.markdown.display = True
