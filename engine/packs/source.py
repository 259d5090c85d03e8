"""Getting a pack's text off the disk safely: files are untrusted and may be anything.

Every refusal is one ``Located`` line: missing, not a file, too big, empty, binary, not UTF-8.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from kvdrill.engine.errors import Located, PackErrors, UserError

_MIB = 1024 * 1024
MAX_PACK_BYTES = 4 * _MIB
# Parsing time grows with lines more than with bytes; 2,000 real cards fit well within this.
MAX_PACK_LINES = 100_000
# C0 and C1 controls but tab and line breaks: in card text they could drive a terminal.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# The ASCII a pack may hold: printable characters, tab and line breaks. Deleting them from an
# ASCII text's bytes leaves its control characters, much faster than the regex scans for them.
_ALLOWED_ASCII = bytes([9, 10, 13, *range(32, 127)])


def _refuse(path: str, line: int, message: str) -> PackErrors:
    return PackErrors([Located(path, line, message)])


def too_big_message(size: int) -> str:
    return (
        f"file is {size / _MIB:.1f} MB; a pack may be at most {MAX_PACK_BYTES // _MIB} MB, "
        "so split it into smaller packs"
    )


def read_pack_bytes(path: Path) -> bytes:
    """The file's bytes, or ``PackErrors`` if it is missing, not a file, over the size cap, or
    changed while it was read."""
    return read_pack_snapshot(path)[0]


def read_pack_snapshot(path: Path) -> tuple[bytes, os.stat_result]:
    """``read_pack_bytes``, with the file's status as read, for ``check_unchanged`` later."""
    name = str(path)
    try:
        if not path.exists():
            raise _refuse(name, 1, "no such file or directory")
        if not path.is_file():
            raise _refuse(name, 1, "not a regular file")
        size = path.stat().st_size
        if size > MAX_PACK_BYTES:
            raise _refuse(name, 1, too_big_message(size))
        with path.open("rb") as handle:
            before = os.fstat(handle.fileno())
            # Read one byte past the cap: the file may have grown since stat().
            data = handle.read(MAX_PACK_BYTES + 1)
            after = os.fstat(handle.fileno())
    except OSError as exc:
        raise _refuse(name, 1, f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > MAX_PACK_BYTES:
        raise _refuse(name, 1, too_big_message(len(data)))
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
    return _refuse(
        path, 1, "the file changed while it was being read (is it being saved?); try again"
    )


def decode_pack_bytes(data: bytes, path: str) -> str:
    """The text of a pack file, or one clear ``PackErrors`` line: empty, binary or not UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _refuse(path, 1, "file is UTF-16; save it as UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise _refuse(path, line, f"binary file (NUL byte at offset {nul}); a pack is UTF-8 text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise _refuse(
            path,
            line,
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"(column {column}); save the file as UTF-8",
        ) from None
    return text


def check_pack_text(text: str, path: str) -> None:
    """Refuse text no pack can be: empty, binary, with control characters, or too big."""
    if not text.lstrip("\ufeff").strip():
        raise _refuse(path, 1, "empty file: a pack starts with --- front matter, then its cards")
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise _refuse(path, line, f"binary file (NUL character at offset {nul}); a pack is text")
    maybe_control = not text.isascii() or text.encode("ascii").translate(None, _ALLOWED_ASCII)
    if maybe_control and (control := _CONTROL_RE.search(text)):
        line = text.count("\n", 0, control.start()) + 1
        column = control.start() - (text.rfind("\n", 0, control.start()) + 1) + 1
        raise _refuse(
            path,
            line,
            f"control character U+{ord(control.group()):04X} at column {column}; a pack is "
            "plain text (tabs and line breaks are the only control characters allowed)",
        )
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise _refuse(path, line, "text is not valid Unicode (a lone surrogate)") from None
    if size > MAX_PACK_BYTES:
        raise _refuse(path, 1, too_big_message(size))
    returns = text.count("\r")  # counted alone: no "\r\n" to look for in most packs
    lines = text.count("\n") + (returns - text.count("\r\n") if returns else 0) + 1
    if lines > MAX_PACK_LINES:
        raise _refuse(
            path,
            MAX_PACK_LINES + 1,
            f"file has {lines:,} lines; a pack may have at most {MAX_PACK_LINES:,}, "
            "so split it into smaller packs",
        )


def paths_from_arguments(arguments: list[str], outcome: str) -> list[Path]:
    """PATH arguments as paths, refusing an empty one with ``UserError`` ending in ``outcome``.

    ``Path("")`` is the current directory, so an unset shell variable would otherwise quietly
    import (or rewrite, with ``check --add-ids``) every pack under it.
    """
    if any(not argument.strip() for argument in arguments):
        raise UserError(f"an empty PATH was given (an unset shell variable?); {outcome}")
    return [Path(argument) for argument in arguments]


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
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found.extend(
                    Path(root) / name
                    for name in sorted(names)
                    if name.endswith(".md") and name.lower() != "readme.md"
                )
            if not found:
                problems.append(Located(str(path), 1, "no pack files (*.md) in this directory"))
            files.extend(found)
        elif path.exists() or path.is_symlink():
            files.append(path)
        else:
            problems.append(Located(str(path), 1, "no such file or directory"))
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


def declared_pack_id(path: Path) -> str | None:
    """The ``pack:`` id in a pack file's front matter, read without parsing the cards; None
    when the file has no readable front matter or no text id (``parse_pack`` says why)."""
    try:
        lines = decode_pack_bytes(read_pack_bytes(path), str(path)).splitlines()
    except PackErrors:
        return None
    if not lines or lines[0].rstrip() != "---":
        return None
    end = next((n for n, line in enumerate(lines) if n and line.rstrip() in ("---", "...")), 0)
    if not end:
        return None
    from kvdrill.engine.packs.yaml_blocks import YamlProblem, load_yaml, read_plain_yaml

    text = "\n".join(lines[1:end])
    try:
        loaded = read_plain_yaml(text) or load_yaml(text)  # PyYAML only when needed
    except YamlProblem:
        return None
    pack = loaded.value.get("pack") if isinstance(loaded.value, dict) else None
    return pack if isinstance(pack, str) else None


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
