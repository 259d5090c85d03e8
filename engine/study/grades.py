"""The one grade scheme of both drill modes: what a learner types to grade a recall card.

``1``-``4`` are Again / Hard / Good / Easy (SM-2 quality 1 / 3 / 4 / 5), in the TUI and in plain
mode alike; an exact SM-2 quality 0..5 goes behind the prefix ``g`` (``g`` then ``0``-``5``).
The words again, hard, good and easy are read too, and their translations in the learner's
language. Both modes show the scheme with ``grade_keys_help`` and take their labels from
``LABELLED_GRADES`` (English, translated where shown: ``grade_label``).
"""

from __future__ import annotations

from kvdrill.i18n import N_, _

# key -> (label, SM-2 quality)
LABELLED_GRADES = {1: (N_("Again"), 1), 2: (N_("Hard"), 3), 3: (N_("Good"), 4), 4: (N_("Easy"), 5)}
# Typed before a digit 0-5 to give an exact SM-2 quality.
RAW_GRADE_PREFIX = "g"
RAW_QUALITIES = range(6)


def grade_label(key: int) -> str:
    """The label of grade key 1-4 in the learner's language."""
    return _(LABELLED_GRADES[key][0])


def grade_keys_help() -> str:
    """The grade keys in one line: ``1 Again · 2 Hard · ... · g then 0-5 ...``."""
    keys = " · ".join(f"{key} {grade_label(key)}" for key in LABELLED_GRADES)
    exact = _("{prefix} then 0-5 exact SM-2 quality").format(prefix=RAW_GRADE_PREFIX)
    return f"{keys} · {exact}"


def hard_note() -> str:
    """Shown once on the reveal screen: Anki users expect Hard to pass for the day."""
    return _(
        "Note: {hard} brings the card back later in this session "
        "(SM-2 repeats a card graded below {good} the same day)."
    ).format(hard=grade_label(2), good=grade_label(3))


def _words() -> dict[str, int]:
    """The label words read as grades: English, and the learner's language."""
    words = {label.lower(): quality for label, quality in LABELLED_GRADES.values()}
    words.update({_(label).lower(): quality for label, quality in LABELLED_GRADES.values()})
    return words


def quality_for_key(key: int) -> int:
    """The SM-2 quality of labelled grade key 1-4."""
    return LABELLED_GRADES[key][1]


def parse_grade(text: str) -> int | None:
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
        return int(raw)
    return None
