"""The one grade scheme of both drill modes: what a learner types to grade a recall card.

``1``-``4`` are Again / Hard / Good / Easy (SM-2 quality 1 / 3 / 4 / 5), in the TUI and in plain
mode alike; an exact SM-2 quality 0..5 goes behind the prefix ``g`` (``g`` then ``0``-``5``).
The words again, hard, good and easy are read too. Both modes show the scheme with
``GRADE_KEYS_HELP`` and take their labels from ``LABELLED_GRADES``.
"""

from __future__ import annotations

# key -> (label, SM-2 quality)
LABELLED_GRADES = {1: ("Again", 1), 2: ("Hard", 3), 3: ("Good", 4), 4: ("Easy", 5)}
# Typed before a digit 0-5 to give an exact SM-2 quality.
RAW_GRADE_PREFIX = "g"
RAW_QUALITIES = range(6)

GRADE_KEYS_HELP = (
    " · ".join(f"{key} {label}" for key, (label, _) in LABELLED_GRADES.items())
    + f" · {RAW_GRADE_PREFIX} then 0-5 exact SM-2 quality"
)
# Shown once on the reveal screen: Anki users expect Hard to pass for the day.
HARD_NOTE = (
    f"Note: {LABELLED_GRADES[2][0]} brings the card back later in this session "
    f"(SM-2 repeats a card graded below {LABELLED_GRADES[3][0]} the same day)."
)

_WORDS = {label.lower(): quality for label, quality in LABELLED_GRADES.values()}


def quality_for_key(key: int) -> int:
    """The SM-2 quality of labelled grade key 1-4."""
    return LABELLED_GRADES[key][1]


def parse_grade(text: str) -> int | None:
    """A typed grade as an SM-2 quality: ``1``-``4`` (Again..Easy), ``g0``-``g5`` (also
    ``g 3``), or a label word, any case; None for anything else."""
    word = "".join(text.split()).lower()
    if word in _WORDS:
        return _WORDS[word]
    if len(word) == 1 and word.isdigit() and int(word) in LABELLED_GRADES:
        return quality_for_key(int(word))
    raw = word.removeprefix(RAW_GRADE_PREFIX)
    if raw != word and len(raw) == 1 and raw.isdigit() and int(raw) in RAW_QUALITIES:
        return int(raw)
    return None
