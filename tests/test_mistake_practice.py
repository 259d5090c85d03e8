"""Practising one mistake (engine/problems/mistakes.py): variants whose numbers make it show.

Every exercise is proved by the checker itself: the answer the mistake produces is outside the
tolerance and ``check_answer`` names exactly that mistake, while the right answer is accepted.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from template_helpers import bundled_templates as all_templates

from kvdrill.engine.problems.answers import read_typed_answer
from kvdrill.engine.problems.checker import check_answer, expected_text
from kvdrill.engine.problems.mistake_sentences import SENTENCES
from kvdrill.engine.problems.mistakes import (
    PRACTISED_CODES,
    NothingToPractise,
    UnknownMistake,
    exercises,
    offered_codes,
    wrong_answer,
)

DECKS = Path(__file__).resolve().parent.parent / "decks"

# Questions the bundled decks do not ask: a pool the learner works out from the GPU (weights
# and utilization), and a pool given in GB.
POOL_FROM_THE_GPU = {
    "ask": "kv_pool_tokens",
    "vary": {"model": ["llama-3.1-8b", "qwen2.5-7b"], "gpu": ["h100-sxm", "a100-80gb"]},
    "unit": "tokens",
}
POOL_IN_GB = {
    "ask": "kv_pool_tokens",
    "vary": {"model": ["llama-3.1-8b"], "kv_dtype": ["fp8"]},
    "given": {"kv_pool_bytes": "20 GB"},
    "unit": "tokens",
}
# MLA's KV per token worked out from the latent's width (the default prompt lists the inputs).
MLA_FROM_THE_LATENT = {
    "ask": "kv_bytes_per_token",
    "vary": {"model": ["deepseek-v3"], "kv_dtype": ["bf16", "fp8"]},
    "unit": "KiB",
}
EXTRA = [
    ("extra/pool-from-gpu", POOL_FROM_THE_GPU),
    ("extra/pool-in-gb", POOL_IN_GB),
    ("extra/mla-from-the-latent", MLA_FROM_THE_LATENT),
]


def bundled_templates(lang: str = "en") -> list[tuple[str, dict]]:
    return all_templates(lang)


@pytest.fixture(scope="module")
def templates() -> list[tuple[str, dict]]:
    return bundled_templates() + EXTRA


def outside_tolerance(variant, typed: str) -> bool:
    value = read_typed_answer(typed, variant.unit).value_in(variant.unit)
    return abs(value / variant.expected_value - 1) > variant.rel_tolerance


@pytest.mark.parametrize("code", PRACTISED_CODES)
def test_every_offered_mistake_gets_a_session_where_the_checker_names_it(code, templates) -> None:
    session = exercises(code, templates, seed=7)
    # Ten, unless the templates that can show it have fewer distinct questions (a fixed model).
    assert 1 <= len(session) <= 10
    assert len({e.variant.prompt for e in session}) == len(session)  # no question twice
    for exercise in session:
        variant = exercise.variant
        verdict = check_answer(variant, exercise.wrong_answer)
        assert not verdict.correct and verdict.mistake == code, (exercise, verdict)
        assert outside_tolerance(variant, exercise.wrong_answer)
        assert check_answer(variant, expected_text(variant)).correct


def test_the_k_and_v_factor_is_practised_where_forgetting_it_matters(templates) -> None:
    session = exercises("kv_factor_2", templates, seed=1)
    assert len(session) == 10
    # Different templates (every bundled one that has the learner work out the KV per token),
    # and different models: not one question ten times.
    assert len({e.template_id for e in session}) >= 4
    assert len({e.variant.context.get("model") for e in session}) >= 4
    for exercise in session:
        assert not exercise.variant.context["mla"]  # MLA has no factor 2 to forget


def requests_template(request_tokens: dict) -> dict:
    return {
        "ask": "requests_that_fit",
        "vary": {"model": "gqa", "gpu": ["h100-sxm", "h200"], "request_tokens": request_tokens},
        "given": {"gpu_util": 0.9, "overhead_bytes": "2 GiB"},
        "constraints": ["weights_fit"],
        "unit": "requests",
    }


def test_a_count_is_practised_only_where_the_mistake_shows_after_its_rounding() -> None:
    # Requests that fit are floored: forgetting the 2 doubles the unfloored count, and the
    # mistaken count can land anywhere from floor(2 x 3) = 6 to 7 for a true 3.x: not 2 x 3.
    short = requests_template({"from": 100, "to": 300, "step": 50})  # thousands of requests
    session = exercises("kv_factor_2", [("t/short", short)], seed=4, count=5)
    for exercise in session:
        variant = exercise.variant
        assert variant.context["whole_count"] and variant.expected_value > 100
        low = math.floor(2 * variant.expected_value)
        for typed in (f"{low} requests", f"{low + 2} requests"):
            assert check_answer(variant, typed).mistake == "kv_factor_2"
    few = requests_template({"from": 60000, "to": 120000, "step": 10000})  # a handful
    with pytest.raises(NothingToPractise):
        exercises("kv_factor_2", [("t/long", few)], seed=4)


def test_the_same_seed_gives_the_same_session_and_another_seed_another(templates) -> None:
    first = [(e.template_id, e.seed) for e in exercises("gb_vs_gib", templates, seed=11)]
    again = [(e.template_id, e.seed) for e in exercises("gb_vs_gib", templates, seed=11)]
    other = [(e.template_id, e.seed) for e in exercises("gb_vs_gib", templates, seed=12)]
    assert first == again
    assert first != other


def test_count_sets_the_session_size(templates) -> None:
    assert len(exercises("factor_1000", templates, seed=5, count=3)) == 3


def test_an_unknown_code_lists_the_codes_that_can_be_practised(templates) -> None:
    with pytest.raises(UnknownMistake) as caught:
        exercises("kv_factor2", templates, seed=1)
    message = str(caught.value)
    assert "\n" not in message
    assert "'kv_factor2' is not a mistake code (did you mean 'kv_factor_2'?)" in message
    listed = message.split("the codes you can practise: ")[1].split(", ")
    assert listed == offered_codes(templates)
    assert "sliding_window" not in listed  # no template makes it show


def test_codes_no_template_can_make_show_are_not_offered() -> None:
    bundled = bundled_templates()
    offered = offered_codes(bundled)
    # The bundled decks never derive a pool from the GPU: those two are not offered...
    assert "weights_not_subtracted" not in offered and "utilization_missing" not in offered
    assert "kv_factor_2" in offered and "gb_vs_gib" in offered
    # ...and asking for one says so in one sentence.
    with pytest.raises(NothingToPractise) as caught:
        exercises("weights_not_subtracted", bundled, seed=1)
    assert "nothing to practise it on" in str(caught.value)
    # A code the checker knows but that no rule can produce on purpose is never offered.
    for code in set(SENTENCES) - set(PRACTISED_CODES):
        with pytest.raises(NothingToPractise):
            exercises(code, bundled, seed=1)


def test_a_variant_where_another_rule_wins_is_not_an_exercise() -> None:
    # Llama 2 7B has as many KV heads as attention heads: the heads mistake cannot show.
    template = {"ask": "kv_bytes_per_token", "vary": {"model": ["llama-2-7b"]}, "unit": "KiB"}
    with pytest.raises(NothingToPractise):
        exercises("attention_heads", [("t/mha", template)], seed=1)
    from kvdrill.engine.problems.generator import make_variant

    assert wrong_answer(make_variant(template, "t/mha", 1), "attention_heads") is None
    assert wrong_answer(make_variant(template, "t/mha", 1), "kv_factor_2") == "256 KiB"


def test_the_vietnamese_templates_offer_what_they_can() -> None:
    vi = bundled_templates("vi")
    for code in offered_codes(vi):
        for exercise in exercises(code, vi, seed=2, count=2):
            assert check_answer(exercise.variant, exercise.wrong_answer).mistake == code


@pytest.mark.parametrize("code", ["kv_factor_2", "attention_heads"])
def test_kv_structure_mistakes_are_practised_only_where_the_kv_per_token_is_worked_out(
    code: str, templates
) -> None:
    """A prompt that states "160 KiB of KV per token" leaves no factor 2 to forget."""
    chosen = exercises(code, templates, seed=11, count=10)
    assert chosen
    for exercise in chosen:
        assert "kv_bytes_per_token" not in exercise.variant.prompt, exercise.template_id
        assert exercise.variant.context["kv_stated"] is False
