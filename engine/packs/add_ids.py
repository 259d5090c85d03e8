"""``kvdrill check --add-ids``: write generated ids into card headings that lack one.

Only the ids are inserted; every other byte of the file stays as it was (line endings, a BOM,
trailing spaces). The file is replaced atomically, so a crash never leaves half a pack.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from kvdrill.engine.packs.headings import slugify, unique_id
from kvdrill.engine.packs.parser import card_headings
from kvdrill.engine.packs.source import decode_pack_bytes, read_pack_bytes

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


def write_atomically(path: Path, data: bytes) -> None:
    """Replace (or create) ``path``'s content with ``data`` via a temporary file and
    ``os.replace``; an existing file keeps its permissions."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else _new_file_mode()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def add_ids_to_file(path: Path) -> list[tuple[int, str]]:
    """Insert missing card ids into the pack at ``path``; return (line, id) for each one added.

    Raises ``PackErrors`` if the file cannot be read as a pack's text (missing, binary, ...).
    """
    text = decode_pack_bytes(read_pack_bytes(path), str(path))
    new_text, added = add_missing_ids(text)
    if added:
        write_atomically(path, new_text.encode("utf-8"))
    return added
