"""Checks of a parsed pack beyond its syntax: problem templates and key-number claims.

``kvdrill check`` and the importer call ``extra_checks`` after parsing succeeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kvdrill.engine.errors import Located, UserError
from kvdrill.engine.packs.model import ParsedPack


@dataclass
class DrawingChecks:
    """The template drawings one run of checks has made (``kvdrill check``, an import: the
    caller owns one for its run), by what their draws depend on, with the error each found
    (None: it drew). An edition's template, its original's but for the prompt's words, is
    not drawn again."""

    drawn: dict[str, UserError | None] = field(default_factory=dict)


def extra_checks(pack: ParsedPack, drawings: DrawingChecks | None = None) -> list[Located]:
    """Every problem with the pack's templates and claims, as ``path:line: message``;
    ``drawings``: the caller's run so far (its packs' templates drawn once among them)."""
    from kvdrill.engine.packs.claims import verify_claims

    problems: list[Located] = []
    templates = [card for card in pack.cards if card.kind == "problem" and card.problem is not None]
    if templates:  # the generator loads sympy: only packs with templates pay for it
        from kvdrill.engine.problems.generator import validate_problem

        drawn = (drawings or DrawingChecks()).drawn
        for card in templates:
            problems.extend(validate_problem(card, pack.path, card.problem_field_lines, drawn))
    problems.extend(verify_claims(pack))
    return problems
