"""Checks of a parsed pack beyond its syntax: problem templates and key-number claims.

``kvdrill check`` and the importer call ``extra_checks`` after parsing succeeds.
"""

from __future__ import annotations

from kvdrill.engine.errors import Located
from kvdrill.engine.packs.model import ParsedPack


def extra_checks(pack: ParsedPack) -> list[Located]:
    """Every problem with the pack's templates and claims, as ``path:line: message``."""
    from kvdrill.engine.packs.claims import verify_claims

    problems: list[Located] = []
    templates = [card for card in pack.cards if card.kind == "problem" and card.problem is not None]
    if templates:  # the generator loads sympy: only packs with templates pay for it
        from kvdrill.engine.problems.generator import validate_problem

        for card in templates:
            problems.extend(validate_problem(card, pack.path, card.problem_field_lines))
    problems.extend(verify_claims(pack))
    return problems
