"""The one grade scheme of both drill modes: what a learner types to grade a recall card.

``1``-``4`` are Again / Hard / Good / Easy (SM-2 quality 1 / 3 / 4 / 5), in the TUI and in plain
mode alike; an exact SM-2 quality 0..5 goes behind the prefix ``g`` (``g`` then ``0``-``5``).
The words again, hard, good and easy are read too, and their translations in the learner's
language. Both modes show the scheme with ``grade_keys_help`` and take their labels from
``LABELLED_GRADES`` (English, translated where shown: ``grade_label``).
"""

from __future__ import annotations

from enum import IntEnum

from kvdrill.i18n import N_, _


class Grade(IntEnum):
    """An SM-2 quality 0..5: the one type of a grade from the key or the checker to the review
    log (an int, so SQL and JSON see the number)."""

    BLACKOUT = 0  # nothing recalled (a problem given up, an unreadable answer)
    WRONG = 1  # wrong (Again)
    WRONG_BUT_FAMILIAR = 2  # wrong, the answer familiar once seen (a diagnosed mistake)
    HARD = 3  # right, with serious difficulty
    GOOD = 4  # right, after some hesitation
    EASY = 5  # right at once

    @classmethod
    def of(cls, value: object) -> Grade:
        """``value`` as a grade; ValueError for anything but an integer 0..5."""
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 5:
            raise ValueError(f"a grade is an SM-2 quality 0..5, got {value!r}")
        return RAW_QUALITIES[value]  # the member by index: no enum lookup (every answer)


# key -> (label, SM-2 quality)
LABELLED_GRADES = {
    1: (N_("Again"), Grade.WRONG),
    2: (N_("Hard"), Grade.HARD),
    3: (N_("Good"), Grade.GOOD),
    4: (N_("Easy"), Grade.EASY),
}
# Typed before a digit 0-5 to give an exact SM-2 quality.
RAW_GRADE_PREFIX = "g"
RAW_QUALITIES = tuple(Grade)


def grade_label(key: int) -> str:
    """The label of grade key 1-4 in the learner's language."""
    return _(LABELLED_GRADES[key][0])


def grade_keys_help() -> str:
    """The grade keys in one line: ``1 Again · 2 Hard · ... · g then 0-5 ...``."""
    keys = " · ".join(f"{key} {grade_label(key)}" for key in LABELLED_GRADES)
    exact = _("{prefix} then 0-5 exact SM-2 quality").format(prefix=RAW_GRADE_PREFIX)
    return f"{keys} · {exact}"


def _words() -> dict[str, Grade]:
    """The label words read as grades: English, and the learner's language."""
    words = {label.lower(): quality for label, quality in LABELLED_GRADES.values()}
    words.update({_(label).lower(): quality for label, quality in LABELLED_GRADES.values()})
    return words


def quality_for_key(key: int) -> Grade:
    """The SM-2 quality of labelled grade key 1-4."""
    return LABELLED_GRADES[key][1]


def parse_grade(text: str) -> Grade | None:
    """A typed grade as an SM-2 quality: ``1``-``4`` (Again..Easy), ``g0``-``g5`` (also
    ``g 3``), or a label word, any case; None for anything else."""
    word = "".join(text.split()).lower()
    words = {"".join(label.split()): quality for label, quality in _words().items()}
    if word in words:
        return words[word]
    if len(word) == 1 and word.isdigit() and int(word) in LABELLED_GRADES:
        return quality_for_key(int(word))
    raw = word.removeprefix(RAW_GRADE_PREFIX)
    if raw != word and len(raw) == 1 and raw.isdigit() and int(raw) in RAW_QUALITIES:
        return Grade(int(raw))
    return None
