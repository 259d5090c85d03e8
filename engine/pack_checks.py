"""Checks of a parsed pack beyond its syntax: problem templates and key-number claims.

``kvdrill check`` and the importer call ``extra_checks`` after parsing succeeds.
"""

from __future__ import annotations

import re
from pathlib import Path

from engine.errors import Located
from engine.pack_model import ParsedPack

_TOP_LEVEL_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)\s*:")
_FENCE = re.compile(r"\s{0,3}(`{3,}|~{3,})")


def extra_checks(pack: ParsedPack) -> list[Located]:
    """Every problem with the pack's templates and claims, as ``path:line: message``."""
    from engine.claims import verify_claims
    from engine.problems import validate_problem

    problems: list[Located] = []
    lines = _file_lines(pack.path)
    for card in pack.cards:
        if card.kind == "problem" and card.problem is not None:
            key_lines = problem_key_lines(lines, card.problem_line)
            problems.extend(validate_problem(card, pack.path, key_lines))
    problems.extend(verify_claims(pack))
    return problems


def _file_lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeError):
        return []  # errors then point at the problem block's fence instead of its field


def problem_key_lines(lines: list[str], fence_line: int | None) -> dict[str, int]:
    """Top-level field of a problem block -> its 1-based line, read from the file's text."""
    if fence_line is None or not 0 < fence_line <= len(lines):
        return {}
    found: dict[str, int] = {}
    for number in range(fence_line + 1, len(lines) + 1):
        text = lines[number - 1]
        if _FENCE.match(text):
            break
        match = _TOP_LEVEL_KEY.match(text)
        if match:
            found.setdefault(match.group(1), number)
    return found
