"""The contract between the generator, the checker and the drill session.

engine/problems/generator.py makes a ``Variant`` from a problem template and a seed;
engine/problems/checker.py turns a typed answer into a ``Verdict``, with the ``Diagnosis`` of
engine/problems/diagnosis.py when the answer is wrong. All are plain data so the session can log
them and the TUI and plain mode can show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kvdrill.engine.study.grades import Grade


@dataclass(frozen=True)
class Variant:
    """One concrete question generated from a template."""

    template_id: str  # "<pack key>/<card key>"
    seed: int
    prompt: str  # Markdown, placeholders filled in
    params: dict[str, str]  # every input, as display text with unit ("32", "8", "BF16", ...)
    expected_value: float  # in ``unit``
    unit: str  # the unit the answer is asked in, e.g. "KiB"
    rel_tolerance: float = 0.01
    # Anything the checker needs to diagnose (symbol values in SI, the formula name, ...).
    context: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """The result of checking one typed answer against a variant."""

    correct: bool
    quality: Grade  # see engine/problems/checker.py for the mapping
    headline: str  # one line: "Correct: 128 KiB" / "Not quite: expected 128 KiB"
    expected_text: str  # the right answer, formatted with its unit
    worked_solution: str  # Markdown, in the variant's own numbers
    diagnosis: str | None = None  # one sentence naming the mistake, if one was recognised
    mistake: str | None = None  # stable code of that mistake, e.g. "kv_factor_2", "gb_vs_gib"
    unreadable: bool = False  # the answer could not be read (garbage, unknown unit...)


@dataclass(frozen=True)
class Diagnosis:
    """The mistake a wrong answer shows: a stable code and one sentence naming it."""

    code: str  # e.g. "kv_factor_2", "gb_vs_gib"
    sentence: str
