"""A pack's images: where an image reference points, the folder ``convert`` copies images
into, and the placeholder line a terminal shows for each. Pure: the callers read the files.

A card references an image in Markdown, ``![alt](path)``, the path relative to the pack file:
``kvdrill convert`` copies a package's images into ``PACK.media/`` beside ``PACK.md`` and writes
``![alt](PACK.media/chart.png)``; a hand-written pack may name any file in its own folder or
below it (``figures/plot.png``). A reference that leaves the pack's folder (``..`` above it, an
absolute path, a URL) is refused by ``kvdrill check`` and import (``image_reference_problems``),
so a pack cannot make kvdrill show (or the browser app send) any other file; the file itself is
checked again when it is opened (app/services/media.py: no symlink out).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath, PurePosixPath
from urllib.parse import unquote

from kvdrill.engine.errors import Located
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
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # a URL's scheme, or a drive letter


def is_image(name: str) -> bool:
    return PurePath(name).suffix.lower() in IMAGE_TYPES


def media_folder_name(pack_file: PurePath) -> str:
    """The name of the folder beside ``pack_file`` that holds its images."""
    return pack_file.stem + MEDIA_SUFFIX


def _inside_parts(target: str) -> tuple[str, ...] | None:
    """The path parts of a reference within the pack's folder (``.`` and ``..`` worked out);
    None when it leaves the folder or names no file there (``reference_problem``)."""
    if reference_problem(target) is not None:
        return None
    parts: list[str] = []
    for part in PurePosixPath(unquote(target)).parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return tuple(parts)


def reference_problem(target: str) -> str | None:
    """Why an image reference does not name a file in the pack's folder, or None when it does."""
    path = unquote(target)
    if not path:
        return _("the image reference names no file")
    if "\\" in path or "\x00" in path:
        return _("image '{target}': write its path with / between folders").format(target=path)
    if _SCHEME_RE.match(path) or path.startswith("/"):
        return _(
            "image '{target}' is not a file in the pack's folder: kvdrill shows only images "
            "beside the pack or below it (such as {example})"
        ).format(target=path, example="figures/plot.png")
    depth = 0  # folders below the pack's
    for part in PurePosixPath(path).parts:
        if part == "..":
            depth -= 1
        elif part != ".":
            depth += 1
        if depth < 0:
            return _(
                "image '{target}' leaves the pack's folder: kvdrill shows only images beside "
                "the pack or below it (such as {example})"
            ).format(target=path, example="figures/plot.png")
    if depth == 0:
        return _("image '{target}' names the pack's folder, not a file").format(target=path)
    return None


def image_file(pack_path: str, target: str) -> PurePath | None:
    """The file an image reference of the pack at ``pack_path`` names, relative to the pack
    file; None when it names no file in the pack's folder (``reference_problem``)."""
    parts = _inside_parts(target) if pack_path else None
    if not parts:
        return None
    return PurePath(pack_path).parent.joinpath(*parts)


def image_reference_problems(text: str, path: str) -> list[Located]:
    """``path:line: message`` for each image reference of a pack's text that leaves the pack's
    folder (``reference_problem``)."""
    if "![" not in text:
        return []
    problems = []
    for match in _IMAGE_RE.finditer(text):
        if (problem := reference_problem(match.group(2))) is not None:
            problems.append(Located(path, text.count("\n", 0, match.start(2)) + 1, problem))
    return problems


def with_image_lines(
    markdown: str, pack_path: str, line: Callable[[str, PurePath | None, str], str]
) -> str:
    """``markdown`` with each image reference replaced by ``line(alt, file, target)``: ``file``
    the image in the pack's folder, None when the reference names anything else."""

    def placeholder(match: re.Match[str]) -> str:
        alt = " ".join(_ESCAPE_RE.sub(r"\1", match.group(1)).split())
        return line(alt, image_file(pack_path, match.group(2)), match.group(2))

    return _IMAGE_RE.sub(placeholder, markdown)


def image_text(alt: str, file: PurePath | None, target: str) -> str:
    """The placeholder a terminal shows for an image: ``[image: alt: path]``."""
    if file is None:
        where = unquote(target)
        if alt:
            return _("[image: {alt} (not shown: {target} is not in the pack's folder)]").format(
                alt=alt, target=where
            )
        return _("[image (not shown: {target} is not in the pack's folder)]").format(target=where)
    if alt:
        return _("[image: {alt}: {path}]").format(alt=alt, path=file)
    return _("[image: {path}]").format(path=file)
