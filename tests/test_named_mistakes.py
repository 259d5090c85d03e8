"""Mistakes that had no name, or the wrong one, before issue 12.

Each case is a variant as a learner meets it, the wrong answer they type, and the diagnosis.
"""

from __future__ import annotations

from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant


def variant(template: dict):
    return make_variant(template, "t/named", 1)


WEIGHTS_4BIT = {
    "ask": "weight_bytes",
    "vary": {"model": ["deepseek-v3"], "dtype": ["int4"]},
    "prompt": "{model}: {model_params} parameters at {weight_bits} bits + {scale_bits} for scales?",
    "unit": "GB",
}


def test_forgetting_the_4_bit_scales_is_not_a_unit_slip() -> None:
    # 671,026,404,352 x 4.125 / 8 = 346.0 GB; without the scales x 4 / 8 = 335.5 GB. The ratio,
    # 4.125 / 4 = 1.031, used to be read as the 1.024 gap between KiB and kB.
    v = variant(WEIGHTS_4BIT)
    assert round(v.expected_value, 1) == 346.0
    verdict = check_answer(v, "335.5 GB")
    assert not verdict.correct
    assert verdict.mistake == "scales_missing"
    assert "scales" in verdict.diagnosis


def test_mixtral_weights_from_active_parameters_are_named() -> None:
    # 46.7 B total x 2 B = 93.4 GB; 12.9 B active x 2 B = 25.8 GB.
    template = {
        "ask": "weight_bytes",
        "vary": {"model": ["mixtral-8x7b"], "dtype": ["bf16"]},
        "prompt": "{model} has {model_params} parameters. Weights in {dtype}?",
        "unit": "GB",
    }
    verdict = check_answer(variant(template), "25.8 GB")
    assert verdict.mistake == "active_vs_total"
    assert "46.7 B" in verdict.diagnosis and "12.9 B" in verdict.diagnosis


def test_a_pool_in_gib_read_as_gb_is_named_on_pool_tokens() -> None:
    # 20 GiB / 64 KiB = 327,680 tokens; 20e9 / 65,536 = 305,176 if the GiB is read as GB.
    template = {
        "ask": "kv_pool_tokens",
        "vary": {"model": ["llama-3.1-8b"], "kv_dtype": ["fp8"]},
        "given": {"kv_pool_bytes": "20 GiB"},
        "prompt": "{model}, a {kv_pool_bytes} pool, {kv_dtype} cache: tokens?",
        "unit": "tokens",
    }
    v = variant(template)
    assert v.expected_value == 327_680
    verdict = check_answer(v, "305,176")
    assert verdict.mistake == "gib_read_as_gb"
    assert "20 GiB" in verdict.diagnosis and "1.074" in verdict.diagnosis


def test_a_bare_byte_count_on_a_gb_question_is_named() -> None:
    # Llama 3.1 70B in BF16: 70,553,706,496 x 2 = 141,107,412,992 B = 141.1 GB.
    template = {
        "ask": "weight_bytes",
        "vary": {"model": ["llama-3.1-70b"], "dtype": ["bf16"]},
        "prompt": "{model}: weights in {dtype}?",
        "unit": "GB",
    }
    v = variant(template)
    verdict = check_answer(v, "141107412992")
    assert not verdict.correct
    assert verdict.mistake == "bare_base_unit"
    assert "bytes" in verdict.diagnosis and "141.1 GB" in verdict.diagnosis
    # With the unit typed, the same number is right.
    assert check_answer(v, "141107412992 B").correct


def test_a_real_gb_gib_slip_keeps_its_name() -> None:
    # 346.0 GB is 322.2 GiB: typing 322.2 (read in GB) is the binary figure, off by 1.074.
    verdict = check_answer(variant(WEIGHTS_4BIT), "322.2")
    assert verdict.mistake == "gb_vs_gib"
