"""Requests and sessions that fit are whole: one more than fits is wrong, and named as such.

Before issue 12 a 1 % tolerance let 301 pass for 299 (225 of 300 variants of the bundled
template accepted truth + 1).
"""

from __future__ import annotations

from pathlib import Path

from kvdrill.app.services.pack_files import parse_paths
from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant
from kvdrill.engine.problems.types import Variant

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "You rounded up: a request that does not fit is not served."


def bundled(key: str) -> dict:
    packs, _ = parse_paths([ROOT / "decks" / "problems.md"])
    (card,) = [c for c in packs[0].cards if c.key == key]
    return card.problem


def test_no_variant_of_the_bundled_template_accepts_one_request_too_many() -> None:
    template = bundled("gen-requests-that-fit")
    for seed in range(300):
        variant = make_variant(template, "capacity-problems/gen-requests-that-fit", seed)
        truth = round(variant.expected_value)
        assert variant.expected_value == truth  # a floor
        assert check_answer(variant, str(truth)).correct
        one_more = check_answer(variant, str(truth + 1))
        assert not one_more.correct, (seed, truth)
        assert one_more.mistake == "rounded_up"
        assert one_more.diagnosis == SENTENCE


def test_299_against_301_by_hand() -> None:
    # 449,000 pool tokens / 1,500 tokens per request = 299.33 -> 299 requests fit.
    template = {
        "ask": "requests_that_fit",
        "given": {"kv_pool_tokens": 449000, "request_tokens": 1500},
        "prompt": "{kv_pool_tokens} pool tokens, {request_tokens} per request: how many fit?",
        "unit": "requests",
    }
    variant = make_variant(template, "t/299", 1)
    assert variant.expected_value == 299
    assert not check_answer(variant, "301").correct  # 0.7 % off: inside 1 %, still wrong
    assert check_answer(variant, "301").mistake == "rounded_up"
    assert check_answer(variant, "300").mistake == "rounded_up"
    assert check_answer(variant, "299 requests").correct
    # Below the floor the usual tolerance still applies: 298 is a rounding of the pool figure.
    assert check_answer(variant, "298").correct
    # Far above is another mistake, not a rounding.
    assert check_answer(variant, "599").mistake != "rounded_up"


def test_sessions_that_fit_are_whole_too() -> None:
    template = {
        "ask": "sessions_that_fit",
        "vary": {"model": ["llama-3.1-70b"], "gpu": ["h100-sxm"], "tp": [8]},
        "given": {"seq_tokens": 32768, "gpu_util": 0.9},
        "prompt": "{model} on {tp} x {gpu}: how many {seq_tokens}-token sessions fit?",
        "unit": "requests",
    }
    variant = make_variant(template, "t/sessions", 1)
    truth = round(variant.expected_value)
    assert variant.context.get("whole_count") is True
    assert check_answer(variant, str(truth + 1)).mistake == "rounded_up"


def test_a_ratio_like_max_concurrency_is_not_a_whole_count() -> None:
    template = {
        "ask": "max_concurrency",
        "vary": {"model": ["llama-3.1-8b"]},
        "given": {"kv_pool_bytes": "54.8 GiB", "max_model_len": 131072},
        "prompt": "{model}, {kv_pool_bytes} pool, max_model_len {max_model_len}?",
        "unit": "x",
    }
    variant: Variant = make_variant(template, "t/conc", 1)
    assert "whole_count" not in variant.context
    assert check_answer(variant, "3.43x").correct  # 3.425 rounds to 3.43
