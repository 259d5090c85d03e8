"""A tensor-parallel size vLLM refuses is refused here too, in calc, claims and the generator.

vLLM requires TP to divide the attention heads, and to divide the KV heads or (past their count)
be a multiple of them, replicating each KV head. Llama 2 13B has 40 heads: TP 3 never starts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.app.services.pack_files import parse_paths
from kvdrill.engine.capacity.catalog import get_model
from kvdrill.engine.capacity.compute import compute
from kvdrill.engine.errors import UserError
from kvdrill.engine.packs.claims import claim_problem
from kvdrill.engine.problems.generator import make_variant


def test_calc_refuses_tp_3_on_llama_2_13b(capsys) -> None:
    # Before the fix: 40 KV heads // 3 = 13 per GPU -> 2 x 40 x 13 x 128 x 2 = 260 KiB.
    assert main(["calc", "kv_bytes_per_token", "--model", "llama-2-13b", "--tp", "3"]) == 1
    err = capsys.readouterr().err
    assert "tensor-parallel size 3 does not divide its 40 attention heads" in err
    assert "Traceback" not in err


def test_kv_heads_must_divide_or_be_divided() -> None:
    # Qwen2.5 7B: 28 heads, 4 KV heads. TP 8 fails on the heads; TP 14 divides the 28 heads
    # but neither divides 4 KV heads nor is a multiple of 4.
    with pytest.raises(UserError, match="does not divide its 28 attention heads"):
        compute("kv_bytes_per_token", model="qwen2.5-7b", tp=8)
    with pytest.raises(UserError, match="4 KV heads"):
        compute("kv_bytes_per_token", model="qwen2.5-7b", tp=14)
    # TP 28 is a multiple of 4: each GPU holds one replicated KV head, 2 x 28 x 1 x 128 x 2 B.
    assert compute("kv_bytes_per_token", model="qwen2.5-7b", tp=28).value == 14_336


def test_sizes_vllm_accepts_still_compute() -> None:
    # Llama 3.1 70B: 64 heads, 8 KV heads. TP 16 replicates: 2 x 80 x 1 x 128 x 2 = 40 KiB.
    assert compute("kv_bytes_per_token", model="llama-3.1-70b", tp=16).value == 40 * 1024
    # Llama 2 13B on 4 or 5 GPUs: 40 heads split 10 or 8 ways.
    assert compute("kv_bytes_per_token", model="llama-2-13b", tp=5).value == 2 * 40 * 8 * 128 * 2
    # MLA has one latent per layer, not KV heads: only the 128 query heads must divide.
    assert get_model("deepseek-v3").tp_refusal(16) is None
    assert get_model("deepseek-v3").tp_refusal(3) is not None


def test_a_claim_on_a_refused_tp_fails() -> None:
    problem = claim_problem("kv_bytes_per_token model=llama-2-13b tp=3 = 260 KiB")
    assert problem is not None and "does not divide" in problem


def test_the_generator_never_asks_about_a_refused_deployment() -> None:
    template = {
        "ask": "kv_bytes_per_token",
        "vary": {"model": ["llama-2-13b", "qwen2.5-7b"], "tp": [1, 2, 3, 4, 8]},
        "prompt": "{model} on TP={tp}: KV bytes per token on one GPU?",
        "unit": "KiB",
    }
    seen = set()
    for seed in range(60):
        variant = make_variant(template, "t/tp", seed)
        model, tp = variant.params["model"], int(variant.params["tp"])
        assert get_model(model).tp_refusal(tp) is None, (model, tp)
        seen.add((model, tp))
    # Llama 2 13B takes 1, 2, 4, 8; Qwen2.5 7B takes 1, 2, 4: all seven appear.
    assert len(seen) == 7


def test_a_template_with_only_refused_sizes_says_why() -> None:
    template = {
        "ask": "kv_bytes_per_token",
        "vary": {"model": ["llama-2-13b"], "tp": [3, 6]},
        "prompt": "{model} on TP={tp}?",
        "unit": "KiB",
    }
    with pytest.raises(UserError, match="tp divides the attention and KV heads"):
        make_variant(template, "t/tp-none", 1)


def test_tp_set_as_a_symbol_is_checked_too() -> None:
    with pytest.raises(UserError, match="does not divide its 40 attention heads"):
        compute("kv_bytes_per_token", model="llama-2-13b", overrides={"tp": 3})


ROOT = Path(__file__).resolve().parent.parent


def test_calc_refuses_a_max_model_len_beyond_the_context(capsys) -> None:
    argv = ["calc", "max_concurrency", "--model", "mistral-7b-v0.1", "--set", "pool=40GiB"]
    assert main([*argv, "--set", "max_model_len=65536"]) == 1
    assert "above its context of 32,768 tokens" in capsys.readouterr().err
    assert main([*argv, "--set", "max_model_len=32768"]) == 0


def test_qwen_2_5_has_its_131072_token_context() -> None:
    # Base configs: max_position_embeddings 131072, so calc has a max_model_len to use.
    for model in ("qwen2.5-7b", "qwen2.5-72b"):
        assert get_model(model).max_context == 131_072
    # Qwen2.5 7B on one H100: 28 x 4 x 128 x 2 x 2 B = 56 KiB a token; the pool is
    # 79.22 GiB x 0.9 - 15.23 GB of weights - 1.5 GiB; blocks of 16 x 56 KiB over 8,192 per request.
    got = compute("max_concurrency", model="qwen2.5-7b", gpu="h100-sxm")
    pool = 79.22 * 2**30 * 0.9 - 7_615_616_512 * 2 - 1.5 * 2**30
    assert got.value == (pool // (16 * 56 * 1024)) / 8192


def test_the_bundled_max_concurrency_template_stays_within_each_context() -> None:
    packs, _ = parse_paths([ROOT / "decks" / "problems.md"])
    (card,) = [c for c in packs[0].cards if c.key == "gen-max-concurrency"]
    lengths: dict[str, set[int]] = {}
    for seed in range(80):
        variant = make_variant(card.problem, "capacity-problems/gen-max-concurrency", seed)
        model = get_model(variant.params["model"])
        length = int(variant.params["max_model_len"].replace(",", ""))
        assert length <= model.max_context, (model.id, length)
        assert model.sliding_window is None  # vLLM sizes sliding-window layers differently
        lengths.setdefault(model.id, set()).add(length)
    # Mixtral 8x7B (32,768) is still asked, at the lengths vLLM accepts.
    assert lengths["mixtral-8x7b"] == {8192, 32768}
    assert 131072 in lengths["llama-3.1-8b"]


def test_the_generator_skips_a_max_model_len_past_the_context() -> None:
    template = {
        "ask": "max_concurrency",
        "vary": {
            "model": ["mistral-7b-v0.1", "llama-3.1-8b"],
            "max_model_len": [8192, 65536, 131072],
        },
        "given": {"kv_pool_bytes": "40 GiB"},
        "prompt": "{model}, {kv_pool_bytes} pool, max_model_len {max_model_len}?",
        "unit": "x",
    }
    pairs = set()
    for seed in range(60):
        variant = make_variant(template, "t/context", seed)
        pairs.add((variant.params["model"], variant.params["max_model_len"]))
    assert ("Mistral 7B v0.1", "65,536") not in pairs
    assert ("Mistral 7B v0.1", "8,192") in pairs
    assert ("Llama 3.1 8B", "131,072") in pairs
