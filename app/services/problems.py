"""Problem templates outside a drill (``kvdrill problem``): list them, draw a variant from a
template and a seed, check an answer. The templates are the stored packs' problem cards (the
bundled decks are stored on first use); nothing here touches a schedule or the review log."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.engine.problems.types import Variant, Verdict
    from kvdrill.store.sql import Sql

# Runs a read on the database (``Services.read``: ``sqlite3`` alone where it can).
Reader = Callable[[Callable[["Sql"], Any]], Any]

# Seeds a learner can type and share; the drill's own seeds use the same range.
SEED_RANGE = 2**31


@dataclass(frozen=True)
class ProblemTemplate:
    id: str  # "<pack key>/<card key>", as the drill logs it
    title: str
    spec: dict[str, Any]


def list_templates(read: Reader, profile_name: str) -> list[ProblemTemplate]:
    """The problem templates of the packs offered in the profile's language, in it where an
    edition has them."""
    from kvdrill.store.plain_reads import problem_templates, settings_of

    rows = read(lambda sql: problem_templates(sql, settings_of(sql, profile_name).language))
    return [ProblemTemplate(f"{pack}/{key}", title, spec) for pack, key, title, spec in rows]


def find_template(read: Reader, template_id: str, profile_name: str) -> ProblemTemplate:
    """The template ``pack/card`` (or a card id that only one pack has) of a pack in any
    language, its text in the profile's language where an edition has it."""
    from kvdrill.store.plain_reads import problem_templates, settings_of

    rows = read(
        lambda sql: problem_templates(
            sql, settings_of(sql, profile_name).language, offered_only=False
        )
    )
    templates = [ProblemTemplate(f"{pack}/{key}", title, spec) for pack, key, title, spec in rows]
    wanted = template_id.strip()
    matches = [t for t in templates if wanted in (t.id, t.id.partition("/")[2])]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        names = ", ".join(t.id for t in matches)
        raise UserError(
            _("'{wanted}' names more than one template ({names}): give pack/card").format(
                wanted=wanted, names=names
            )
        )
    known = [t.id for t in templates] + [t.id.partition("/")[2] for t in templates]
    hint = did_you_mean(wanted, known) or " (kvdrill problem --list shows them)"
    raise UserError(
        _("there is no problem template '{wanted}'{hint}").format(wanted=wanted, hint=hint)
    )


def draw(template: ProblemTemplate, seed: int | None) -> Variant:
    """The variant of ``template`` for ``seed`` (a fresh random seed when None)."""
    from kvdrill.engine.problems.generator import make_variant

    if seed is None:
        seed = secrets.randbelow(SEED_RANGE)
    if not 0 <= seed < SEED_RANGE:
        raise UserError(
            _("--seed takes a whole number from 0 to {most}").format(most=SEED_RANGE - 1)
        )
    try:
        return make_variant(template.spec, template.id, seed)
    except ValueError as exc:
        raise UserError(
            _("{id}: cannot draw a variant with seed {seed}: {error}").format(
                id=template.id, seed=seed, error=exc
            )
        ) from None


def check(variant: Variant, typed: str) -> Verdict:
    from kvdrill.engine.problems.checker import check_answer

    return check_answer(variant, typed)
