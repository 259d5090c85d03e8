"""Checks of a parsed pack beyond its syntax: problem templates and key-number claims.

``kvdrill check`` and the importer call ``extra_checks`` after parsing succeeds.
"""

from __future__ import annotations

from engine.errors import Located
from engine.pack_model import ParsedPack


def extra_checks(pack: ParsedPack) -> list[Located]:
    """Every problem with the pack's templates and claims, as ``path:line: message``."""
    return []
