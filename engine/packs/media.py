"""A pack's images: the folder beside the pack that holds them, and the placeholder line a
terminal shows for each. Pure: the callers read the files.

``kvdrill convert`` copies a package's images into ``PACK.media/`` beside ``PACK.md`` and the
cards reference them in Markdown (``![alt](PACK.media/chart.png)``). A reference is shown only
when it names a file directly in that folder: no other folder, no ``..``, no absolute path, so
a pack cannot make kvdrill show (or the browser app send) any other file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath, PurePosixPath
from urllib.parse import unquote

from kvdrill.i18n import _

MEDIA_SUFFIX = ".media"
# The images a card may show, by suffix, with the type the browser app sends each as: those a
# browser shows inline. SVG is left out: it can hold scripts, and the browser app opens an
# image from its own page's origin.
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".bmp": "image/bmp",
    ".avif": "image/avif",
}
# ``![alt](target)``: alt text with escapes, a target without spaces or parentheses (convert
# writes it URL-quoted).
_IMAGE_RE = re.compile(r"!\[((?:\\.|[^\\\]])*)\]\(([^()\s]*)\)")
_ESCAPE_RE = re.compile(r"\\(.)")


def is_image(name: str) -> bool:
    return PurePath(name).suffix.lower() in IMAGE_TYPES


def media_folder_name(pack_file: PurePath) -> str:
    """The name of the folder beside ``pack_file`` that holds its images."""
    return pack_file.stem + MEDIA_SUFFIX


def image_file(pack_path: str, target: str) -> PurePath | None:
    """The file an image reference of the pack at ``pack_path`` names: in the pack's media
    folder, or None when it names anything else."""
    if not pack_path:
        return None
    pack_file = PurePath(pack_path)
    parts = PurePosixPath(unquote(target)).parts
    if len(parts) != 2 or parts[0] != media_folder_name(pack_file):
        return None
    name = parts[1]
    if name in (".", "..") or "\\" in name or "\x00" in name:
        return None
    return pack_file.with_name(parts[0]) / name


def with_image_lines(
    markdown: str, pack_path: str, line: Callable[[str, PurePath | None, str], str]
) -> str:
    """``markdown`` with each image reference replaced by ``line(alt, file, target)``: ``file``
    the image in the pack's media folder, None when the reference names anything else."""

    def placeholder(match: re.Match[str]) -> str:
        alt = " ".join(_ESCAPE_RE.sub(r"\1", match.group(1)).split())
        return line(alt, image_file(pack_path, match.group(2)), match.group(2))

    return _IMAGE_RE.sub(placeholder, markdown)


def image_text(alt: str, file: PurePath | None, target: str) -> str:
    """The placeholder a terminal shows for an image: ``[image: alt: path]``."""
    if file is None:
        where = unquote(target)
        if alt:
            return _(
                "[image: {alt} (not shown: {target} is not in the pack's media folder)]"
            ).format(alt=alt, target=where)
        return _("[image (not shown: {target} is not in the pack's media folder)]").format(
            target=where
        )
    if alt:
        return _("[image: {alt}: {path}]").format(alt=alt, path=file)
    return _("[image: {path}]").format(path=file)
