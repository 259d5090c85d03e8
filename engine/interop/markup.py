"""Card field text -> safe pack Markdown, and kvdrill Markdown -> HTML for Anki.

Fields from another tool are untrusted. HTML goes through markdownify (a well-kept converter)
with every Markdown character of the text escaped, so what arrives as text stays text: a
``<script>`` is dropped with its content, a literal ``<b>`` or ``[bold]`` shows as written, and
no field can open a heading, a code fence or a comment that would swallow the rest of the pack.
Headings inside a field become bold lines: a ``##`` would start a new card.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cache
from typing import Any
from urllib.parse import quote, unquote

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from markdownify import MarkdownConverter

# C0 and C1 controls but tab and line breaks: a pack refuses them (they can drive a terminal).
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SOUND_RE = re.compile(r"\[sound:[^\]]*\]")
_BLANK_LINES_RE = re.compile(r"\n{3,}")
_BACKTICKS_RE = re.compile(r"`+")
MAX_TITLE_CHARS = 80
_LINK_SCHEME_RE = re.compile(r"(?:https?://|mailto:)", re.IGNORECASE)
_LINK_SAFE = ":/?#[]@!$&'*+,;=%~"


class _PackMarkdown(MarkdownConverter):
    """markdownify's converter, made safe for a card section of a pack. ``images``: media file
    name -> the path a pack's image reference gives it (``shown`` collects those used)."""

    def __init__(self, images: Mapping[str, str] | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.images = images or {}
        self.shown: set[str] = set()

    def convert_hN(self, n: int, el: Any, text: str, parent_tags: set[str]) -> str:  # noqa: N802
        text = " ".join(text.split())
        return f"\n\n**{text}**\n\n" if text else ""

    def convert_pre(self, el: Any, text: str, parent_tags: set[str]) -> str:
        if not text:
            return ""
        # The fence is longer than any run of backticks inside, so the block cannot end early.
        longest = max((len(run) for run in _BACKTICKS_RE.findall(text)), default=0)
        fence = "`" * max(3, longest + 1)
        return f"\n\n{fence}\n{text.strip(chr(10))}\n{fence}\n\n"

    def convert_a(self, el: Any, text: str, parent_tags: set[str]) -> str:
        # Only web and mail links stay links: the card widget and the browser app open them,
        # and a javascript: or data:text/html target would run. Any other keeps its text.
        href = (el.get("href") or "").strip()
        if not _LINK_SCHEME_RE.match(href):
            return text
        el["href"] = quote(href, safe=_LINK_SAFE)  # no space or parenthesis ends it early
        el.attrs.pop("title", None)
        return str(super().convert_a(el, text, parent_tags))

    def convert_sup(self, el: Any, text: str, parent_tags: set[str]) -> str:
        return _raised(text, _SUPERSCRIPTS, "^")

    def convert_sub(self, el: Any, text: str, parent_tags: set[str]) -> str:
        return _raised(text, _SUBSCRIPTS, "_")

    def convert_u(self, el: Any, text: str, parent_tags: set[str]) -> str:
        # Markdown has no underline; the stress it gives stays as emphasis.
        return str(self.convert_em(el, text, parent_tags))

    convert_ins = convert_u

    def convert_img(self, el: Any, text: str, parent_tags: set[str]) -> str:
        # A media file of the package becomes an image reference (alt text or none); any other
        # image (on the web, or missing) keeps a mark and its alt text, never a reference.
        alt = " ".join((el.get("alt") or "").split())
        source = str(el.get("src") or "")
        name = source if source in self.images else unquote(source)
        if name in self.images:
            self.shown.add(name)
            return f"![{self.escape(alt, parent_tags)}]({quote(self.images[name])})"
        return self.escape(f"[image: {alt}]" if alt else "[image]", parent_tags)


_SUPERSCRIPTS = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
_SUBSCRIPTS = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")


def _raised(text: str, table: dict[int, int], mark: str) -> str:
    """Superscript or subscript text in Unicode's raised digits (x², H₂O) when it has only
    such characters, else as ``^(...)`` or ``_(...)``: never run into the text before it."""
    shown = text.strip()
    if not shown:
        return ""
    if all(ord(char) in table for char in shown):
        return shown.translate(table)
    escaped_mark = "\\_" if mark == "_" else mark
    return f"{escaped_mark}({shown})"


def _converter(images: Mapping[str, str] | None = None) -> _PackMarkdown:
    return _PackMarkdown(
        images,
        heading_style="ATX",
        bullets="-",
        escape_misc=True,
        escape_asterisks=True,
        escape_underscores=True,
        newline_style="backslash",  # a <br> stays a line break: trailing spaces get trimmed
        table_infer_header=True,  # a table without <th> keeps its first row as the header
    )


def _clean(text: str) -> str:
    return _SOUND_RE.sub("", _CONTROL_RE.sub("", text)).replace("\xa0", " ")


def html_to_markdown(field: str, images: ImageNames | None = None) -> str:
    """An HTML field as pack Markdown (empty when the field shows nothing). ``images``: the
    package's media files the field's images may reference, and those it did."""
    converter = _converter(images.paths if images else None)
    # &nbsp; becomes U+00A0 only once parsed: a plain space, as _clean makes a literal one.
    markdown = converter.convert(_clean(field)).replace("\xa0", " ")
    if images is not None:
        images.shown.update(converter.shown)
    lines = [line.rstrip() for line in markdown.replace("\r\n", "\n").split("\n")]
    return _BLANK_LINES_RE.sub("\n\n", "\n".join(lines)).strip("\n")


@dataclass
class ImageNames:
    """A package's media files as pack image references: file name -> the reference's path
    (``paths``), and the names the converted fields showed (``shown``)."""

    paths: Mapping[str, str]
    shown: set[str] = dataclass_field(default_factory=set)


def text_to_html(field: str) -> str:
    """A plain-text field as HTML showing every character as written: paragraphs and breaks."""
    text = _clean(field).replace("\r\n", "\n").replace("\r", "\n")
    paragraphs = (part for part in re.split(r"\n\s*\n", text) if part.strip())
    return "".join(
        f"<p>{'<br>'.join(html.escape(line) for line in p.split(chr(10)))}</p>" for p in paragraphs
    )


def text_to_markdown(field: str) -> str:
    """A plain-text field as pack Markdown: every character shown as written."""
    return html_to_markdown(text_to_html(field))


def visible_text(field: str, is_html: bool) -> str:
    """What the field shows, on one line, without markup (a title: tables left out)."""
    text = _clean(field)
    if is_html:
        soup = BeautifulSoup(text, "html.parser")
        for table in soup.find_all("table"):
            table.decompose()
        text = soup.get_text(" ")
    return " ".join(text.split())


def escape_markdown(text: str) -> str:
    """``text`` with every Markdown character escaped: inside Markdown, it shows as written."""
    return str(_converter().escape(text, set())) if text else ""


def title_markdown(text: str) -> str:
    """One line of visible text as a card title: short and braces-free. Not escaped: a title
    is everything before the heading's ``{#id}``, shown as text (the TUI header, plain mode),
    never rendered as Markdown, so a backslash would show."""
    if len(text) > MAX_TITLE_CHARS:
        text = text[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    # Braces could read as an {#id}; a title is only for show, so parentheses do.
    return text.replace("{", "(").replace("}", ")")


@cache  # one parser for every field: building one takes longer than rendering a field
def _html_renderer() -> MarkdownIt:
    # Raw HTML in a pack is shown as text in Anki too, never run: html is off.
    return MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough")


def markdown_to_html(markdown: str) -> str:
    """Pack Markdown as the HTML an Anki field holds."""
    return _html_renderer().render(markdown).strip()
