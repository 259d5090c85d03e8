"""vLLM V1 sizes a sliding-window layer's KV from its window, and so does max_concurrency.

vLLM (vllm/v1/kv_cache_interface.py, SlidingWindowSpec.max_memory_usage_bytes) gives one
request of max_model_len cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block) + 1
blocks on a windowed layer, and cdiv(max_model_len, block) on a global one; the start-up
"Maximum concurrency" is the pool's blocks over the blocks one such request needs
(vllm/v1/core/kv_cache_utils.py, get_max_concurrency_for_kv_cache_config).
"""

from __future__ import annotations

import pytest

from kvdrill.engine.capacity.compute import compute

GIB = 2**30


def test_mistral_7b_worked_by_hand() -> None:
    # 2 x 32 layers x 8 KV heads x 128 x 2 B = 128 KiB per token; one block of 16 tokens over
    # the 32 windowed layers (one layer group) is 2 MiB, so a 40 GiB pool has 20,480 blocks.
    # A 32,768-token request keeps min(4,095 + 8,192, 32,768) = 12,287 tokens per layer:
    # cdiv(12,287, 16) + 1 = 769 blocks. 20,480 / 769 = 26.63, where full attention says
    # 20,480 / 2,048 = 10.
    got = compute(
        "max_concurrency",
        model="mistral-7b-v0.1",
        overrides={"kv_pool_bytes": 40 * GIB, "max_model_len": 32_768},
    )
    assert got.value == 20_480 / 769
    assert got.value == pytest.approx(26.63, abs=0.005)


def test_the_chunked_prefill_budget_widens_what_a_window_holds() -> None:
    # With 2,048 tokens per step (vllm serve below 70 GiB): min(4,095 + 2,048, 32,768) = 6,143
    # tokens, cdiv(6,143, 16) + 1 = 385 blocks; 20,480 / 385 = 53.19.
    got = compute(
        "max_concurrency",
        model="mistral-7b-v0.1",
        overrides={
            "kv_pool_bytes": 40 * GIB,
            "max_model_len": 32_768,
            "max_num_batched_tokens": 2048,
        },
    )
    assert got.value == 20_480 / 385


def test_gemma_2_counts_its_global_and_windowed_layers_apart() -> None:
    # 2 x 42 x 8 KV heads x 256 x 2 B = 336 KiB per token, 8 KiB per layer; a block of 16 tokens
    # over one group of 21 layers is 2.625 MiB: floor(40 GiB / 2.625 MiB) = 15,603 blocks. At
    # max_model_len 8,192 a request needs 512 blocks for the global group and
    # cdiv(min(4,095 + 8,192, 8,192), 16) + 1 = 513 for the windowed one: 15,603 / 1,025.
    got = compute(
        "max_concurrency",
        model="gemma-2-9b",
        overrides={"kv_pool_bytes": 40 * GIB, "max_model_len": 8192},
    )
    assert got.value == 15_603 / 1_025


def test_a_full_attention_model_is_unchanged() -> None:
    got = compute(
        "max_concurrency",
        model="llama-3.1-8b",
        overrides={"kv_pool_bytes": 40 * GIB, "max_model_len": 32_768},
    )
    assert got.value == (40 * GIB // (16 * 131_072)) / 2048
