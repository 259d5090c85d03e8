"""``kvdrill calc`` as a person reads it: the printed line, not the JSON (tests/test_calc_cli.py
pins the JSON values). Every example in ``kvdrill calc --help`` runs and prints the figure the
seed pack and the README quote, in the words a user would paste into a chat.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from kvdrill.app.cli import main
from kvdrill.app.commands.calc import EXAMPLES

# An example too long for 80 columns goes on with a backslash, as a shell reads it.
HELP_EXAMPLES = [
    line.strip().removeprefix("kvdrill ")
    for line in EXAMPLES.replace("\\\n", " ").splitlines()
    if line.strip().startswith("kvdrill calc ")
]

# The printed line of each --help example, in order.
HELP_EXAMPLE_LINES = [
    "kv_bytes_per_token = 128 KiB",
    "weight_bytes = 70.55 GB",
    "decode_floor_time = 21.06 ms",
    "max_concurrency = 3.425",
    "requests_that_fit = 76 requests",
    "max_model_len = 44,892 tokens",
    # vLLM prints 3.43x: 79.22 GiB x 0.9 - 14.96 GiB weights - 1.5 GiB overhead = 54.84 GiB,
    # floor(54.84 GiB / 2 MiB per block) = 28,078 blocks / 8,192 per request = 3.427
    "max_concurrency = 3.427",
    "prefill_flops = 16.06 TFLOP",  # 2 x 8,030,261,248 x 1000
    "acceptance_rate = 0.7413",  # (1 - a^5) / (1 - a) = 3 at a = 0.7413
]

# Seed-pack figures as calc prints them without --unit (its own choice of unit).
PLAIN_LINES = [
    ("kv_bytes_per_token --model llama-2-7b", "kv_bytes_per_token = 512 KiB"),
    ("kv_bytes_per_token --model llama-3-70b", "kv_bytes_per_token = 320 KiB"),
    ("kv_bytes_per_token --model llama-3.1-8b --kv-dtype fp8", "kv_bytes_per_token = 64 KiB"),
    ("weight_bytes --model llama-3-70b", "weight_bytes = 131.4 GiB (141.1 GB)"),
    ("decode_floor_time --model llama-3-70b --gpu h100", "decode_floor_time = 42.12 ms"),
    (
        "kv_pool_tokens --model llama-3.1-8b --set pool=54.8GiB",
        "kv_pool_tokens = 448,922 tokens",
    ),
    (
        "requests_that_fit --model llama-3.1-8b --set pool=54.8GiB --set request_tokens=1800",
        "requests_that_fit = 249 requests",
    ),
    (
        "extra_kv_tokens --model llama-3-8b --set gpu_mem=79.1GiB --set util=92% --set new_util=95%",
        "extra_kv_tokens = 19,440 tokens",
    ),
    (
        "weight_quant_gain_tokens --model llama-3-8b --set weights=15GiB",
        "weight_quant_gain_tokens = 61,440 tokens",
    ),
    ("model_params --model llama-3.1-8b", "model_params = 8,030,261,248 (8.03 B)"),
    (
        "max_concurrency --model llama-3.1-8b --set pool=54.8GiB --unit x",
        "max_concurrency = 3.425x",
    ),
]


def printed(capsys: pytest.CaptureFixture[str], command: str) -> list[str]:
    assert main(shlex.split(command)) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out.splitlines()


def test_the_help_lists_the_examples_checked_here() -> None:
    assert len(HELP_EXAMPLES) == len(HELP_EXAMPLE_LINES)


@pytest.mark.parametrize(("command", "line"), zip(HELP_EXAMPLES, HELP_EXAMPLE_LINES, strict=True))
def test_every_help_example_prints_its_figure(
    capsys: pytest.CaptureFixture[str], command: str, line: str
) -> None:
    assert printed(capsys, command) == [line]


@pytest.mark.parametrize(("args", "line"), PLAIN_LINES, ids=[line for _, line in PLAIN_LINES])
def test_seed_figures_as_printed(capsys: pytest.CaptureFixture[str], args: str, line: str) -> None:
    assert printed(capsys, f"calc {args}") == [line]


def test_explain_shows_the_numbers_of_the_model_asked(capsys: pytest.CaptureFixture[str]) -> None:
    lines = printed(capsys, "calc kv_bytes_per_token --model llama-2-7b --explain")
    assert lines[0].startswith("kv_bytes_per_token = 2 x head_dim x kv_dtype_bytes x layers")
    assert lines[1].endswith("= 2 x 128 x 2 x 32 x max(1, floor(32/1))")
    assert lines[-1] == "kv_bytes_per_token = 512 KiB"


def test_solving_backwards_explains_what_it_solved(capsys: pytest.CaptureFixture[str]) -> None:
    lines = printed(
        capsys,
        "calc request_tokens --model llama-3.1-8b --set pool=54.8GiB "
        "--set requests_that_fit=187 --explain",
    )
    assert lines[1].startswith("solved for request_tokens with requests_that_fit=187")
    assert lines[-1] == "request_tokens = 2,401 tokens"


def test_the_installed_command_prints_the_same_line() -> None:
    """The console script, in a fresh process: start-up path, imports and exit code."""
    done = subprocess.run(
        [sys.executable, "-m", "app", "calc", "kv_bytes_per_token", "--model", "llama-3.1-8b"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, HELP_EXAMPLE_LINES[0] + "\n", "")


def test_list_with_json_is_json_a_script_can_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calc", "--list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    names = {quantity["name"] for quantity in listing["quantities"]}
    assert {"kv_bytes_per_token", "kv_bytes_per_token_mla", "max_concurrency"} <= names
    units = {symbol["name"]: symbol["unit"] for symbol in listing["symbols"]}
    assert (units["block_size"], units["gpu_mem"]) == ("token", "byte")
    assert listing["aliases"]["pool"] == "kv_pool_bytes"
