"""A pack file's bytes made text, safely: files are untrusted and may be anything.

Every refusal is one ``Located`` line: too big, empty, binary, not UTF-8, control characters,
too many lines. Reading the file is app/services/pack_files.py's; this is handed its bytes.
"""

from __future__ import annotations

import re

from kvdrill.engine.errors import Located, PackErrors
from kvdrill.i18n import _

_MIB = 1024 * 1024
MAX_PACK_BYTES = 4 * _MIB
# Parsing time grows with lines more than with bytes; 2,000 real cards fit well within this.
MAX_PACK_LINES = 100_000
# C0 and C1 controls but tab and line breaks: in card text they could drive a terminal.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# The ASCII a pack may hold: printable characters, tab and line breaks. Deleting them from an
# ASCII text's bytes leaves its control characters, much faster than the regex scans for them.
_ALLOWED_ASCII = bytes([9, 10, 13, *range(32, 127)])


def refusal(path: str, line: int, message: str) -> PackErrors:
    return PackErrors([Located(path, line, message)])


def too_big_message(size: int) -> str:
    return _(
        "file is {size} MB; a pack may be at most {most} MB, so split it into smaller packs"
    ).format(size=f"{size / _MIB:.1f}", most=MAX_PACK_BYTES // _MIB)


def decode_pack_bytes(data: bytes, path: str) -> str:
    """The text of a pack file, or one clear ``PackErrors`` line: empty, binary or not UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise refusal(path, 1, _("file is UTF-16; save it as UTF-8"))
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise refusal(
            path,
            line,
            _("binary file (NUL byte at offset {offset}); a pack is UTF-8 text").format(offset=nul),
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise refusal(
            path,
            line,
            _(
                "not valid UTF-8: byte {byte} at offset {offset} (column {column}); save the "
                "file as UTF-8"
            ).format(byte=f"0x{data[exc.start]:02x}", offset=exc.start, column=column),
        ) from None
    return text


def check_pack_text(text: str, path: str) -> None:
    """Refuse text no pack can be: empty, binary, with control characters, or too big."""
    if not text.lstrip("\ufeff").strip():
        raise refusal(path, 1, _("empty file: a pack starts with --- front matter, then its cards"))
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise refusal(
            path,
            line,
            _("binary file (NUL character at offset {offset}); a pack is text").format(offset=nul),
        )
    maybe_control = not text.isascii() or text.encode("ascii").translate(None, _ALLOWED_ASCII)
    if maybe_control and (control := _CONTROL_RE.search(text)):
        line = text.count("\n", 0, control.start()) + 1
        column = control.start() - (text.rfind("\n", 0, control.start()) + 1) + 1
        raise refusal(
            path,
            line,
            _(
                "control character {character} at column {column}; a pack is plain text (tabs "
                "and line breaks are the only control characters allowed)"
            ).format(character=f"U+{ord(control.group()):04X}", column=column),
        )
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise refusal(path, line, _("text is not valid Unicode (a lone surrogate)")) from None
    if size > MAX_PACK_BYTES:
        raise refusal(path, 1, too_big_message(size))
    returns = text.count("\r")  # counted alone: no "\r\n" to look for in most packs
    lines = text.count("\n") + (returns - text.count("\r\n") if returns else 0) + 1
    if lines > MAX_PACK_LINES:
        raise refusal(
            path,
            MAX_PACK_LINES + 1,
            _(
                "file has {lines} lines; a pack may have at most {most}, so split it into "
                "smaller packs"
            ).format(lines=f"{lines:,}", most=f"{MAX_PACK_LINES:,}"),
        )


def declared_pack_id(text: str) -> str | None:
    """The ``pack:`` id in a pack's front matter, read without parsing the cards; None when
    the text has no readable front matter or no text id (parsing says why)."""
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    end = next((n for n, line in enumerate(lines) if n and line.rstrip() in ("---", "...")), 0)
    if not end:
        return None
    from kvdrill.engine.packs.yaml_blocks import YamlProblem, load_yaml, read_plain_yaml

    front = "\n".join(lines[1:end])
    try:
        loaded = read_plain_yaml(front) or load_yaml(front)  # PyYAML only when needed
    except YamlProblem:
        return None
    pack = loaded.value.get("pack") if isinstance(loaded.value, dict) else None
    return pack if isinstance(pack, str) else None
