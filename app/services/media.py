"""Opening a card's image: the link the full-screen app puts on an image's placeholder line,
and the checks before the file is shown.

The drill screen shows an image as a placeholder line with the file's path (app/tui/card_text.py),
linked with ``media_link``. Clicking it opens the image: the browser app (``kvdrill serve``)
sends it to the browser tab through textual-serve's own download route, a terminal hands it to
the desktop's viewer. Only an image file in its pack's folder or below it (engine/packs/media.py)
is ever opened: no other file, and no symlink out of that folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath
from urllib.parse import quote, unquote

from kvdrill.engine.packs.media import IMAGE_TYPES

MEDIA_LINK_PREFIX = "kvdrill-media:"


@dataclass(frozen=True)
class LinkedImage:
    path: Path
    mime_type: str


def media_link(pack_path: str, file: PurePath) -> str:
    """The link target of an image's placeholder line: the pack's file and the image's."""
    return f"{MEDIA_LINK_PREFIX}{quote(pack_path)}?{quote(str(file))}"


def is_media_link(url: str) -> bool:
    return url.startswith(MEDIA_LINK_PREFIX)


def linked_image(url: str) -> LinkedImage | None:
    """The image a ``media_link`` names, when it is an image file in its pack's folder or below
    it (the real file, symlinks followed, too); None for anything else."""
    if not is_media_link(url):
        return None
    pack_text, separator, file_text = url[len(MEDIA_LINK_PREFIX) :].partition("?")
    pack_file, path = Path(unquote(pack_text)), Path(unquote(file_text))
    mime_type = IMAGE_TYPES.get(path.suffix.lower())
    if not separator or mime_type is None or ".." in path.parts:
        return None
    try:
        if not pack_file.is_file() or not path.is_relative_to(pack_file.parent):
            return None
        real = path.resolve(strict=True)
        if not real.is_file() or not real.is_relative_to(pack_file.parent.resolve(strict=True)):
            return None
    except (OSError, RuntimeError):
        return None
    return LinkedImage(real, mime_type)
