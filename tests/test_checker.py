"""Checking answers: tolerance edges, unit traps that are never accepted, every diagnosis rule,
and the SM-2 quality each verdict carries."""

from __future__ import annotations

import copy

import pytest

from kvdrill.engine.problems.checker import check_answer, give_up
from kvdrill.engine.problems.diagnosis_rules import RULES
from kvdrill.engine.problems.types import Variant

GQA = {
    "formula": "kv_bytes_per_token",
    "heads": 32,
    "kv_heads": 8,
    "tp": 1,
    "dtype": "BF16",
    "dtype_bytes": 2,
}


def variant(value: float, unit: str, tolerance: float = 0.01, **context: object) -> Variant:
    return Variant(
        template_id="test/card",
        seed=1,
        prompt="How much?",
        params={"layers": "32", "kv_heads": "8"},
        expected_value=value,
        unit=unit,
        rel_tolerance=tolerance,
        context=dict(context),
    )


KV_PER_TOKEN = variant(131_072, "B", **GQA)  # Llama 3 8B at BF16: 128 KiB


# --- acceptance ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed",
    ["131072", "131,072 B", "128 KiB", "128KiB", "0.125 MiB", "131 kB", "1048576 b", "1 Mib"],
)
def test_right_answers_in_any_unit_are_accepted(typed: str) -> None:
    verdict = check_answer(KV_PER_TOKEN, typed)
    assert verdict.correct, verdict.headline
    assert verdict.headline == "Correct: 131,072 B"


def test_tolerance_edge_one_percent() -> None:
    truth = variant(100, "GiB")
    assert check_answer(truth, "100.9 GiB").correct
    assert check_answer(truth, "99.1 GiB").correct
    assert not check_answer(truth, "101.1 GiB").correct
    assert not check_answer(truth, "98.9 GiB").correct


def test_template_tolerance_is_used() -> None:
    loose = variant(100, "ms", tolerance=0.05)
    assert check_answer(loose, "104 ms").correct
    assert not check_answer(loose, "106 ms").correct


def test_kb_for_kib_is_outside_the_default_tolerance() -> None:
    # 128 kB is 2.3 % short of 128 KiB.
    verdict = check_answer(variant(128, "KiB"), "128 kB")
    assert not verdict.correct
    assert verdict.mistake == "kb_vs_kib"


@pytest.mark.parametrize(
    ("truth", "typed", "code"),
    [
        (variant(64, "GiB", tolerance=0.1), "64 GB", "gb_vs_gib"),
        (variant(128, "KiB", tolerance=0.05), "128 kB", "kb_vs_kib"),
        (variant(1, "GB", tolerance=0.1), "1 Gb", "bits_vs_bytes"),
        (variant(3.35, "TB/s", tolerance=0.1), "3.35 TiB/s", "tb_vs_tib"),
    ],
)
def test_unit_traps_are_never_accepted_even_with_a_loose_tolerance(
    truth: Variant, typed: str, code: str
) -> None:
    verdict = check_answer(truth, typed, seconds=5)
    assert not verdict.correct
    assert verdict.mistake == code
    assert verdict.quality == 2


def test_a_number_off_by_the_gib_gb_ratio_is_not_accepted_under_a_loose_tolerance() -> None:
    loose = variant(64, "GiB", tolerance=0.1)
    verdict = check_answer(loose, "68.72 GiB")  # the GB figure, labelled GiB
    assert (verdict.correct, verdict.mistake) == (False, "gb_vs_gib")
    assert check_answer(loose, "66 GiB").correct  # an honest 3 % miss is inside 10 %


def test_correctly_converted_neighbours_are_accepted() -> None:
    assert check_answer(variant(64, "GiB"), "68.72 GB").correct
    assert check_answer(variant(1, "GB"), "8 Gb").correct


def test_significant_figure_acceptance_for_exact_templates() -> None:
    exact = variant(448_921, "tokens", tolerance=0.0)
    assert check_answer(exact, "448921").correct
    assert check_answer(exact, "449k").correct  # truth rounded to the 3 figures typed
    assert check_answer(exact, "448.9k tokens").correct
    assert not check_answer(exact, "450k").correct  # only 2 figures: not enough
    assert not check_answer(exact, "448k").correct  # 3 figures, but not the rounding
    assert not check_answer(exact, "448,922").correct


def test_zero_truth() -> None:
    assert check_answer(variant(0, "tokens"), "0").correct
    assert not check_answer(variant(0, "tokens"), "1").correct


# --- diagnosis rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("truth", "typed", "code"),
    [
        # Decimal/binary ratio errors (the number itself is off by 1.024^k)
        (variant(64, "GiB"), "68.72 GiB", "gb_vs_gib"),
        (variant(68.72, "GB"), "64 GB", "gb_vs_gib"),
        (variant(128, "KiB"), "131.1 KiB", "kb_vs_kib"),
        (variant(100, "MiB"), "104.9 MiB", "mb_vs_mib"),
        (variant(2, "TiB"), "2.199 TiB", "tb_vs_tib"),
        # Bits and bytes, by ratio
        (KV_PER_TOKEN, "1048576", "bits_vs_bytes"),
        (variant(3.35, "TB/s"), "26.8 TB/s", "bits_vs_bytes"),
        # The K and V factor
        (KV_PER_TOKEN, "65536", "kv_factor_2"),
        (KV_PER_TOKEN, "64 KiB", "kv_factor_2"),
        (variant(400_000, "tokens", formula="kv_pool_tokens"), "800k", "kv_factor_2"),
        # MLA: one latent per layer, no factor 2
        (variant(70_272, "B", formula="kv_bytes_per_token_mla"), "140544", "mla_factor_2"),
        (variant(70_272, "B", formula="kv_bytes_per_token", mla=True), "140544", "mla_factor_2"),
        # The GPU count left out of a time summed over every GPU
        (
            variant(2.0, "h", formula="custom", gpus=4, exponents={"gpus": 1}),
            "0.5 h",
            "gpus_missing",
        ),
        # Attention heads instead of KV heads
        (KV_PER_TOKEN, "512 KiB", "attention_heads"),
        (
            variant(8192, "B", formula="kv_bytes_per_token", heads=64, kv_heads=8, tp=16),
            "32768",
            "attention_heads",
        ),
        # 64 heads over 8 KV heads is also 8x, typed in bytes: the heads explain it, not bits
        (
            variant(327_680, "B", formula="kv_bytes_per_token", heads=64, kv_heads=8, tp=1),
            "2560 KiB",
            "attention_heads",
        ),
        # Tensor parallelism
        (variant(10, "ms", formula="decode_floor_time", tp=4), "40 ms", "tp_missing"),
        (variant(10, "ms", formula="decode_floor_time", tp=4), "2.5 ms", "tp_wrong"),
        (variant(10, "ms", formula="decode_floor_time", tp=4), "160 ms", "tp_wrong"),
        (variant(32_768, "B", formula="kv_bytes_per_token", tp=4), "131072", "tp_missing"),
        # TP past the KV head count: 8 KV heads over 16 GPUs divide by 8, not 16
        (
            variant(8192, "B", formula="kv_bytes_per_token", heads=32, kv_heads=8, tp=16),
            "65536",
            "tp_missing",
        ),
        # Bytes per parameter
        (
            variant(65_536, "B", formula="kv_bytes_per_token", inputs={"kv_dtype_bytes": 1}),
            "131072",
            "dtype_bytes",
        ),
        (
            variant(4, "GB", formula="weight_bytes", inputs={"weight_bits": 4}),
            "16 GB",
            "dtype_bytes",
        ),
        (
            variant(4, "GB", formula="weight_bytes", inputs={"weight_bits": 4}),
            "32 GB",  # the answer in Gb: the unit slip is named first
            "bits_vs_bytes",
        ),
        (variant(16, "GB", formula="weight_bytes", dtype_bytes=2), "32 GB", "dtype_bytes"),
        (variant(16, "GB", formula="weight_bytes", dtype_bytes=2), "8 GB", "dtype_bytes"),
        (variant(16, "GB", formula="weight_bytes", dtype_bytes=2), "4 GB", "dtype_bytes"),
        # Prefix slips
        (variant(10, "ms"), "10 s", "factor_1000"),
        (variant(10, "ms"), "10 us", "factor_1000"),
        (variant(449_000, "tokens"), "449", "factor_1000"),
        (variant(128, "KiB"), "131072 KiB", "factor_1024"),
        # Close, outside the tolerance
        (variant(100_000, "tokens"), "103k", "near_miss"),
        (variant(100, "GiB"), "96.5 GiB", "near_miss"),
    ],
)
def test_each_rule_names_its_mistake(truth: Variant, typed: str, code: str) -> None:
    verdict = check_answer(truth, typed)
    assert not verdict.correct
    assert verdict.mistake == code, verdict.diagnosis
    assert verdict.diagnosis and verdict.diagnosis.endswith(".")
    assert "\n" not in verdict.diagnosis
    assert verdict.quality == 2


def test_every_rule_in_the_table_is_exercised() -> None:
    tested = {
        "kb_vs_kib",
        "mb_vs_mib",
        "gb_vs_gib",
        "tb_vs_tib",
        "bits_vs_bytes",
        "kv_factor_2",
        "mla_factor_2",
        "attention_heads",
        "tp_missing",
        "tp_wrong",
        "gpus_missing",
        "dtype_bytes",
        "factor_1000",
        "factor_1024",
        "near_miss",
    }
    assert {rule.code for rule in RULES} == tested


def test_diagnosis_sentences_use_the_variants_numbers() -> None:
    verdict = check_answer(KV_PER_TOKEN, "512 KiB")
    assert "32 attention heads" in (verdict.diagnosis or "")
    assert "8 KV heads" in (verdict.diagnosis or "")
    slip = check_answer(variant(128, "KiB"), "128 kB")
    assert "in kB it is 131.1" in (slip.diagnosis or "")


def test_generator_alternatives_come_first() -> None:
    truth = variant(
        300_000,
        "tokens",
        formula="kv_pool_tokens",
        alternatives={"weights_not_subtracted": 520_000.0, "custom_slip": 600_000.0},
        mistake_sentences={"custom_slip": "You counted the pool twice."},
    )
    assert check_answer(truth, "520k").mistake == "weights_not_subtracted"
    # 600k is also the forgotten factor 2 by ratio; the generator's alternative wins.
    custom = check_answer(truth, "600k")
    assert custom.mistake == "custom_slip"
    assert custom.diagnosis == "You counted the pool twice."
    assert check_answer(variant(300_000, "tokens", formula="kv_pool_tokens"), "600k").mistake == (
        "kv_factor_2"
    )


def test_exponents_in_context_override_the_defaults() -> None:
    off = variant(131_072, "B", formula="kv_bytes_per_token", exponents={"kv": 0})
    assert check_answer(off, "65536").mistake != "kv_factor_2"


def test_a_wrong_answer_nothing_explains_gets_quality_1() -> None:
    verdict = check_answer(KV_PER_TOKEN, "77777")
    assert (verdict.correct, verdict.quality, verdict.mistake) == (False, 1, None)
    assert verdict.headline == "Not quite: expected 131,072 B"


def test_imprecise_answers_are_not_matched_to_close_ratios() -> None:
    # "140 kB" stands for anything from 135 to 145 kB: too coarse to blame GB/GiB or MB/MiB.
    assert check_answer(KV_PER_TOKEN, "140 kB").mistake is None


# --- quality, verdict fields --------------------------------------------------------------------


def test_quality_mapping() -> None:
    assert check_answer(KV_PER_TOKEN, "128 KiB", seconds=30).quality == 5
    assert check_answer(KV_PER_TOKEN, "128 KiB", seconds=60).quality == 5
    assert check_answer(KV_PER_TOKEN, "128 KiB", seconds=61).quality == 4
    assert check_answer(KV_PER_TOKEN, "128 KiB").quality == 4
    assert check_answer(variant(64, "GiB"), "64 GB", seconds=5).quality == 2  # unit slip
    assert check_answer(KV_PER_TOKEN, "64 KiB", seconds=5).quality == 2  # diagnosed
    assert check_answer(KV_PER_TOKEN, "77777", seconds=5).quality == 1
    assert give_up(KV_PER_TOKEN).quality == 0


def test_unreadable_answer_is_flagged_not_graded_as_wrong() -> None:
    for typed in ["9**9**9", "x" * 10_000, "42 ms", "128 KB", "", "\x07"]:
        verdict = check_answer(KV_PER_TOKEN, typed)
        assert verdict.unreadable and not verdict.correct
        assert "\n" not in verdict.headline
        assert verdict.expected_text == "131,072 B"


def test_give_up_shows_the_answer_and_the_solution() -> None:
    verdict = give_up(variant(128, "KiB", worked_solution="2 x 32 x 8 x 128 x 2 = **128 KiB**"))
    assert verdict.headline == "The answer: 128 KiB"
    assert verdict.worked_solution == "2 x 32 x 8 x 128 x 2 = **128 KiB**"
    assert not verdict.correct


def test_generic_worked_solution_names_formula_inputs_and_answer() -> None:
    verdict = check_answer(KV_PER_TOKEN, "1")
    assert "kv_bytes_per_token" in verdict.worked_solution
    assert "layers = 32" in verdict.worked_solution
    assert "131,072 B" in verdict.worked_solution


def test_checking_is_pure() -> None:
    before = copy.deepcopy(KV_PER_TOKEN)
    first = check_answer(KV_PER_TOKEN, "64 KiB", seconds=12)
    second = check_answer(KV_PER_TOKEN, "64 KiB", seconds=12)
    assert first == second
    assert before == KV_PER_TOKEN


def test_one_byte_per_value_is_singular() -> None:
    # BF16 weights (2 bytes a value) computed with 1 byte, and with 4.
    truth = variant(16, "GB", formula="weight_bytes", dtype_bytes=2)
    verdict = check_answer(truth, "8 GB")
    assert verdict.mistake == "dtype_bytes"
    assert verdict.diagnosis.startswith("You used 1 byte per value;"), verdict.diagnosis
    assert check_answer(truth, "32 GB").diagnosis.startswith("You used 4 bytes per value;")
