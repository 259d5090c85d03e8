"""Reading a typed answer against the unit a question asks for.

What reads (the unit is optional; a bare number is taken in the expected unit):

- ``128 KiB``, ``128KiB``, ``0.5 GiB``, ``42 ms``, ``3.35 TB/s``, ``12 tokens per second``;
- ``131 072``, ``131_072``, ``131,072,000`` and ``131.072.000`` (groups of exactly three
  digits), ``1,234.5`` and ``1.234,5`` (both conventions), ``0,5`` and ``12,34`` (a comma that
  cannot separate thousands is a decimal mark), ``1.3e5``, ``.5``;
- ``449k``, ``449K``, ``1.3M``, ``2G``, ``1T`` for counts, also before a unit (``449k tokens``);
- ``7B`` and ``7B params`` mean seven billion when the question asks for a plain count; when it
  asks for bytes, ``7B`` is seven bytes;
- ``3.43x``, ``90%``; a leading ``~`` or ``≈`` is ignored.

What does not read, each with one line (``AnswerError``, a ``UserError``): more than 100
characters, control characters, arithmetic (``9**9**9``, ``32*1024``), ``nan``/``inf``, numbers
beyond 1e30, negative numbers, an unknown unit (with a case hint: ``gb`` -> GB or Gb), ``KB``
(ambiguous), ``1,024`` and ``1.024`` (a thousands separator in one convention, a decimal mark
in the other: never guessed), a unit of the wrong dimension (``42 ms`` for a size in bytes), and a bare ``128K``
when bytes are asked for (write ``128 KiB`` or ``128 kB``).

Dimensionless units (tokens, requests, x, %...) are interchangeable: ``449k requests`` reads for a
question in tokens. The checker, not the reader, decides whether the value is right.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kvdrill.engine.capacity.units import (
    AnswerError,
    convert,
    describe_dimension,
    normalise_unit_text,
    read_quantity_parts,
    shorten,
    unit_scale,
)
from kvdrill.i18n import _

__all__ = ["AnswerError", "TypedAnswer", "bare_number_unit", "read_typed_answer"]

_INFORMATION = "[information]"
# The number in every "type something like ..." example: plainly not anyone's answer.
EXAMPLE_NUMBER = 42


@dataclass(frozen=True)
class TypedAnswer:
    """A typed answer, read: its value in ``unit`` and how it was written."""

    text: str  # the answer as typed, cleaned (single spaces)
    value: float  # in ``unit``, suffixes applied
    unit: str  # the unit typed, normalised; the expected unit when none was typed
    unit_typed: bool  # False for a bare number
    significant_figures: int  # of the digits typed: '449k' -> 3, '131,072' -> 6, '450' -> 2

    def value_in(self, unit: str) -> float:
        """The answer expressed in another unit of the same dimension."""
        return convert(self.value, self.unit, unit)

    def rounding(self) -> float:
        """Half a unit in the last digit typed, relative: 3.4x stands for 3.35..3.45 (1.5 %)."""
        value = abs(self.value)
        if value == 0:
            return 0.0
        last_digit = 10 ** (math.floor(math.log10(value)) - self.significant_figures + 1)
        return 0.5 * last_digit / value


def bare_number_unit(expected_unit: str) -> str:
    """The unit a bare number is read in, as both drill screens show it beside the answer box
    ("in KiB"): a bare number is taken in the asked unit only because the prompt says so.
    "" when the question asks for a pure number."""
    return normalise_unit_text(expected_unit) if expected_unit.strip() else ""


def read_typed_answer(text: str, expected_unit: str, *, by_learner: bool = True) -> TypedAnswer:
    """Read ``text`` as an answer in ``expected_unit``'s dimension; AnswerError if it cannot.

    ``by_learner=False``: text the engine wrote itself (a mistake's answer worked out with
    ``format_number``), whose commas always separate thousands."""
    expected_unit = normalise_unit_text(expected_unit)
    _scale, expected_dimension = unit_scale(expected_unit)
    # The example uses the asked unit and a neutral number: never one that could be the answer.
    read = read_quantity_parts(
        text,
        _("something like {example}").format(example=f"{EXAMPLE_NUMBER} {expected_unit}".strip()),
        by_learner=by_learner,
        count=not expected_dimension,
        negative=False,
    )
    cleaned, unit = read.text, read.unit_text
    if unit and not expected_dimension and unit_scale(unit) == (1.0, frozenset()):
        # A plain number written with a unit word of no dimension ("64 dimensionless"): the
        # number is the answer, read as a bare one.
        unit = ""

    if not unit:
        if read.scaled and _INFORMATION in dict(expected_dimension):
            raise AnswerError(
                _(
                    "'{typed}' is ambiguous for a size: write the unit, like {number} KiB or "
                    "{number} kB."
                ).format(typed=shorten(cleaned), number=EXAMPLE_NUMBER)
            )
        return TypedAnswer(cleaned, read.value, expected_unit, False, read.significant_figures)

    _scale, typed_dimension = unit_scale(unit)
    if typed_dimension != expected_dimension:
        if expected_unit:
            wrong = _("{typed} is {typed_kind}, but this answer is {asked_kind} (in {unit}).")
        else:
            wrong = _("{typed} is {typed_kind}, but this answer is {asked_kind}.")
        raise AnswerError(
            wrong.format(
                typed=shorten(cleaned),
                typed_kind=describe_dimension(unit),
                asked_kind=describe_dimension(expected_unit),
                unit=expected_unit,
            )
        )
    return TypedAnswer(cleaned, read.value, unit, True, read.significant_figures)
