"""Practising one mistake: problem variants whose numbers make that mistake show.

``exercises(code, templates, seed, count)`` picks variants of the given problem templates for a
session on one mistake code of engine/problems/diagnosis.py (``kvdrill drill --mistake CODE``).

A variant *exercises* a mistake when the answer the mistake produces (``wrong_answer``) is
outside the variant's tolerance and ``check_answer`` diagnoses that very answer with that code:
the checker itself proves that a learner making the mistake on these numbers is told so. On a
question about one Llama the K-and-V factor 2 may be hidden by another rule (an 8x ratio reads as
bits and bytes); the selection keeps only the variants where it is not.

What each mistake produces is engine/problems/mistake_answers.py's table.

Deterministic: the seeds tried for a template come from ``seed`` and the template id only, so the
same templates and seed give the same session on every machine. Pure: no I/O.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.engine.problems.answers import read_typed_answer
from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant
from kvdrill.engine.problems.mistake_answers import PRACTISED_CODES, mistaken_answers
from kvdrill.engine.problems.mistake_sentences import SENTENCES
from kvdrill.engine.problems.types import Variant
from kvdrill.engine.study.seeds import SEED_RANGE
from kvdrill.i18n import _

DEFAULT_COUNT = 10
# Seeds tried per template for one exercise before it is given up on: enough for a mistake that
# shows on one model in eight, few enough to stay well under a second over every template.
TRIES_PER_EXERCISE = 12


@dataclass(frozen=True)
class Exercise:
    """One question of a mistake session, and the answer the mistake would give on it."""

    template_id: str
    seed: int
    variant: Variant
    wrong_answer: str  # as a learner makes it, typed in the variant's unit


class UnknownMistake(UserError):
    """A code the checker never gives; the message lists the codes that can be practised."""


class NothingToPractise(UserError):
    """A real mistake code that no problem template here can exercise."""


def is_known(code: str) -> bool:
    """A code the checker may give, whether or not a session can be built for it."""
    return code in PRACTISED_CODES or code in SENTENCES


def unknown_mistake(code: str, offered: Sequence[str]) -> UnknownMistake:
    """The one-line error for a code the checker never gives, listing those ``offered``."""
    listed = ", ".join(offered) if offered else _("none (no problem template shows a mistake)")
    return UnknownMistake(
        _("'{code}' is not a mistake code{hint}; the codes you can practise: {listed}").format(
            code=code, hint=did_you_mean(code, list(offered)), listed=listed
        )
    )


def _nothing_to_practise(code: str) -> NothingToPractise:
    return NothingToPractise(
        _(
            "None of your problem templates gives numbers where the mistake '{code}' shows, "
            "so there is nothing to practise it on."
        ).format(code=code)
    )


def _diagnosed_as(variant: Variant, typed: str, code: str) -> bool:
    verdict = check_answer(variant, typed, by_learner=False)
    return not verdict.correct and not verdict.unreadable and verdict.mistake == code


def _outside_tolerance(variant: Variant, typed: str) -> bool:
    value = read_typed_answer(typed, variant.unit, by_learner=False).value_in(variant.unit)
    truth = variant.expected_value
    return abs(value - truth) > variant.rel_tolerance * abs(truth)


def wrong_answer(variant: Variant, code: str) -> str | None:
    """The answer the mistake ``code`` gives on ``variant``, as typed, when the checker tells
    it apart (outside the tolerance, diagnosed with exactly that code); else None."""
    for answers in mistaken_answers(variant, code):
        if all(
            _outside_tolerance(variant, typed) and _diagnosed_as(variant, typed, code)
            for typed in answers
        ):
            return answers[0]
    return None


# --- choosing a session ----------------------------------------------------------------------


def _seeds(seed: int, template_id: str) -> Iterator[int]:
    """The variant seeds tried for one template: from the session seed and the id alone."""
    rng = random.Random((zlib.crc32(template_id.encode("utf-8")) << 32) ^ seed)
    while True:
        yield rng.randrange(SEED_RANGE)


def _found(template_id: str, spec: Mapping[str, Any], code: str, seed: int) -> Iterator[Exercise]:
    """Exercises of one template, in seed order; stops after TRIES_PER_EXERCISE misses in a row."""
    misses = 0
    prompts: set[str] = set()  # a template with few choices repeats its variants
    for variant_seed in _seeds(seed, template_id):
        if misses >= TRIES_PER_EXERCISE:
            return
        try:
            variant = make_variant(spec, template_id, variant_seed)
        except (UserError, ValueError):
            return  # the drill leaves such a template out too
        typed = None if variant.prompt in prompts else wrong_answer(variant, code)
        if typed is None:
            misses += 1
            continue
        misses = 0
        prompts.add(variant.prompt)
        yield Exercise(template_id, variant_seed, variant, typed)


def _setting(variant: Variant) -> tuple[object, object]:
    return variant.context.get("model"), variant.context.get("gpu")


def exercises(
    code: str,
    templates: Sequence[tuple[str, Mapping[str, Any]]],
    seed: int,
    count: int = DEFAULT_COUNT,
) -> list[Exercise]:
    """Up to ``count`` exercises of mistake ``code`` from ``templates`` ((id, spec) pairs).

    Templates take turns in an order shuffled by ``seed``, so a session mixes templates; a
    template's next exercise prefers a model and GPU the session has not shown yet.
    UnknownMistake for a code the checker never gives (listing the codes these templates can
    exercise), NothingToPractise for a code none of them can."""
    if not is_known(code):
        raise unknown_mistake(code, offered_codes(templates))
    if code not in PRACTISED_CODES:
        raise _nothing_to_practise(code)
    order = sorted(templates, key=lambda item: item[0])
    random.Random(seed).shuffle(order)
    sources = {tid: _found(tid, spec, code, seed) for tid, spec in order}
    pending: dict[str, list[Exercise]] = {tid: [] for tid in sources}
    chosen: list[Exercise] = []
    settings: set[tuple[object, object]] = set()
    while len(chosen) < count and sources:
        for template_id in list(sources):
            if len(chosen) >= count:
                break
            picked = _next_exercise(sources, pending, template_id, settings)
            if picked is not None:
                chosen.append(picked)
                settings.add(_setting(picked.variant))
    if not chosen:
        raise _nothing_to_practise(code)
    return chosen


def can_practise(code: str, templates: Sequence[tuple[str, Mapping[str, Any]]]) -> bool:
    """Some template gives a variant where ``code`` shows."""
    if code not in PRACTISED_CODES:
        return False
    sources = (_found(tid, spec, code, 0) for tid, spec in templates)
    return any(next(source, None) is not None for source in sources)


def offered_codes(templates: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """The codes a session can be built for from ``templates``, sorted."""
    return sorted(code for code in PRACTISED_CODES if can_practise(code, templates))


def _next_exercise(
    sources: dict[str, Iterator[Exercise]],
    pending: dict[str, list[Exercise]],
    template_id: str,
    settings: set[tuple[object, object]],
) -> Exercise | None:
    """The template's next exercise, looking a few ahead for a setting not yet shown."""
    queue = pending[template_id]
    while len(queue) < 3:
        found = next(sources[template_id], None)
        if found is None:
            break
        queue.append(found)
    if not queue:
        del sources[template_id]
        return None
    fresh = next((e for e in queue if _setting(e.variant) not in settings), queue[0])
    queue.remove(fresh)
    return fresh
