"""The roofline, speculative-decoding, queueing, cost and all-reduce quantities of issue 12.

Each expected value is worked by hand in the comment beside it from the public config or the
datasheet, never taken from the engine. Llama 3.1 8B has 8,030,261,248 parameters: embeddings
and LM head 2 x 128,256 x 4,096 = 1,050,673,152; per layer 2 x 4096^2 + 2 x 4096 x 1024
(attention) + 3 x 4096 x 14,336 (MLP) + 2 x 4096 (norms) = 218,112,000, x 32 = 6,979,584,000;
final norm 4,096.
"""

from __future__ import annotations

import json

import pytest

from kvdrill.app.cli import main
from kvdrill.engine.capacity.compute import compute
from kvdrill.engine.errors import UserError

LLAMA_8B_PARAMS = 8_030_261_248
MiB = 2**20


def calc(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["calc", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_prefill_flops_as_the_issue_writes_the_command(capsys) -> None:
    # 2 x 8,030,261,248 x 1,000 = 16,060,522,496,000 FLOP, about 16.06 TFLOP
    out = calc(capsys, "prefill_flops", "--model", "llama-3.1-8b", "--set", "prompt_tokens=1000")
    assert out["value"] == 16_060_522_496_000
    assert out["unit"] == "FLOP"


def test_decode_flops_per_token_counts_active_parameters_only() -> None:
    # Dense: 2 x 8,030,261,248 = 16,060,522,496
    assert compute("decode_flops_per_token", model="llama-3.1-8b").value == 16_060_522_496
    # Mixtral: 2 active of 8 experts, about 12.9 B active -> about 25.8 GFLOP, not 2 x 46.7 B
    mixtral = compute("decode_flops_per_token", model="mixtral-8x7b").value
    assert mixtral == pytest.approx(2 * 12.9e9, rel=0.005)


def test_ridge_point_uses_dense_peak_of_the_compute_dtype() -> None:
    # H100 SXM: 989 TFLOP/s BF16 / 3.35 TB/s = 295.2 FLOP/byte; FP8 1,979 / 3.35 = 590.7
    assert compute("ridge_point", gpu="h100-sxm").value == pytest.approx(295.22, rel=1e-4)
    fp8 = compute("ridge_point", gpu="h100-sxm", dtype="fp8").value
    assert fp8 == pytest.approx(590.75, rel=1e-4)
    # A100 has no FP8 tensor cores: FP8 weights are multiplied in BF16, 312 / 2.039 = 153.0
    a100 = compute("ridge_point", gpu="a100-80gb", dtype="fp8").value
    assert a100 == pytest.approx(153.02, rel=1e-4)
    # 4-bit weights are dequantized to BF16 for the math: the BF16 ridge again
    assert compute("ridge_point", gpu="h100-sxm", dtype="int4").value == pytest.approx(
        295.22, rel=1e-4
    )


def test_prefill_time_floor_divides_by_every_tensor_parallel_gpu() -> None:
    # 16,060,522,496,000 FLOP / 989e12 FLOP/s = 16.24 ms on one H100; 8.12 ms on two
    one = compute(
        "prefill_time_floor",
        model="llama-3.1-8b",
        gpu="h100-sxm",
        overrides={"prompt_tokens": 1000},
    )
    assert one.value == pytest.approx(0.016239, rel=1e-4)
    two = compute(
        "prefill_time_floor",
        model="llama-3.1-8b",
        gpu="h100-sxm",
        tp=2,
        overrides={"prompt_tokens": 1000},
    )
    assert two.value == pytest.approx(0.0081196, rel=1e-4)


def test_critical_batch_is_ridge_times_bytes_per_parameter_over_two() -> None:
    # BF16: 295.22 x 2 / 2 = 295.2; FP8: 590.75 x 1 / 2 = 295.4 (both halve together)
    assert compute("critical_batch", gpu="h100-sxm").value == pytest.approx(295.22, rel=1e-4)
    fp8 = compute("critical_batch", gpu="h100-sxm", dtype="fp8").value
    assert fp8 == pytest.approx(295.37, rel=1e-4)
    # INT4 with group-128 scales: 4.125 bits = 0.515625 B, BF16 math: 295.22 x 0.515625 / 2 = 76.1
    int4 = compute("critical_batch", gpu="h100-sxm", dtype="int4").value
    assert int4 == pytest.approx(76.11, rel=1e-3)


def test_speculative_expected_tokens_and_its_inverses() -> None:
    # a = 0.8, k = 4: (1 - 0.8^5) / 0.2 = (1 - 0.32768) / 0.2 = 3.3616
    got = compute(
        "speculative_expected_tokens", overrides={"acceptance_rate": 0.8, "draft_tokens": 4}
    )
    assert got.value == pytest.approx(3.3616)
    # a = 0: only the target's own token
    none = compute(
        "speculative_expected_tokens", overrides={"acceptance_rate": 0, "draft_tokens": 4}
    )
    assert none.value == 1
    # No closed form for a: solved numerically, across the removable point a = 1
    back = compute(
        "acceptance_rate", overrides={"speculative_expected_tokens": 3.3616, "draft_tokens": 4}
    )
    assert back.value == pytest.approx(0.8, rel=1e-6)
    k = compute(
        "draft_tokens", overrides={"speculative_expected_tokens": 3.3616, "acceptance_rate": 0.8}
    )
    assert k.value == pytest.approx(4, rel=1e-6)


def test_acceptance_rate_of_one_or_more_is_refused_in_one_line() -> None:
    with pytest.raises(UserError, match="acceptance_rate must be below 1"):
        compute("speculative_expected_tokens", overrides={"acceptance_rate": 1, "draft_tokens": 4})
    with pytest.raises(UserError, match="acceptance_rate is a probability"):
        compute(
            "speculative_expected_tokens", overrides={"acceptance_rate": 1.2, "draft_tokens": 4}
        )


def test_littles_law_reads_rates_and_times_in_any_unit(capsys) -> None:
    # 600 requests/min = 10 /s; 10 x 2.5 s = 25 in flight
    out = calc(
        capsys,
        "littles_law_concurrency",
        "--set",
        "arrival_rate=600req/min",
        "--set",
        "latency=2500ms",
    )
    assert out["value"] == pytest.approx(25)
    # Solved back: 25 in flight at 2.5 s means 10 arrivals a second
    back = compute("arrival_rate", overrides={"littles_law_concurrency": 25, "latency": 2.5})
    assert back.value == pytest.approx(10)


def test_cost_per_million_tokens(capsys) -> None:
    # 8 GPUs x $2.50 = $20/h; 20,000 tok/s x 3600 = 72e6 tok/h; 20 / 72e6 x 1e6 = $0.2778
    out = calc(
        capsys,
        "cost_per_million_tokens",
        "--set",
        "gpus=8",
        "--set",
        "price_per_gpu_hour=2.5",
        "--set",
        "tokens_per_second=20000",
    )
    assert out["value"] == pytest.approx(20 / 72, rel=1e-9)
    # The throughput $0.50 per million needs from those 8 GPUs: 20 / 0.5 x 1e6 / 3600 = 11,111 tok/s
    need = compute(
        "tokens_per_second",
        overrides={"gpus": 8, "price_per_gpu_hour": 2.5, "cost_per_million_tokens": 0.5},
    )
    assert need.value == pytest.approx(11_111.1, rel=1e-5)


def test_gpus_is_its_own_symbol_not_an_alias_of_tp() -> None:
    # Before issue 12 "gpus" meant tp; now it counts GPUs for the cost and leaves tp alone.
    got = compute(
        "cost_per_million_tokens",
        overrides={"gpus": 4, "price_per_gpu_hour": 3, "tokens_per_second": 3600},
    )
    assert got.inputs["gpus"] == 4  # 4 x 3 / (3600 x 3600) x 1e6 = 0.9259
    assert got.value == pytest.approx(12 / 3600**2 * 1e6)


def test_tp_allreduce_bytes_per_token() -> None:
    # Llama 3.1 70B, TP 8, BF16: 2 x 80 x 2 x 7/8 x 8192 x 2 = 4,587,520 B = 4.375 MiB
    got = compute("tp_allreduce_bytes_per_token", model="llama-3.1-70b", tp=8)
    assert got.value == 4_587_520 == 4.375 * MiB
    # TP 2 sends half as much per GPU as TP infinity would: 2 x 80 x 2 x 1/2 x 8192 x 2
    assert compute("tp_allreduce_bytes_per_token", model="llama-3.1-70b", tp=2).value == 2_621_440
    # One GPU has nobody to talk to
    assert compute("tp_allreduce_bytes_per_token", model="llama-3.1-70b").value == 0
    # Solved for tp: 4.375 MiB back to 8
    back = compute(
        "tp", model="llama-3.1-70b", overrides={"tp_allreduce_bytes_per_token": 4_587_520}
    )
    assert back.value == pytest.approx(8)


def test_explain_shows_the_definition_as_written(capsys) -> None:
    argv = ["calc", "cost_per_million_tokens", "--explain", "--set", "gpus=8"]
    argv += ["--set", "price_per_gpu_hour=2.5", "--set", "tokens_per_second=20000"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "gpus x price_per_gpu_hour" in lines[0] and "3,600" in lines[0]
    assert "8 x 2.5" in lines[1]
    assert lines[-1] == "cost_per_million_tokens = 0.2778"


def test_new_quantities_are_listed(capsys) -> None:
    assert main(["calc", "--list"]) == 0
    out = capsys.readouterr().out
    names = (
        "prefill_flops decode_flops_per_token ridge_point prefill_time_floor critical_batch "
        "speculative_expected_tokens littles_law_concurrency cost_per_million_tokens "
        "tp_allreduce_bytes_per_token prompt_tokens acceptance_rate draft_tokens arrival_rate "
        "latency gpus price_per_gpu_hour tokens_per_second"
    ).split()
    listed = {line.split()[0] for line in out.splitlines() if line.startswith("  ")}
    assert set(names) <= listed


def test_fp8_checkpoint_weights_with_16_bit_embeddings_match_vllms_log() -> None:
    # Llama 3.1 70B keeps 2 x 128,256 x 8,192 = 2,101,346,304 embedding and LM-head weights and
    # (2 x 80 + 1) x 8,192 = 1,318,912 norm weights at 16 bits: 2,102,665,216 in all. The other
    # 70,553,706,496 - 2,102,665,216 = 68,451,041,280 are 8-bit: 68,451,041,280 B + 2 x
    # 2,102,665,216 B = 72,656,371,712 B = 67.67 GiB. vLLM logs 67.72 GiB for the W8A8
    # checkpoint; every weight at 8 bits would be 70,553,706,496 B = 65.71 GiB.
    mixed = compute(
        "weight_bytes", model="llama-3.1-70b", dtype="fp8", overrides={"unquantized_bits": 16}
    )
    assert mixed.formula == "weight_bytes_mixed"
    assert mixed.value == 72_656_371_712
    assert mixed.value / 2**30 == pytest.approx(67.72, rel=0.001)
    textbook = compute("weight_bytes", model="llama-3.1-70b", dtype="fp8")
    assert textbook.value == 70_553_706_496  # the option is off unless asked for
    # The pool follows the weights it is given.
    pool = compute(
        "kv_pool_bytes",
        model="llama-3.1-70b",
        dtype="fp8",
        gpu="h100-sxm",
        overrides={"unquantized_bits": 16},
    )
    assert pool.value == pytest.approx(79.22 * 2**30 * 0.9 - 72_656_371_712 - 1.5 * 2**30)


def test_tied_embeddings_count_once_among_the_unquantized() -> None:
    # Gemma 2 9B ties its LM head: 256,000 x 3,584 once, plus (2 x 42 + 1) x 3,584 norm weights.
    # (Gemma 2 has four norms per layer; the catalog counts two, as for every model.)
    got = compute("unquantized_params", model="gemma-2-9b")
    assert got.value == 256_000 * 3_584 + 85 * 3_584


# One template per new quantity, as a pack would write it: it generates, shows its inputs in
# readable units, and accepts its own answer.
TEMPLATES = [
    {
        "ask": "prefill_flops",
        "vary": {"model": ["llama-3.1-8b"], "prompt_tokens": [1000]},
        "prompt": "{model} ({active_params} parameters), {prompt_tokens} prompt tokens?",
        "unit": "TFLOP",
    },
    {
        "ask": "decode_flops_per_token",
        "vary": {"model": ["mixtral-8x7b"]},
        "prompt": "{model}: FLOPs per decoded token?",
        "unit": "GFLOP",
    },
    {
        "ask": "ridge_point",
        "vary": {"gpu": ["h100-sxm"], "dtype": ["fp8"]},
        "prompt": "{gpu}, {dtype}: {peak_flops} and {hbm_bandwidth}. Ridge point?",
        "unit": "FLOP/byte",
    },
    {
        "ask": "prefill_time_floor",
        "vary": {"model": ["llama-3.1-70b"], "gpu": ["h200"], "tp": [4], "prompt_tokens": [4000]},
        "prompt": "{model} on {tp} x {gpu}, {prompt_tokens} tokens?",
        "unit": "ms",
    },
    {
        "ask": "critical_batch",
        "vary": {"gpu": ["h100-sxm"], "dtype": ["bf16"]},
        "prompt": "{gpu}, {dtype} weights: critical batch?",
        "unit": "",
    },
    {
        "ask": "acceptance_rate",
        "formula": "speculative_expected_tokens",
        "vary": {"speculative_expected_tokens": [2.5], "draft_tokens": [4]},
        "prompt": "{speculative_expected_tokens} tokens per step with k = {draft_tokens}: a?",
        "unit": "",
    },
    {
        "ask": "littles_law_concurrency",
        "vary": {"arrival_rate": ["25 requests/s"], "latency": ["12 s"]},
        "prompt": "{arrival_rate} arriving, {latency} each: in flight?",
        "unit": "requests",
    },
    {
        "ask": "cost_per_million_tokens",
        "vary": {"gpus": [1], "price_per_gpu_hour": [2.5], "tokens_per_second": [5000]},
        "prompt": "{gpus} GPU at ${price_per_gpu_hour}/h making {tokens_per_second}: $/M?",
        "unit": "USD",
    },
    {
        "ask": "tp_allreduce_bytes_per_token",
        "vary": {"model": ["llama-3.1-8b"], "tp": [4]},
        "prompt": "{model} on TP {tp}: bytes each GPU sends per token?",
        "unit": "MiB",
    },
]
# By hand: 2 x 8,030,261,248 x 1000; 2 x 12,879,925,248 (Mixtral active); 1979 / 3.35;
# 2 x 70,553,706,496 x 4000 / (4 x 989e12); 989 / 3.35 x 2 / 2; a with (1 - a^5)/(1 - a) = 2.5;
# 25 x 12; 1 x 2.5 / (5000 x 3600) x 1e6; 2 x 32 x 2 x 3/4 x 4096 x 2 B = 786,432 B.
EXPECTED = [16.0605, 25.7599, 590.746, 142.675, 295.224, 0.64453, 300, 0.138889, 0.75]
SHOWN = [
    "1,000",
    "Mixtral",
    "1,979 TFLOP/s",
    "H200",
    "H100",
    "2.5",
    "25 requests/s",
    "5,000 tokens/s",
    "TP 4",
]


@pytest.mark.parametrize(
    ("template", "expected", "shown"), zip(TEMPLATES, EXPECTED, SHOWN, strict=True)
)
def test_each_new_quantity_makes_a_problem(template: dict, expected: float, shown: str) -> None:
    from kvdrill.engine.capacity.units import format_quantity
    from kvdrill.engine.problems.checker import check_answer
    from kvdrill.engine.problems.generator import make_variant

    variant = make_variant(template, f"t/{template['ask']}", 1)
    assert variant.expected_value == pytest.approx(expected, rel=1e-4)
    assert shown in variant.prompt
    assert check_answer(variant, format_quantity(variant.expected_value, variant.unit, 6)).correct


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["prefill_flops", "--model", "llama-3.1-8b"], "prefill_flops needs prompt_tokens"),
        (["ridge_point"], "needs hbm_bandwidth, peak_flops"),
        (["littles_law_concurrency", "--set", "arrival_rate=10", "--set", "latency=2GB"], "GB"),
        (
            ["cost_per_million_tokens", "--set", "gpus=0", "--set", "price_per_gpu_hour=2"],
            "gpus must be more than 0",
        ),
        # At a = 0.5 a step yields at most 1 / (1 - 0.5) = 2 tokens, whatever k is.
        (
            [
                "draft_tokens",
                "--set",
                "speculative_expected_tokens=6",
                "--set",
                "acceptance_rate=0.5",
            ],
            "no value of draft_tokens",
        ),
    ],
)
def test_new_quantities_fail_in_one_line(capsys, argv: list[str], words: str) -> None:
    assert main(["calc", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kvdrill: ") and err.count("\n") == 1, err
    assert words in err
