"""Pack files on disk: read safely, found under directories, parsed, and given their ids.

Files are untrusted and may be anything: every refusal is one ``Located`` line (missing, not a
file, too big, changed while read; engine/packs/source.py words the rest once it has the bytes).
The engine parses what is read here (engine/packs/parser.py ``parse_pack_bytes``) and never
touches the disk itself.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kvdrill.engine.errors import Located, PackErrors, UserError
from kvdrill.engine.packs.add_ids import add_missing_ids
from kvdrill.engine.packs.model import KeyNumber, ParsedPack
from kvdrill.engine.packs.parser import PackFileErrors, parse_pack_bytes
from kvdrill.engine.packs.source import (
    MAX_PACK_BYTES,
    declared_pack_id,
    decode_pack_bytes,
    refusal,
    too_big_message,
)
from kvdrill.i18n import _


@dataclass
class CheckedPaths:
    """Every pack file under some paths, parsed: what a pack author is told about them."""

    packs: list[ParsedPack]  # the files that parsed without an error
    problems: list[Located]
    # Cards that parsed without an error of their own, counting those in files with errors.
    cards: int
    # Files with errors: (path, every key number read), so their claims are checked too.
    partial: list[tuple[str, list[KeyNumber]]] = field(default_factory=list)


def read_pack_bytes(path: Path) -> bytes:
    """The file's bytes, or ``PackErrors`` if it is missing, not a file, over the size cap, or
    changed while it was read."""
    return read_pack_snapshot(path)[0]


def read_pack_snapshot(path: Path) -> tuple[bytes, os.stat_result]:
    """``read_pack_bytes``, with the file's status as read, for ``check_unchanged`` later."""
    name = str(path)
    try:
        if not path.exists():
            raise refusal(name, 1, _("no such file or directory"))
        if not path.is_file():
            raise refusal(name, 1, _("not a regular file"))
        size = path.stat().st_size
        if size > MAX_PACK_BYTES:
            raise refusal(name, 1, too_big_message(size))
        with path.open("rb") as handle:
            before = os.fstat(handle.fileno())
            # Read one byte past the cap: the file may have grown since stat().
            data = handle.read(MAX_PACK_BYTES + 1)
            after = os.fstat(handle.fileno())
    except OSError as exc:
        raise refusal(
            name, 1, _("cannot read the file: {reason}").format(reason=exc.strerror or exc)
        ) from None
    if len(data) > MAX_PACK_BYTES:
        raise refusal(name, 1, too_big_message(len(data)))
    if _changed(before, after) or len(data) != after.st_size:
        raise _changed_while_read(name)
    return data, after


def check_unchanged(path: Path, seen: os.stat_result) -> None:
    """Refuse a file written to since ``seen`` (from ``read_pack_snapshot``): a program saving
    it in place may have been half-way through when it was read, and half a file parses as a
    pack that lost cards. A file replaced whole (an editor's save-and-rename) is no problem:
    what was read is the old file, complete."""
    try:
        now = os.stat(path)
    except OSError:
        return  # gone since: what was read was whole when read
    if (now.st_dev, now.st_ino) == (seen.st_dev, seen.st_ino) and _changed(seen, now):
        raise _changed_while_read(str(path))


def _changed(before: os.stat_result, after: os.stat_result) -> bool:
    return (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns)


def _changed_while_read(path: str) -> PackErrors:
    return refusal(
        path, 1, _("the file changed while it was being read (is it being saved?); try again")
    )


def paths_from_arguments(arguments: list[str], outcome: str) -> list[Path]:
    """PATH arguments as paths, refusing an empty one with ``UserError`` ending in ``outcome``.

    ``Path("")`` is the current directory, so an unset shell variable would otherwise quietly
    import (or rewrite, with ``check --add-ids``) every pack under it.
    """
    if any(not argument.strip() for argument in arguments):
        raise UserError(
            _("an empty PATH was given (an unset shell variable?); {outcome}").format(
                outcome=outcome
            )
        )
    return [Path(argument) for argument in arguments]


# How far a folder given to check or import is searched for packs: `kvdrill check /` should
# stop soon and say so, not walk the whole file system.
MAX_SCAN_FOLDERS = 2000
MAX_SCAN_DEPTH = 12


def expand_pack_paths(paths: list[Path]) -> tuple[list[Path], list[Located]]:
    """Files given, plus every ``*.md`` under directories given (recursively, README.md skipped).

    Hidden directories are skipped and symlinked directories are not followed (no loops).
    A missing path, or a directory with no pack in it, is one error each.
    """
    files: list[Path] = []
    problems: list[Located] = []
    for path in paths:
        if path.is_dir():
            found: list[Path] = []
            base_depth = len(path.parts)
            for visited, (root, dirs, names) in enumerate(os.walk(path), start=1):
                if (
                    visited > MAX_SCAN_FOLDERS
                    or len(Path(root).parts) - base_depth > MAX_SCAN_DEPTH
                ):
                    problems.append(
                        Located(
                            str(path),
                            1,
                            _(
                                "stopped looking for packs after {folders} folders or {levels} "
                                "levels down ({root}): name the pack files, or a folder that "
                                "holds only packs"
                            ).format(folders=MAX_SCAN_FOLDERS, levels=MAX_SCAN_DEPTH, root=root),
                        )
                    )
                    break
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found.extend(
                    Path(root) / name
                    for name in sorted(names)
                    if name.endswith(".md") and name.lower() != "readme.md"
                )
            if not found:
                problems.append(Located(str(path), 1, _("no pack files (*.md) in this directory")))
            files.extend(found)
        elif path.exists() or path.is_symlink():
            files.append(path)
        else:
            problems.append(Located(str(path), 1, _("no such file or directory")))
    unique: list[Path] = []
    seen: set[Path] = set()
    for file in files:
        try:
            resolved = file.resolve(strict=True)
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
            problem = Located(str(file), 1, _unreachable(file))
            if problem not in problems:  # the same link given and found in a directory
                problems.append(problem)
            continue
        if resolved not in seen:
            seen.add(resolved)
            unique.append(file)
    return unique, problems


def _unreachable(path: Path) -> str:
    """Why a path given or found cannot be read: a dangling or looping link, or nothing there."""
    if not path.is_symlink():
        return "no such file or directory"
    try:
        path.resolve(strict=True)
    except FileNotFoundError:
        return "a symbolic link to nothing (its target is missing)"
    except (OSError, RuntimeError):
        return "a symbolic link that loops back on itself"
    return "no such file or directory"


def file_pack_id(path: Path) -> str | None:
    """The ``pack:`` id in a pack file's front matter, read without parsing the cards; None
    when the file cannot be read or has no text id (``parse_pack`` says why)."""
    try:
        return declared_pack_id(decode_pack_bytes(read_pack_bytes(path), str(path)))
    except PackErrors:
        return None


def parse_pack(path: Path) -> ParsedPack:
    """Parse one pack file. Raises ``PackErrors`` listing every problem found in it."""
    data, seen = read_pack_snapshot(path)
    try:
        pack = parse_pack_bytes(data, str(path))
    except PackErrors:
        check_unchanged(path, seen)  # a file being saved explains its errors better
        raise
    # Checked after parsing, not only around the read: a program writing the file in pieces
    # is more likely caught in the longer window.
    check_unchanged(path, seen)
    return pack


def parse_paths(paths: list[Path]) -> tuple[list[ParsedPack], list[Located]]:
    """Parse every pack in ``paths`` (directories recursively: *.md, README.md skipped).

    Returns the packs that parsed and every problem across all files, including a pack id
    used by two files.
    """
    checked = check_paths(paths)
    return checked.packs, checked.problems


def check_paths(paths: list[Path]) -> CheckedPaths:
    """``parse_paths``, also counting the cards that parsed cleanly in files with errors."""
    files, missing = expand_pack_paths(paths)
    checked = check_files(files)
    return CheckedPaths(checked.packs, missing + checked.problems, checked.cards)


def check_files(
    files: list[Path], progress: Callable[[int, int], None] | None = None
) -> CheckedPaths:
    """Parse pack files (already found by ``expand_pack_paths``): the packs, every problem
    (a pack id used by two files included) and the cards that parsed. ``progress`` hears
    (files done, files in all)."""
    packs: list[ParsedPack] = []
    problems: list[Located] = []
    cards = 0
    first_file: dict[str, str] = {}
    partial: list[tuple[str, list[KeyNumber]]] = []
    for done, file in enumerate(files, start=1):
        try:
            try:
                pack = parse_pack(file)
            except PackErrors as exc:
                problems.extend(exc.problems)
                if isinstance(exc, PackFileErrors):
                    cards += exc.sound_cards
                    partial.append((str(file), exc.key_numbers))
                continue
            cards += len(pack.cards)
            if pack.meta.pack in first_file:
                problems.append(
                    Located(
                        pack.path,
                        front_matter_line(pack, "pack"),
                        _('pack id "{pack}" is already used by {file}').format(
                            pack=pack.meta.pack, file=first_file[pack.meta.pack]
                        ),
                    )
                )
                continue
            first_file[pack.meta.pack] = pack.path
            packs.append(pack)
        finally:
            if progress is not None:
                progress(done, len(files))

    return CheckedPaths(packs, problems, cards, partial)


def pack_lines(pack: ParsedPack) -> list[str]:
    """The lines of a parsed pack's file (none if it can no longer be read)."""
    try:
        return Path(pack.path).read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def front_matter_line(pack: ParsedPack, key: str, lines: list[str] | None = None) -> int:
    """1-based line of ``key:`` in a parsed pack's front matter (1 if it cannot be found);
    ``lines`` are its file's lines when the caller has read them."""
    lines = pack_lines(pack) if lines is None else lines
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() in ("---", "..."):
            break
        if line.startswith(f"{key}:"):
            return number
    return 1


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
