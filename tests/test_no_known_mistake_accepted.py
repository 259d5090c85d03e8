"""No known mistake is ever accepted, on any bundled problem template (issue 23, item 6).

For every template and every seed tried, every mistake the engine knows on that variant
(engine/problems/mistake_answers.py: the checker's ratio rules, the generator's alternatives,
rounding one way or the other, unit slips), typed as the learner works it out, is refused.
The rule that makes it hold lives in the generator (engine/problems/exactness.py): a variant
whose mistaken answer falls inside the tolerance is checked exactly, or drawn again. More seeds:
``pytest tests/test_no_known_mistake_accepted.py --mistake-seeds 200``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from template_helpers import bundled_templates

from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant
from kvdrill.engine.problems.mistake_answers import known_mistakes

DECKS = Path(__file__).resolve().parent.parent / "decks"


def test_no_known_mistake_is_accepted_on_any_template(request: pytest.FixtureRequest) -> None:
    seeds = request.config.getoption("--mistake-seeds")
    templates = bundled_templates()
    assert len(templates) >= 49
    variants = tried = 0
    accepted: list[tuple[str, int, str, str]] = []
    codes: set[str] = set()
    for template_id, spec in templates:
        for seed in range(seeds):
            variant = make_variant(spec, template_id, seed)
            variants += 1
            for code, answers in known_mistakes(variant).items():
                codes.add(code)
                for typed in answers:
                    tried += 1
                    if check_answer(variant, typed).correct:
                        accepted.append((template_id, seed, code, typed))
    print(f"{variants} variants, {tried} mistaken answers tried, {len(accepted)} accepted")
    assert accepted == []
    assert tried > 5 * variants  # the table is not empty
    assert {"rounded_down", "gb_read_as_gib", "kv_factor_2", "tp_missing"} <= codes


def test_a_block_count_rounded_down_is_refused_past_a_thousand_blocks() -> None:
    # 23,911 tokens in blocks of 16: 1,494.4 blocks, so 1,495. Under a 0.1 % tolerance 1,494
    # was accepted; the rounded-down count is a known mistake, so the variant is checked exactly.
    template = {
        "ask": "blocks",
        "formula": {"expr": "ceil(seq_tokens / block_size)", "output": "blocks"},
        "vary": {"seq_tokens": [23_911], "block_size": [16]},
        "unit": "blocks",
        "tolerance": "0.1%",
    }
    variant = make_variant(template, "t/blocks", 0)
    assert variant.expected_value == 1495
    assert check_answer(variant, "1495").correct
    wrong = check_answer(variant, "1494")
    assert not wrong.correct and wrong.mistake == "rounded_down"


def test_a_gib_pool_read_as_gb_is_refused_on_a_session_count() -> None:
    # long-context-attention/gen-long-context-sessions, seed 26: 244 sessions from a pool read
    # in the wrong unit was inside the 1 % tolerance of 246.
    templates = dict(bundled_templates())
    template_id = "long-context-attention/gen-long-context-sessions"
    variant = make_variant(templates[template_id], template_id, 26)
    for code, answers in known_mistakes(variant).items():
        for typed in answers:
            assert not check_answer(variant, typed).correct, (code, typed)
