"""``kvdrill calc`` reproduces every figure of the seed pack, explains itself, and fails in one line."""

from __future__ import annotations

import json

import pytest

from kvdrill.app.cli import main

KiB, MiB, GiB, GB = 2**10, 2**20, 2**30, 1e9


def calc(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["calc", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def value(capsys: pytest.CaptureFixture[str], *argv: str) -> float:
    return calc(capsys, *argv)["value"]


# (argv, expected value in the --unit asked, relative tolerance, the seed's words)
SEED_FIGURES = [
    (
        ["kv_bytes_per_token", "--model", "llama-3-8b", "--unit", "KiB"],
        2 * 32 * 8 * 128 * 2 / KiB,
        0,
        "128 KiB",
    ),
    (
        ["kv_bytes_per_token", "--model", "llama-3-70b", "--unit", "KiB"],
        2 * 80 * 8 * 128 * 2 / KiB,
        0,
        "320 KiB",
    ),
    (
        ["kv_bytes_per_token", "--model", "llama-2-7b", "--unit", "KiB"],
        2 * 32 * 32 * 128 * 2 / KiB,
        0,
        "512 KiB",
    ),
    (
        [
            "kv_bytes_per_sequence",
            "--model",
            "llama-3-8b",
            "--set",
            "seq_tokens=4,096",
            "--unit",
            "MiB",
        ],
        4096 * 128 * KiB / MiB,
        0,
        "512 MiB",
    ),
    (["weight_bytes", "--model", "llama-3-70b", "--unit", "GB"], 141, 0.005, "141 GB BF16"),
    (
        ["weight_bytes", "--model", "llama-3-70b", "--dtype", "fp8", "--unit", "GB"],
        70.55,
        0.005,
        "70 GB FP8",
    ),
    (
        ["weight_bytes", "--model", "llama-3-70b", "--dtype", "int4", "--unit", "GB"],
        36,
        0.02,
        "~36 GB 4-bit",
    ),
    (["weight_bytes", "--model", "mixtral-8x7b", "--unit", "GB"], 93, 0.01, "Mixtral 93 GB"),
    (
        ["decode_floor_time", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--unit", "ms"],
        141.1 / 3.35,
        0.002,
        "42 ms",
    ),
    (
        [
            "decode_floor_time",
            "--model",
            "llama-3-70b",
            "--gpu",
            "h100-sxm",
            "--tp",
            "2",
            "--unit",
            "ms",
        ],
        141.1 / 3.35 / 2,
        0.002,
        "21 ms on 2 GPUs",
    ),
    (
        [
            "decode_floor_time",
            "--model",
            "llama-3-70b",
            "--gpu",
            "h100-sxm",
            "--dtype",
            "fp8",
            "--unit",
            "ms",
        ],
        70.55 / 3.35,
        0.002,
        "21 ms FP8",
    ),
    (
        [
            "decode_floor_time",
            "--model",
            "llama-3-70b",
            "--gpu",
            "h100-sxm",
            "--dtype",
            "int4",
            "--unit",
            "ms",
        ],
        10.7,
        0.02,
        "10.7 ms 4-bit",
    ),
    (
        ["kv_pool_tokens", "--model", "llama-3.1-8b", "--set", "pool=54.8GiB"],
        54.8 * GiB / (128 * KiB),
        1e-9,
        "~449k tokens",
    ),
    (
        [
            "max_concurrency",
            "--model",
            "llama-3.1-8b",
            "--set",
            "pool=54.8 GiB",
            "--set",
            "max_model_len=131072",
        ],
        3.43,
        0.005,
        "3.43x",
    ),
    (
        [
            "requests_that_fit",
            "--model",
            "llama-3.1-8b",
            "--set",
            "pool=54.8GiB",
            "--set",
            "request_tokens=1800",
        ],
        249,
        0,
        "249 chats",
    ),
    (
        [
            "requests_that_fit",
            "--model",
            "llama-3.1-8b",
            "--set",
            "pool=54.8GiB",
            "--set",
            "request_tokens=2400",
        ],
        187,
        0,
        "187 at p95",
    ),
    (
        ["requests_that_fit", "--set", "kv_pool_tokens=533k", "--set", "request_tokens=7000"],
        76,
        0,
        "76 agent requests",
    ),
    (
        [
            "extra_kv_tokens",
            "--model",
            "llama-3-8b",
            "--set",
            "gpu_mem=79.1GiB",
            "--set",
            "util=0.92",
            "--set",
            "new_util=0.95",
        ],
        0.03 * 79.1 * GiB / (128 * KiB),
        1e-9,
        "~19k tokens",
    ),
    (
        ["kv_pool_tokens", "--model", "llama-3-8b", "--kv-dtype", "fp8", "--set", "pool=54.8GiB"],
        2 * 448_921.6,
        1e-9,
        "~900k with fp8 KV",
    ),
    (
        ["weight_quant_gain_tokens", "--model", "llama-3-8b", "--set", "weights=15GiB"],
        7.5 * GiB / (128 * KiB),
        0,
        "7.5 GiB -> 61k tokens",
    ),
    (
        ["kv_pool_tokens", "--model", "llama-3-70b", "--set", "pool=40GB"],
        40e9 / (320 * KiB),
        1e-9,
        "4-bit: ~120k tokens",
    ),
    (
        [
            "sessions_that_fit",
            "--model",
            "llama-3-70b",
            "--gpu",
            "h100-sxm",
            "--tp",
            "8",
            "--set",
            "util=1",
            "--set",
            "gpu_mem=80GB",  # the seed's 8 x 80 GB = 640 GB, no overhead
            "--set",
            "overhead=0",
            "--set",
            "seq_tokens=32768",  # "32K" context = 32,768 tokens (the reader takes k as 1000)
        ],
        46,
        0,
        "around 45 sessions",
    ),
    (
        [
            "kv_bytes_per_sequence",
            "--model",
            "llama-3-70b",
            "--set",
            "seq_tokens=32768",
            "--unit",
            "GB",
        ],
        320 * KiB * 32768 / GB,
        1e-9,
        "about 10 GB each",
    ),
]


@pytest.mark.parametrize(
    ("argv", "expected", "rel", "seed"), SEED_FIGURES, ids=[s for *_, s in SEED_FIGURES]
)
def test_calc_reproduces_the_seed_figures(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: float, rel: float, seed: str
) -> None:
    assert value(capsys, *argv) == pytest.approx(expected, rel=rel)


def test_json_has_quantity_value_unit_and_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    out = calc(capsys, "kv_bytes_per_token", "--model", "llama-3.1-8b", "--unit", "KiB")
    assert out["quantity"] == "kv_bytes_per_token"
    assert (out["value"], out["unit"]) == (128, "KiB")
    assert out["inputs"]["layers"] == 32 and out["inputs"]["kv_heads"] == 8
    assert out["value_si"] == 131072


def test_mla_model_uses_the_latent_formula(capsys: pytest.CaptureFixture[str]) -> None:
    out = calc(capsys, "kv_bytes_per_token", "--model", "deepseek-v3")
    assert out["formula"] == "kv_bytes_per_token_mla"
    assert out["value"] == 61 * (512 + 64) * 2


def test_solving_backwards_for_an_input(capsys: pytest.CaptureFixture[str]) -> None:
    out = calc(
        capsys,
        "max_model_len",
        "--model",
        "llama-3.1-8b",
        "--set",
        "pool=54.8GiB",
        "--set",
        "max_concurrency=10",
    )
    assert out["solved_for"] == "max_model_len"
    assert out["value"] == pytest.approx(54.8 * GiB / (128 * KiB) / 10)


def test_explain_prints_formula_substitution_and_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calc", "kv_bytes_per_token", "--model", "llama-3.1-8b", "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "kv_heads" in lines[0]
    assert "80" not in lines[1] and "32" in lines[1] and "128" in lines[1]
    assert lines[-1] == "kv_bytes_per_token = 128 KiB"
    # The result is said once, not again on a line of its own.
    assert len(lines) == 3 and sum("128 KiB" in line for line in lines) == 1


def test_a_count_given_as_text_suggests_a_plain_number(capsys) -> None:
    argv = ["calc", "kv_bytes_per_token", "--model", "llama-3.1-8b", "--set", "layers=abc"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert (
        err
        == "kvdrill: --set layers: 'abc' does not start with a number: type a plain number like 32.\n"
    )
    assert main(["calc", "decode_floor_time", "--set", "bandwidth=fast"]) == 1
    assert "type something like 3.35 TB/s" in capsys.readouterr().err


def test_set_accepts_units_and_percentages(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["extra_kv_tokens", "--model", "llama-3.1-8b", "--set", "gpu_mem=80GB"]
    a = value(capsys, *base, "--set", "util=90%", "--set", "new_util=95%")
    b = value(capsys, *base, "--set", "util=0.9", "--set", "new_util=0.95")
    assert a == pytest.approx(b) == pytest.approx(0.05 * 80e9 / 131072)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["kv_pool_tokns", "--model", "llama-3.1-8b"], "did you mean kv_pool_tokens"),
        (["kv_bytes_per_token", "--model", "llama-3-8"], "did you mean llama-3-8b"),
        (["kv_pool_tokens", "--gpu", "h1000"], "did you mean h100"),
        (["kv_bytes_per_token", "--set", "kv_head=8"], "did you mean kv_heads"),
        (["kv_pool_tokens", "--model", "llama-3.1-8b", "--set", "pool=3 s"], "a time"),
        (["kv_bytes_per_token", "--model", "llama-3.1-8b", "--unit", "ms"], "Cannot convert"),
        (["kv_pool_tokens", "--model", "llama-3.1-8b"], "gpu_mem"),
        (["kv_bytes_per_token", "--set", "layers"], "NAME=VALUE"),
        (["kv_bytes_per_token", "--dtype", "bf61"], "did you mean bf16"),
        (["layers", "--model", "llama-3.1-8b"], "is an input"),
    ],
)
def test_user_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["calc", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_list_names_every_quantity(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calc", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("kv_bytes_per_token", "max_concurrency", "sessions_that_fit", "kv_lora_rank"):
        assert name in out


def test_compute_api_evaluates_and_solves_without_the_cli() -> None:
    from kvdrill.engine.capacity.compute import compute, symbol_value

    assert symbol_value("pool", "54.8GiB") == ("kv_pool_bytes", 54.8 * GiB)
    plain = compute("kv_bytes_per_token", model="deepseek-v3")
    assert (plain.formula, plain.value, plain.solved_for) == (
        "kv_bytes_per_token_mla",
        61 * 576 * 2,
        None,
    )
    solved = compute(
        "request_tokens",
        model="llama-3.1-8b",
        overrides={"pool": 54.8 * GiB, "requests_that_fit": 187},
    )
    assert solved.value == pytest.approx(54.8 * GiB / (128 * KiB) / 187)
    assert solved.inputs["requests_that_fit"] == 187


def test_explain_prints_figures_with_thousands_separators(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["calc", "kv_pool_tokens", "--model", "llama-3.1-8b", "--gpu", "h100", "--explain"]
    assert main(args) == 0
    numbers = capsys.readouterr().out.splitlines()[1]
    assert "e+" not in numbers and "/131,072" in numbers
    pool = numbers.split("=")[1].split("/")[0].strip()
    assert len(pool) > 10 and pool.count(",") == (len(pool.replace(",", "")) - 1) // 3
