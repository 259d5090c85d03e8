"""Variants from templates: reproducible, within their constraints, with the right answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from kvdrill.engine.capacity.formulas import inputs_from
from kvdrill.engine.errors import UserError
from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant

ROOT = Path(__file__).resolve().parent.parent

KV = {
    "ask": "kv_bytes_per_token",
    "vary": {"model": "all", "kv_dtype": ["bf16", "fp8"], "tp": [1, 2, 4, 8]},
    "prompt": "{model}, {kv_dtype} KV cache, TP={tp}: KV bytes per token on one GPU?",
    "unit": "KiB",
}

FIT = {
    "ask": "requests_that_fit",
    "vary": {
        "model": "dense",
        "gpu": "all",
        "dtype": ["bf16", "fp8", "int4"],
        "request_tokens": {"from": 1000, "to": 8000, "step": 100},
    },
    "given": {"gpu_util": 0.9, "overhead_bytes": "2 GiB"},
    "constraints": ["weights_fit", "requests_that_fit >= 4"],
    "prompt": "{model} in {dtype} on one {gpu}: how many {request_tokens}-token requests fit?",
    "unit": "requests",
}


def test_same_id_and_seed_give_the_same_variant() -> None:
    assert make_variant(KV, "p/kv", 7) == make_variant(KV, "p/kv", 7)
    assert make_variant(FIT, "p/fit", 7) == make_variant(FIT, "p/fit", 7)


def test_seeds_and_ids_spread_over_the_choices() -> None:
    prompts = {make_variant(KV, "p/kv", seed).prompt for seed in range(40)}
    assert len(prompts) > 20
    assert make_variant(KV, "p/kv", 1).prompt != make_variant(KV, "p/other", 1).prompt or (
        make_variant(KV, "p/kv", 2).prompt != make_variant(KV, "p/other", 2).prompt
    )


SCRIPT = """
import json, sys
from dataclasses import asdict
from kvdrill.engine.problems.generator import make_variant
template, seeds = json.loads(sys.argv[1]), range(5)
print(json.dumps([asdict(make_variant(template, "p/fit", s)) for s in seeds], sort_keys=True))
"""


def test_same_variant_in_another_process_with_another_hash_seed() -> None:
    here = [asdict(make_variant(FIT, "p/fit", s)) for s in range(5)]
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(FIT)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
    )
    assert json.loads(out.stdout) == json.loads(json.dumps(here, sort_keys=True))


def test_every_variant_meets_its_constraints() -> None:
    for seed in range(40):
        variant = make_variant(FIT, "p/fit", seed)
        context = variant.context
        dtype = variant.params["dtype"].lower()
        overhead = {"overhead_bytes": 2 * 2**30}
        values = inputs_from(context["model"], context["gpu"], dtype, None, 1, overhead)
        assert values["weight_bytes"] < values["gpu_mem"] * 0.9
        assert variant.expected_value >= 4
        tokens = float(variant.params["request_tokens"].replace(",", ""))
        pool_tokens = values["kv_pool_bytes"] / values["kv_bytes_per_token"]
        assert variant.expected_value == pool_tokens // tokens


def test_expected_value_and_checker_agree_on_a_known_case() -> None:
    template = {
        "ask": "kv_bytes_per_token",
        "given": {"model": "llama-3.1-8b", "kv_dtype": "bf16"},
        "prompt": "{model} in {kv_dtype}: KV bytes per token?",
        "unit": "KiB",
    }
    variant = make_variant(template, "p/one", 0)
    assert variant.prompt == "Llama 3.1 8B in BF16: KV bytes per token?"
    assert variant.expected_value == 128
    assert check_answer(variant, "128 KiB").correct
    assert check_answer(variant, "131,072 B").correct
    wrong = check_answer(variant, "64 KiB")
    assert not wrong.correct and wrong.mistake == "kv_factor_2"
    assert check_answer(variant, "128 kB").mistake == "kb_vs_kib"
    assert "= 2 x 32 x 8 x 128 x 2 B\n" in variant.context["worked_solution"]
    assert "**Answer: 128 KiB**" in variant.context["worked_solution"]


def test_attention_heads_mistake_is_named_where_the_learner_has_the_head_count() -> None:
    template = {
        "ask": "kv_bytes_per_token",
        "given": {"model": "llama-3.1-8b"},
        "prompt": "{model} in BF16 ({heads} attention heads): KV bytes per token?",
        "unit": "KiB",
    }
    variant = make_variant(template, "p/h", 0)
    assert variant.expected_value == 128
    assert check_answer(variant, "512 KiB").mistake == "attention_heads"


def test_no_attention_heads_where_the_learner_has_only_the_kv_heads() -> None:
    # The default prompt lists the formula's inputs: layers, KV heads, head dim, bytes.
    template = {"ask": "kv_bytes_per_token", "given": {"model": "llama-3.1-8b"}, "unit": "KiB"}
    variant = make_variant(template, "p/h", 0)
    assert "kv_heads: 8" in variant.prompt and "heads: 32" not in variant.prompt
    assert check_answer(variant, "512 KiB").mistake != "attention_heads"


def test_worked_solution_uses_the_variant_numbers() -> None:
    for seed in range(10):
        variant = make_variant(KV, "p/kv", seed)
        worked = variant.context["worked_solution"]
        params = variant.params
        assert f"= {params['layers']} x " in worked or f"= 2 x {params['layers']} x " in worked
        if variant.context["mla"]:
            assert "kv_lora_rank" in worked
        elif params["tp"] != "1":
            assert f"floor({params['kv_heads']}/{params['tp']})" in worked
        assert f"**Answer: {variant.expected_value:g} KiB**" in worked
        assert variant.context["tp"] == int(params["tp"])


def test_solving_for_an_input() -> None:
    template = {
        "ask": "max_model_len",
        "formula": "max_concurrency",
        "given": {"model": "llama-3.1-8b", "kv_pool_bytes": "54.8 GiB"},
        "vary": {"max_concurrency": [5, 10, 20]},
        "prompt": "{model}, {kv_pool_bytes} pool: what max_model_len gives {max_concurrency}x?",
        "unit": "tokens",
        "tolerance": "2%",
    }
    for seed in range(6):
        variant = make_variant(template, "p/solve", seed)
        concurrency = float(variant.params["max_concurrency"])
        pool_tokens = 54.8 * 2**30 / (128 * 1024)
        assert variant.expected_value == pytest.approx(pool_tokens / concurrency, rel=1e-3)
        assert "max_model_len = " in variant.context["worked_solution"]


def test_pack_formula_variant() -> None:
    template = {
        "ask": "requests",
        "formula": {
            "expr": "floor(kv_pool_tokens / (prompt_tokens + output_tokens))",
            "symbols": {"prompt_tokens": "token", "output_tokens": "token"},
        },
        "vary": {"prompt_tokens": {"from": 500, "to": 2000, "step": 500}, "output_tokens": [6000]},
        "given": {"kv_pool_tokens": "533k"},
        "prompt": "{kv_pool_tokens} tokens; {prompt_tokens} in, {output_tokens} out: requests?",
        "unit": "requests",
    }
    variant = make_variant(template, "p/custom", 3)
    tokens = int(variant.params["prompt_tokens"].replace(",", "")) + 6000
    assert variant.expected_value == 533_000 // tokens
    assert variant.prompt.startswith("533,000 tokens; ")
    assert check_answer(variant, str(int(variant.expected_value))).correct


def test_placeholder_with_a_unit() -> None:
    template = {
        "ask": "kv_pool_tokens",
        "given": {"model": "llama-3.1-8b", "kv_pool_bytes": "54.8 GiB"},
        "prompt": "Pool {kv_pool_bytes:GB}, literal {{braces}}: tokens?",
        "unit": "tokens",
    }
    variant = make_variant(template, "p/unit", 0)
    assert variant.prompt == "Pool 58.84 GB, literal {braces}: tokens?"
    assert check_answer(variant, "449k").correct


def test_synthetic_model() -> None:
    template = {
        "ask": "kv_bytes_per_token",
        "vary": {
            "model": {
                "synthetic": {
                    "layers": {"from": 16, "to": 96, "step": 8},
                    "kv_heads": [1, 2, 4, 8],
                    "head_dim": [64, 128, 256],
                }
            },
            "kv_dtype": ["bf16", "fp8"],
        },
        "prompt": "{model}, {kv_dtype}: KV bytes per token?",
        "unit": "KiB",
    }
    variant = make_variant(template, "p/synthetic", 4)
    layers = int(variant.params["layers"])
    kv_heads = int(variant.params["kv_heads"])
    head_dim = int(variant.params["head_dim"])
    size = 2 if variant.params["kv_dtype"] == "BF16" else 1
    assert variant.prompt.startswith(f"a model with {layers} layers, {kv_heads} KV heads")
    assert variant.expected_value * 1024 == 2 * layers * kv_heads * head_dim * size


def test_unmeetable_constraints_raise_a_user_error() -> None:
    template = {**KV, "constraints": ["kv_bytes_per_token > 100 * GiB"]}
    with pytest.raises(UserError, match="no variant meets the constraints"):
        make_variant(template, "p/never", 0)


def test_a_broken_template_raises_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown formula"):
        make_variant({"ask": "nothing", "unit": "KiB"}, "p/bad", 0)


def test_solving_a_pack_formula_for_an_input() -> None:
    template = {
        "ask": "output_tokens",
        "formula": {
            "expr": "kv_pool_tokens / (prompt_tokens + output_tokens)",
            "symbols": {"prompt_tokens": "token", "output_tokens": "token"},
            "output": "requests",
        },
        "vary": {"output_tokens": [500, 1000, 2000], "requests": [50, 100]},
        "given": {"kv_pool_tokens": "449k", "prompt_tokens": 1000},
        "prompt": "{kv_pool_tokens} tokens, {prompt_tokens}-token prompts, {requests} requests: "
        "how long may each output be?",
        "unit": "tokens",
    }
    variant = make_variant(template, "p/solve-custom", 2)
    requests = float(variant.params["requests"])
    assert variant.expected_value == pytest.approx(449_000 / requests - 1000)
    assert "output_tokens = " in variant.context["worked_solution"]


def test_forgotten_factor_2_is_named_when_solving_backwards() -> None:
    template = {
        "ask": "max_model_len",
        "formula": "max_concurrency",
        "given": {"model": "llama-3.1-8b", "kv_pool_bytes": "54.8 GiB", "max_concurrency": 10},
        "prompt": "{model}, a {kv_pool_bytes} pool: what max_model_len gives {max_concurrency}x?",
        "unit": "tokens",
    }
    variant = make_variant(template, "p/back", 0)
    assert variant.expected_value == pytest.approx(44_892, rel=1e-3)
    # Half the KV bytes per token doubles the length that seems to fit.
    assert check_answer(variant, "89,784").mistake == "kv_factor_2"


def test_selectors_combine_with_a_bar() -> None:
    template = {"ask": "kv_bytes_per_token", "vary": {"models": "mha|mla"}, "unit": "KiB"}
    seen = {make_variant(template, "p/bar", seed).context["model"] for seed in range(30)}
    assert seen == {"llama-2-7b", "llama-2-13b", "deepseek-v3"}


@pytest.mark.parametrize(
    ("template", "code"),
    [
        (
            {"ask": "kv_pool_tokens", "given": {"model": "llama-3.1-8b", "gpu": "h100-sxm"}},
            "weights_not_subtracted",
        ),
        (
            {"ask": "kv_pool_tokens", "given": {"model": "llama-3.1-8b", "gpu": "h100-sxm"}},
            "utilization_missing",
        ),
        (
            {"ask": "decode_floor_time", "given": {"model": "mixtral-8x7b", "gpu": "h100-sxm"}},
            "active_vs_total",
        ),
    ],
)
def test_derived_input_mistakes_are_named(template: dict, code: str) -> None:
    unit = "tokens" if template["ask"] == "kv_pool_tokens" else "ms"
    variant = make_variant({**template, "unit": unit}, "p/alt", 0)
    wrong = variant.context["alternatives"][code]
    verdict = check_answer(variant, f"{wrong:.4g} {unit}")
    assert not verdict.correct and verdict.mistake == code
