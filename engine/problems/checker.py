"""Checking a typed answer against a generated variant: the verdict and its SM-2 grade.

Public API (pure functions, no I/O):

- ``check_answer(variant, typed, seconds=None) -> Verdict``
- ``give_up(variant) -> Verdict``
- ``expected_text(variant)``, ``worked_solution(variant)``: what every verdict shows.

The jobs behind a verdict, each in its module: reading the typed answer
(engine/problems/answers.py), whether it is right (acceptance.py, with the unit traps of
unit_traps.py), and when it is wrong the mistake it shows (diagnosis.py: the facts a rule sees
in diagnosis_facts.py, the ratio rules in diagnosis_rules.py, their wording in
mistake_sentences.py).

SM-2 quality (engine/study/sm2.py: q >= 3 advances the schedule, q < 3 resets it):

- 5 correct, answered within ``QUICK_SECONDS`` (60 s);
- 4 correct (slower, or no time given);
- 3 is never given by the checker: an answer that is not accepted must not advance the schedule,
  so a unit slip (right number, trap unit, e.g. GB for GiB) is ``correct=False`` with quality 2;
- 2 wrong, but a rule recognised the mistake (a unit slip or another diagnosed near miss);
- 1 wrong, nothing recognised;
- 0 gave up (``give_up``).
An unreadable answer (garbage, unknown unit, wrong dimension) gives ``unreadable=True`` and
quality 0; the session does not grade it and the learner types again. Its expected_text and
worked_solution are filled like any verdict's, but are not meant to be shown.
"""

from __future__ import annotations

from kvdrill.engine.capacity.units import AnswerError
from kvdrill.engine.problems.acceptance import expected_text, is_accepted
from kvdrill.engine.problems.answers import read_typed_answer
from kvdrill.engine.problems.diagnosis import diagnose
from kvdrill.engine.problems.types import Variant, Verdict
from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.settings import DEFAULT_ANSWER_SECONDS
from kvdrill.i18n import _

__all__ = ["check_answer", "expected_text", "give_up", "worked_solution"]

# "Quick" is within the default answer time: the one-minute answer the cards are written for.
QUICK_SECONDS = float(DEFAULT_ANSWER_SECONDS)
QUALITY_QUICK = Grade.EASY
QUALITY_CORRECT = Grade.GOOD
QUALITY_DIAGNOSED = Grade.WRONG_BUT_FAMILIAR
QUALITY_WRONG = Grade.WRONG
QUALITY_GAVE_UP = Grade.BLACKOUT
QUALITY_UNREADABLE = Grade.BLACKOUT  # not graded: the session asks again


# --- verdicts -------------------------------------------------------------------------------


def worked_solution(variant: Variant, shown: str | None = None) -> str:
    """The generator's worked solution, or a generic one in the variant's numbers."""
    given = variant.context.get("worked_solution")
    if isinstance(given, str) and given.strip():
        return given
    lines = []
    formula_text = variant.context.get("formula_text")
    formula = variant.context.get("formula")
    if isinstance(formula_text, str) and formula_text:
        lines.append(_("Formula: `{formula}`").format(formula=formula_text))
    elif isinstance(formula, str) and formula:
        lines.append(_("Formula: `{formula}`").format(formula=formula))
    if variant.params:
        inputs = ", ".join(f"{name} = {value}" for name, value in variant.params.items())
        lines.append(_("Inputs: {inputs}").format(inputs=inputs))
    lines.append(_("Expected: **{answer}**").format(answer=shown or expected_text(variant)))
    return "\n\n".join(lines)


def _verdict(variant: Variant, shown: str, **fields: object) -> Verdict:
    return Verdict(
        expected_text=shown,
        worked_solution=worked_solution(variant, shown),
        **fields,  # type: ignore[arg-type]
    )


def check_answer(
    variant: Variant, typed: str, seconds: float | None = None, *, by_learner: bool = True
) -> Verdict:
    """Read ``typed`` in the variant's unit, accept or diagnose it, and grade it for SM-2;
    ``by_learner``: see ``read_typed_answer``."""
    shown = expected_text(variant)
    try:
        answer = read_typed_answer(typed, variant.unit, by_learner=by_learner)
    except AnswerError as error:
        return _verdict(
            variant,
            shown,
            correct=False,
            quality=QUALITY_UNREADABLE,
            headline=str(error),
            unreadable=True,
        )
    if is_accepted(variant, answer):
        quick = seconds is not None and seconds <= QUICK_SECONDS
        return _verdict(
            variant,
            shown,
            correct=True,
            quality=QUALITY_QUICK if quick else QUALITY_CORRECT,
            headline=_("Correct: {answer}").format(answer=shown),
        )
    found = diagnose(variant, answer)
    return _verdict(
        variant,
        shown,
        correct=False,
        quality=QUALITY_WRONG if found is None else QUALITY_DIAGNOSED,
        headline=_("Not quite: expected {answer}").format(answer=shown),
        diagnosis=None if found is None else found.sentence,
        mistake=None if found is None else found.code,
    )


def give_up(variant: Variant) -> Verdict:
    """The learner gave up: quality 0, with the answer and the worked solution."""
    shown = expected_text(variant)
    return _verdict(
        variant,
        shown,
        correct=False,
        quality=QUALITY_GAVE_UP,
        headline=_("The answer: {answer}").format(answer=shown),
    )
