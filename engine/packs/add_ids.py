"""``kvdrill check --add-ids``: generated ids inserted into card headings that lack one.

Only the ids are inserted; every other character of the text stays as it was (line endings, a
BOM, trailing spaces). app/services/pack_files.py writes the result back, atomically.
"""

from __future__ import annotations

import re

from kvdrill.engine.packs.headings import slugify, unique_id
from kvdrill.engine.packs.parser import card_headings

_LINE_BREAK_RE = re.compile(r"(\r\n|\r|\n)")


def add_missing_ids(text: str) -> tuple[str, list[tuple[int, str]]]:
    """``text`` with an id inserted into each card heading that has none.

    Returns the new text and, for each id added, its 1-based line and the id. Ids are slugs of
    the titles, made unique within the pack (existing ids are never reused).
    """
    headings = card_headings(text)
    taken = {heading.card_id for _, heading in headings if heading.card_id is not None}
    # parts alternates line text and line break, so joining it back gives the text unchanged.
    parts = _LINE_BREAK_RE.split(text)
    added: list[tuple[int, str]] = []
    for line, heading in headings:
        if heading.card_id is not None or not heading.title:
            continue
        card_id = unique_id(slugify(heading.title), taken)
        taken.add(card_id)
        source = parts[2 * line]
        marker_end = source.index("#") + 2  # past the opening "##"
        at = source.index(heading.title, marker_end) + len(heading.title)
        parts[2 * line] = f"{source[:at]} {{#{card_id}}}{source[at:]}"
        added.append((line + 1, card_id))
    return "".join(parts), added
