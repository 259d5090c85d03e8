"""Opening a card's image: the link the full-screen app puts on an image's placeholder line,
and the checks before the file is shown.

The drill screen shows an image as a placeholder line with the file's path (app/tui/card_text.py),
linked with ``media_link``. Clicking it opens the image: the browser app (``kvdrill serve``)
sends it to the browser tab through textual-serve's own download route, a terminal hands it to
the desktop's viewer. Only an image file directly in a pack's media folder (``PACK.media``
beside ``PACK.md``, engine/packs/media.py) is ever opened: no other file, and no symlink out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath
from urllib.parse import quote, unquote

from kvdrill.engine.packs.media import IMAGE_TYPES, MEDIA_SUFFIX

MEDIA_LINK_PREFIX = "kvdrill-media:"


@dataclass(frozen=True)
class LinkedImage:
    path: Path
    mime_type: str


def media_link(file: PurePath) -> str:
    """The link target of an image's placeholder line."""
    return MEDIA_LINK_PREFIX + quote(str(file))


def is_media_link(url: str) -> bool:
    return url.startswith(MEDIA_LINK_PREFIX)


def linked_image(url: str) -> LinkedImage | None:
    """The image a ``media_link`` names, when it is an image file directly in a pack's media
    folder (the real file, symlinks followed, too); None for anything else."""
    if not is_media_link(url):
        return None
    path = Path(unquote(url[len(MEDIA_LINK_PREFIX) :]))
    folder = path.parent
    mime_type = IMAGE_TYPES.get(path.suffix.lower())
    if mime_type is None or not folder.name.endswith(MEDIA_SUFFIX) or ".." in path.parts:
        return None
    pack_file = folder.with_name(folder.name[: -len(MEDIA_SUFFIX)] + ".md")
    try:
        real = path.resolve(strict=True)
        if real.parent != folder.resolve(strict=True) or not real.is_file():
            return None
        if not pack_file.is_file():
            return None
    except (OSError, RuntimeError):
        return None
    return LinkedImage(real, mime_type)
