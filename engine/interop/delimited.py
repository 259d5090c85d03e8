"""Anki's "Notes in Plain Text" export and plain CSV files -> a ``ForeignDeck``.

An Anki text export starts with header lines such as ``#separator:tab``, ``#html:true`` and
``#tags column:3`` (and ``#guid column:1`` when the note ids were included); the rows follow,
one note each, with the fields in order. A file without those lines is read as plain CSV:
front, back and optional tags, with an optional ``front,back,tags`` header row.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from kvdrill.engine.interop.notes import (
    ConvertError,
    ForeignDeck,
    ForeignField,
    ForeignNote,
    check_field_size,
    too_many_notes,
)
from kvdrill.engine.packs.model import MAX_CARDS_PER_PACK

SEPARATORS = {
    "tab": "\t",
    "comma": ",",
    "semicolon": ";",
    "space": " ",
    "pipe": "|",
    "colon": ":",
}
PLAIN_HEADER = ("front", "back", "tags")
_HEADER_RE = re.compile(r"#([a-z][a-z ]*):(.*)\Z")
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|\Z)")
# What makes a plain CSV field HTML: a tag Anki's editor writes, or a character entity.
_HTML_RE = re.compile(
    r"</?(?:b|i|u|em|strong|br|p|div|span|sup|sub|ul|ol|li|img|a|table|tr|td|th|code|pre|"
    r"hr|h[1-6]|font)\b[^<>]*>|&(?:amp|lt|gt|nbsp|quot|apos|#\d{1,7}|#x[0-9a-f]{1,6});",
    re.IGNORECASE,
)


@dataclass
class _Header:
    separator: str | None = None
    html: bool = False
    columns: dict[str, int] = field(default_factory=dict)  # "tags", "guid", ... -> 0-based
    names: list[str] = field(default_factory=list)  # from ``#columns:``
    tags: tuple[str, ...] = ()  # from ``#tags:``, given to every note
    lines: int = 0  # header lines read
    present: bool = False


def _read_header(text: str, path: str) -> tuple[_Header, str]:
    """The leading ``#key:value`` lines, and the text after them."""
    header = _Header()
    offset = 0
    raw_columns: str | None = None
    for match in _LINE_RE.finditer(text):
        line = match.group()
        stripped = line.rstrip("\r\n")
        found = _HEADER_RE.match(stripped)
        if not stripped or found is None:
            break
        key, value = found.group(1).strip(), found.group(2).strip()
        number = header.lines + 1
        if key == "separator":
            header.separator = SEPARATORS.get(value.lower(), value if len(value) == 1 else None)
            if header.separator is None:
                raise ConvertError(
                    path,
                    number,
                    f'unknown separator "{value}"; use one of {", ".join(SEPARATORS)} '
                    "or a single character",
                )
        elif key == "html":
            if value.lower() not in ("true", "false"):
                raise ConvertError(path, number, f'#html is "{value}"; write true or false')
            header.html = value.lower() == "true"
        elif key.endswith(" column"):
            if not value.isdigit() or int(value) < 1:
                raise ConvertError(path, number, f'#{key} is "{value}"; write a column number')
            header.columns[key.removesuffix(" column")] = int(value) - 1
        elif key == "tags":
            header.tags = tuple(value.split())
        elif key == "columns":
            raw_columns = value
        # Other keys (#deck, #notetype, #if matches ...) say where Anki should put the notes.
        header.lines += 1
        header.present = True
        offset = match.end()
    if raw_columns is not None and header.separator is not None:
        header.names = [name.strip() for name in raw_columns.split(header.separator)]
    return header, text[offset:]


def _guess_separator(body: str, suffix: str) -> str:
    """Tab, comma or semicolon (a spreadsheet's CSV in many locales), from the first row."""
    if suffix == ".tsv":
        return "\t"
    first = next((line for line in body.splitlines() if line.strip()), "")
    return next((sep for sep in ("\t", ",", ";") if sep in first), ",")


def _separator_name(separator: str) -> str:
    names = {value: name for name, value in SEPARATORS.items()}
    return names.get(separator, f'"{separator}"')


def _rows(body: str, separator: str, first_line: int, path: str) -> Iterator[tuple[int, list[str]]]:
    """(line, cells) for each row; csv's own errors become one located line."""
    reader = csv.reader(io.StringIO(body, newline=""), delimiter=separator, strict=True)
    start = first_line
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            line = first_line + reader.line_num - 1
            if "field larger than field limit" in str(exc):
                raise ConvertError(
                    path, line, f"a field is over {csv.field_size_limit():,} characters long"
                ) from None
            raise ConvertError(path, line, f"cannot read the row: {exc}") from None
        yield start, cells
        start = first_line + reader.line_num


def read_delimited(text: str, path: str, title: str, suffix: str = "") -> ForeignDeck:
    """The notes of an Anki text export or a plain CSV file. ``ConvertError`` on bad input."""
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ConvertError(path, 1, "empty file: no notes to convert")
    header, body = _read_header(text, path)
    separator = header.separator or _guess_separator(body, suffix)
    special = set(header.columns.values())
    notes: list[ForeignNote] = []
    for line, cells in _rows(body, separator, header.lines + 1, path):
        if not any(cell.strip() for cell in cells):
            continue
        if len(notes) == MAX_CARDS_PER_PACK:  # refused before the rest is read
            raise ConvertError(path, line, too_many_notes())
        for cell in cells:
            check_field_size(cell, path, line)
        if not header.present:
            if not notes and tuple(c.strip().lower() for c in cells) in (
                PLAIN_HEADER[:2],
                PLAIN_HEADER,
            ):
                continue  # the header row of a plain CSV
            if len(cells) > len(PLAIN_HEADER):
                raise ConvertError(
                    path,
                    line,
                    f"{len(cells)} columns; a CSV has front, back and optional tags "
                    "(an Anki text export with more fields starts with #separator: and "
                    "#html: lines)",
                )
            notes.append(_plain_note(cells, line))
            texts = cells[:2]
        else:
            note = _anki_note(cells, header, special, line)
            notes.append(note)
            texts = [f.text for f in note.fields]
        if len(texts) < 2:
            raise ConvertError(
                path,
                line,
                f"only one field; a note needs a front and a back. Is the separator right? "
                f"This file is read with {_separator_name(separator)} between fields",
            )
    if not notes:
        raise ConvertError(path, header.lines + 1, "no notes in the file")
    return ForeignDeck(notes=tuple(notes), title=title)


def _plain_note(cells: list[str], line: int) -> ForeignNote:
    fields = tuple(
        ForeignField(name, text) for name, text in zip(("Front", "Back"), cells[:2], strict=False)
    )
    tags = tuple(cells[2].split()) if len(cells) > 2 else ()
    # A spreadsheet of cards often holds Anki's HTML: such a note is read as HTML (made
    # Markdown), any other as text shown as written.
    html = any(_HTML_RE.search(field.text) for field in fields)
    return ForeignNote(fields=fields, tags=tags, html=html, line=line)


def _anki_note(cells: list[str], header: _Header, special: set[int], line: int) -> ForeignNote:
    def column(name: str) -> str | None:
        index = header.columns.get(name)
        return cells[index] if index is not None and index < len(cells) else None

    fields = tuple(
        ForeignField(header.names[index] if index < len(header.names) else None, text)
        for index, text in enumerate(cells)
        if index not in special
    )
    tags = tuple((column("tags") or "").split()) + header.tags
    guid = (column("guid") or "").strip() or None
    return ForeignNote(fields=fields, tags=tags, html=header.html, source_id=guid, line=line)
