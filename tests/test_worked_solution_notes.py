"""Worked solutions say how their answer rounds, and show a unit change (issue 23, dated list)."""

from __future__ import annotations

from kvdrill.engine.problems.generator import make_variant

CEILING = {
    "ask": "blocks",
    "formula": {"expr": "ceil(seq_tokens / block_size)", "output": "blocks"},
    "vary": {"seq_tokens": [1000], "block_size": [16]},
    "unit": "blocks",
}
MAX_CONCURRENCY = {
    "ask": "max_concurrency",
    "given": {"model": "llama-3.1-8b", "kv_pool_bytes": "40 GiB", "max_model_len": 32768},
    "unit": "x",
}
FLOOR = {
    "ask": "requests_that_fit",
    "given": {"model": "llama-3.1-8b", "kv_pool_bytes": "40 GiB", "request_tokens": 3000},
    "unit": "requests",
}
GPU_HOURS = {
    "ask": "gpu_time",
    "formula": {
        "expr": "gpus * 1000000 / tokens_per_second",
        "symbols": {"gpus": "", "tokens_per_second": "token/s"},
        "output": "gpu_time",
    },
    "vary": {"gpus": [2], "tokens_per_second": [4000]},
    "unit": "h",
    "tolerance": "2%",
}


def worked(template: dict) -> str:
    return str(make_variant(template, "t/notes", 0).context["worked_solution"])


def test_a_count_that_rounds_up_says_round_up() -> None:
    text = worked(CEILING)
    assert "Round up" in text and "Round down" not in text


def test_a_ratio_of_rounded_blocks_carries_no_rounding_note() -> None:
    text = worked(MAX_CONCURRENCY)
    assert "Round down" not in text and "Round up" not in text


def test_a_count_that_rounds_down_says_round_down() -> None:
    assert "Round down" in worked(FLOOR)


def test_hours_are_shown_after_the_seconds_the_formula_gives() -> None:
    text = worked(GPU_HOURS)
    assert "= 500 s\n" in text and "= 0.1389 h\n" in text


def test_worked_numbers_share_one_format_with_thousands_separators() -> None:
    text = worked({**GPU_HOURS, "vary": {"gpus": [2], "tokens_per_second": [20000]}})
    assert "1,000,000 x 2/20,000" in text and "1000000" not in text
