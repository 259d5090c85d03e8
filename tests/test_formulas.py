"""Every formula against hand computations from the public configs and the seed pack's figures.

The expected values are written as arithmetic from the config numbers, never as the engine's
own output. KiB = 2**10, GiB = 2**30, GB = 1e9.
"""

from __future__ import annotations

import pytest

from kvdrill.engine.capacity.catalog import get_model
from kvdrill.engine.capacity.formulas import (
    FORMULAS,
    QUANTITIES,
    SYMBOLS,
    evaluate,
    explain,
    inputs_from,
    missing_inputs,
    solve_for,
    variant_for,
)
from kvdrill.engine.errors import UserError

KiB, MiB, GiB, GB = 2**10, 2**20, 2**30, 1e9


def kv(model: str, **kwargs) -> float:
    values = inputs_from(model, **kwargs)
    return values["kv_bytes_per_token"]


# --- KV cache per token --------------------------------------------------------------------


def test_kv_bytes_per_token_gqa_and_mha() -> None:
    assert kv("llama-3.1-8b") == 2 * 32 * 8 * 128 * 2 == 128 * KiB
    assert kv("llama-3.1-70b") == 2 * 80 * 8 * 128 * 2 == 320 * KiB
    assert kv("llama-2-7b") == 2 * 32 * 32 * 128 * 2 == 512 * KiB  # no GQA: 4x the 8B
    assert kv("gemma-2-9b") == 2 * 42 * 8 * 256 * 2  # head_dim 256, not 3584 / 16


def test_kv_bytes_per_token_mla_has_no_factor_two() -> None:
    assert variant_for("kv_bytes_per_token", get_model("deepseek-v3")) == "kv_bytes_per_token_mla"
    assert kv("deepseek-v3") == 61 * (512 + 64) * 2


def test_kv_dtype_changes_bytes_per_token() -> None:
    assert kv("llama-3.1-8b", kv_dtype="fp8") == 2 * 32 * 8 * 128 * 1
    # Quantized weights leave the KV cache at 16 bits unless it is named (vLLM's "auto").
    assert kv("llama-3.1-8b", dtype="int4") == 2 * 32 * 8 * 128 * 2
    assert kv("llama-3.1-8b", dtype="fp32") == 2 * 32 * 8 * 128 * 4


def test_kv_heads_split_under_tp_and_replicate_past_their_count() -> None:
    assert kv("llama-3.1-70b", tp=2) == 2 * 80 * 4 * 128 * 2
    assert kv("llama-3.1-70b", tp=8) == 2 * 80 * 1 * 128 * 2
    assert kv("llama-3.1-70b", tp=16) == 2 * 80 * 1 * 128 * 2  # heads replicated, not halved
    assert kv("llama-3.1-8b", tp=16) == 2 * 32 * 1 * 128 * 2  # 8 KV heads on 16 GPUs
    assert kv("deepseek-v3", tp=8) == 61 * (512 + 64) * 2  # the latent sits on every GPU


def test_kv_bytes_per_sequence() -> None:
    values = inputs_from("llama-3.1-8b", overrides={"seq_tokens": 4096})
    assert evaluate("kv_bytes_per_sequence", values) == 4096 * 128 * KiB == 512 * MiB


def test_sliding_window_layers_stop_growing_at_the_window() -> None:
    values = inputs_from("gemma-2-9b", overrides={"seq_tokens": 8192})
    name = variant_for("kv_bytes_per_sequence", None, values)
    assert name == "kv_bytes_per_sequence_swa"
    per_layer_token = 2 * 8 * 256 * 2
    assert evaluate(name, values) == per_layer_token * (21 * 8192 + 21 * 4096)


# --- parameters and weights ----------------------------------------------------------------


def test_llama_3_8b_params_by_hand() -> None:
    h, kv_width, mlp, vocab = 4096, 1024, 14336, 128256
    block = 2 * h * h + 2 * h * kv_width + 3 * h * mlp + 2 * h  # attention, MLP, two norms
    expected = 32 * block + 2 * vocab * h + h  # untied embeddings and LM head, final norm
    assert inputs_from("llama-3.1-8b")["model_params"] == expected
    # The seed's "MLP is about 81% of each block".
    assert 3 * h * mlp / (2 * h * h + 2 * h * kv_width + 3 * h * mlp) == pytest.approx(
        0.81, abs=0.01
    )


# Published totals (billions). Tolerance 0.5 %, except DeepSeek-V3 active at 2 % (the paper
# rounds 37.5 B down to "37B").
PUBLISHED = [
    ("llama-2-7b", 6.74, None),
    ("llama-2-13b", 13.0, None),
    ("llama-2-70b", 69.0, None),
    ("llama-3.1-8b", 8.03, None),
    ("llama-3.1-70b", 70.55, None),
    ("llama-3.1-405b", 405.85, None),
    ("mistral-7b-v0.1", 7.24, None),
    ("mixtral-8x7b", 46.7, 12.9),
    ("qwen2.5-7b", 7.62, None),
    ("qwen2.5-72b", 72.7, None),
    ("gemma-2-9b", 9.24, None),
    ("deepseek-v3", 671, 37),
]


@pytest.mark.parametrize(("model", "total", "active"), PUBLISHED)
def test_params_land_near_the_published_totals(model: str, total: float, active) -> None:
    values = inputs_from(model)
    assert values["model_params"] / 1e9 == pytest.approx(total, rel=0.005)
    if active is not None:
        tolerance = 0.02 if model == "deepseek-v3" else 0.005
        assert values["active_params"] / 1e9 == pytest.approx(active, rel=tolerance)
    else:
        assert values["active_params"] == values["model_params"]


def test_mixtral_weights_do_not_fit_one_80gb_gpu() -> None:
    weights = inputs_from("mixtral-8x7b")["weight_bytes"]
    assert weights / GB == pytest.approx(46.7 * 2, rel=0.005)  # the seed's 93 GB
    assert weights > 80 * GB


def test_weights_at_three_precisions() -> None:
    params = 70.55e9
    assert inputs_from("llama-3.1-70b")["weight_bytes"] / GB == pytest.approx(
        params * 2 / GB, rel=1e-3
    )
    assert inputs_from("llama-3.1-70b", dtype="fp8")["weight_bytes"] / GB == pytest.approx(
        70.55, rel=1e-3
    )
    # 4-bit: 4 bits + one 16-bit scale per 128 weights = 4.125 bits: the seed's "~36 GB".
    four_bit = inputs_from("llama-3.1-70b", dtype="int4")["weight_bytes"]
    assert four_bit / GB == pytest.approx(params * 4.125 / 8 / GB, rel=1e-3)
    assert four_bit / GB == pytest.approx(36, rel=0.02)


# --- decode floor --------------------------------------------------------------------------


def test_decode_floor_on_h100() -> None:
    def floor_ms(dtype: str, tp: int = 1) -> float:
        values = inputs_from("llama-3.1-70b", "h100-sxm", dtype=dtype, tp=tp)
        return evaluate("decode_floor_time", values) * 1e3

    assert floor_ms("bf16") == pytest.approx(141.1e9 / 3.35e12 * 1e3, rel=1e-3)  # ~42 ms
    assert floor_ms("bf16") == pytest.approx(42, rel=0.01)
    assert floor_ms("bf16", tp=2) == pytest.approx(21, rel=0.01)
    assert floor_ms("fp8") == pytest.approx(21, rel=0.01)
    assert floor_ms("int4") == pytest.approx(10.7, rel=0.02)
    seed_weights = inputs_from("llama-3.1-70b", "h100-sxm", overrides={"weights": 36e9})
    assert evaluate("decode_floor_time", seed_weights) == pytest.approx(36e9 / 3.35e12)


# --- pool, concurrency, requests -----------------------------------------------------------

POOL_8B = 54.8 * GiB


def pool_8b(**overrides) -> dict[str, float]:
    return inputs_from("llama-3.1-8b", "h100-sxm", overrides={"pool": POOL_8B, **overrides})


def test_kv_pool_bytes_is_memory_times_util_minus_weights_and_overhead() -> None:
    values = inputs_from(
        "llama-3.1-70b", "h100-sxm", dtype="fp8", overrides={"gpu_util": 1, "overhead": 0}
    )
    # FP8 70B on one H100: of the 79.22 GiB CUDA sees (85.06 GB), about 14.5 GB are left.
    assert values["kv_pool_bytes"] == pytest.approx(79.22 * GiB - 70.55e9, rel=1e-3)
    h = 8192
    params_70b = 80 * (2 * h * h + 2 * h * 1024 + 3 * h * 28672 + 2 * h) + 2 * 128256 * h + h
    two = inputs_from("llama-3.1-70b", "h100-sxm", tp=2, overrides={"overhead": 1e9})
    assert two["kv_pool_bytes"] == pytest.approx(79.22 * GiB * 0.9 - params_70b * 2 / 2 - 1e9)
    # Without an overhead given, vLLM's typical 1.5 GiB (activation peak + non-torch) is taken.
    default = inputs_from("llama-3.1-70b", "h100-sxm", tp=2)
    assert default["kv_pool_bytes"] == pytest.approx(
        79.22 * GiB * 0.9 - params_70b * 2 / 2 - 1.5 * GiB
    )


def test_pool_tokens_and_vllm_concurrency_figure() -> None:
    values = pool_8b(max_model_len=131072)
    assert values["kv_pool_tokens"] == 54.8 * 2**30 / 2**17  # 448,921.6: the seed's ~449k
    blocks = (54.8 * 2**30) // (16 * 2**17)
    assert evaluate("max_concurrency", values) == blocks / (131072 / 16)
    assert evaluate("max_concurrency", values) == pytest.approx(3.43, rel=0.005)


def test_requests_that_fit_round_down() -> None:
    assert evaluate("requests_that_fit", pool_8b(request_tokens=1800)) == 249
    assert evaluate("requests_that_fit", pool_8b(request_tokens=2400)) == 187
    agent = {"kv_pool_tokens": 533_000, "request_tokens": 1000 + 6000}
    assert evaluate("requests_that_fit", agent) == 76


def test_extra_tokens_from_a_utilization_change() -> None:
    values = pool_8b(gpu_mem=79.1 * GiB, gpu_util=0.92, new_gpu_util=0.95)
    expected = (0.95 - 0.92) * 79.1 * 2**30 / 2**17  # 19,440: the seed's ~19k
    assert evaluate("extra_kv_tokens", values) == pytest.approx(expected)
    assert evaluate("extra_kv_tokens", values) == pytest.approx(19_000, rel=0.05)


def test_fp8_kv_doubles_while_8bit_weights_add_a_fixed_amount() -> None:
    assert inputs_from("llama-3.1-8b", kv_dtype="fp8", overrides={"pool": POOL_8B})[
        "kv_pool_tokens"
    ] == pytest.approx(2 * 448_921.6)  # ~900k
    assert evaluate("kv_dtype_gain_tokens", pool_8b()) == pytest.approx(448_921.6)
    freed = pool_8b(weights=15 * GiB)
    assert evaluate("weight_quant_gain_tokens", freed) == 7.5 * 2**30 / 2**17  # 61,440


def test_for_70b_on_two_gpus_weight_quantization_wins() -> None:
    # Per GPU: 79.22 GiB x 0.9 - 65.7 GiB of weights - 1.5 GiB = 4.1 GiB of pool at 160 KiB a
    # token, ~27k tokens, which an FP8 KV cache doubles (+27k); 8-bit weights free 32.9 GiB,
    # +215k tokens: eight times more.
    values = inputs_from("llama-3.1-70b", "h100-sxm", tp=2)
    assert evaluate("kv_dtype_gain_tokens", values) == pytest.approx(26_800, rel=0.01)
    assert evaluate("weight_quant_gain_tokens", values) == pytest.approx(215_300, rel=0.01)


def test_sessions_that_fit_on_an_8_gpu_node() -> None:
    # The seed's back-of-envelope: 8 x 80 GB = 640 GB, all of it usable, no overhead.
    seed = {"gpu_mem": 80e9, "overhead": 0, "gpu_util": 1, "seq_tokens": 32768}
    values = inputs_from("llama-3.1-70b", "h100-sxm", tp=8, overrides=seed)
    node_kv_per_session = 8 * (2 * 80 * 1 * 128 * 2) * 32768  # 320 KiB x 32K = 10 GiB
    expected = (640e9 - 70.5537e9 * 2) // node_kv_per_session
    assert evaluate("sessions_that_fit", values) == expected == 46  # the seed's "around 45"
    one_gpu = inputs_from("llama-3.1-70b", overrides={"seq_tokens": 32768})
    assert evaluate("kv_bytes_per_sequence", one_gpu) == 10 * GiB  # "about 10 GB each"


# --- solving in other directions -----------------------------------------------------------


def _model_for(name: str) -> str:
    if name.endswith("_mla") or name in ("model_params", "active_params"):
        return "deepseek-v3"
    return "gemma-2-9b" if name.endswith("_swa") else "llama-3.1-8b"


SMOOTH = [
    name
    for name, f in FORMULAS.items()
    if not any(fn in str(f.expr) for fn in ("floor", "ceiling", "Min"))
]
CASES = [(name, symbol) for name in SMOOTH for symbol in FORMULAS[name].symbols]


@pytest.mark.parametrize(("name", "symbol"), CASES)
def test_every_smooth_formula_solves_back_for_each_input(name: str, symbol: str) -> None:
    values = inputs_from(
        _model_for(name),
        "h100-sxm",
        dtype="fp8",  # weight bits unlike unquantized_bits, so weight_bytes_mixed depends on both
        tp=2,  # tp_allreduce_bytes_per_token is 0 at tp 1, which no other input can undo
        overrides={
            "seq_tokens": 8192,
            "new_gpu_util": 0.95,
            "overhead": 1e9,
            "prompt_tokens": 1000,
            "draft_tokens": 4,
            "acceptance_rate": 0.7,
            "arrival_rate": 12,
            "latency": 3.5,
            "gpus": 8,
            "price_per_gpu_hour": 2.5,
            "tokens_per_second": 20_000,
            "unquantized_bits": 16,
            "new_weight_bits": 4,  # from FP8 (below) to 4 bits
        },
    )
    known = dict(values)
    known[FORMULAS[name].output] = evaluate(name, values)
    original = known.pop(symbol)
    assert solve_for(name, symbol, known) == pytest.approx(original, rel=1e-6, abs=1e-6)


def test_solving_block_rounded_and_tp_formulas() -> None:
    # "What max_model_len gives 10x concurrency?" (continuous answer, before block rounding)
    values = pool_8b(max_concurrency=10)
    assert solve_for("max_concurrency", "max_model_len", values) == pytest.approx(
        54.8 * 2**30 / 2**17 / 10
    )
    values = inputs_from("llama-3.1-70b", overrides={"kv_bytes_per_token": 2 * 80 * 4 * 128 * 2})
    assert solve_for("kv_bytes_per_token", "tp", values) == pytest.approx(2)
    values = pool_8b(requests_that_fit=249)
    assert solve_for("requests_that_fit", "request_tokens", values) == pytest.approx(
        448_921.6 / 249
    )


def test_solving_through_a_min_falls_back_to_a_numeric_root() -> None:
    values = inputs_from("gemma-2-9b")
    per_token_all_layers = 2 * 42 * 8 * 256 * 2
    values["kv_bytes_per_sequence"] = per_token_all_layers * 2000  # under the window
    assert solve_for("kv_bytes_per_sequence_swa", "seq_tokens", values) == pytest.approx(2000)


def test_solving_for_a_symbol_the_formula_lacks_is_a_user_error() -> None:
    with pytest.raises(UserError, match="has no input"):
        solve_for("kv_bytes_per_token", "vocab", inputs_from("llama-3.1-8b"))


# --- API behaviour -------------------------------------------------------------------------


def test_every_formula_has_a_description_and_known_units() -> None:
    for formula in FORMULAS.values():
        assert formula.description
        assert formula.output in SYMBOLS
        assert set(formula.symbols) <= set(SYMBOLS)
    assert "kv_bytes_per_token" in QUANTITIES and "kv_bytes_per_token_mla" not in QUANTITIES


def test_missing_inputs_name_what_to_give() -> None:
    values = inputs_from("llama-3.1-8b")
    assert missing_inputs("kv_pool_tokens", values) == ["gpu_mem"]
    with pytest.raises(UserError, match="gpu_mem"):
        evaluate("kv_pool_bytes", values)
    with pytest.raises(UserError, match="unknown symbol"):
        inputs_from("llama-3.1-8b", overrides={"kv_heds": 4})


def test_explain_shows_formula_numbers_and_result() -> None:
    text = explain("kv_bytes_per_token", inputs_from("llama-3.1-8b"))
    lines = text.splitlines()
    assert lines[0].startswith("kv_bytes_per_token = ") and "kv_heads" in lines[0]
    assert "32" in lines[1] and "128" in lines[1] and "kv_heads" not in lines[1]
    assert "128 KiB" in lines[2]


def test_the_catalog_built_unevaluated_is_what_sympy_evaluates_it_to() -> None:
    # The floors, ceilings, maxima and minima are built with evaluate=False (a speed-up):
    # evaluating each again must change nothing, so solving and printing see the same formula.
    import sympy

    rounding = (sympy.floor, sympy.ceiling, sympy.Max, sympy.Min)

    def evaluated(expr: sympy.Expr) -> sympy.Expr:
        return expr.replace(lambda e: e.func in rounding, lambda e: e.func(*e.args))

    found = 0
    for formula in FORMULAS.values():
        found += formula.expr.has(*rounding)
        assert sympy.srepr(evaluated(formula.expr)) == sympy.srepr(formula.expr), formula.name
    assert found >= 6
