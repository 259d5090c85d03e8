"""The model and GPU catalogs: complete, validated, looked up by id or alias, listed by the CLI."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.engine.capacity.catalog import (
    DTYPES,
    GpuSpec,
    ModelSpec,
    get_dtype,
    get_gpu,
    get_model,
    gpus,
    load_entries,
    models,
)
from kvdrill.engine.capacity.formulas import inputs_from
from kvdrill.engine.errors import UserError

MODEL_IDS = {
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "mistral-7b-v0.1",
    "mixtral-8x7b",
    "qwen2.5-7b",
    "qwen2.5-72b",
    "gemma-2-9b",
    "deepseek-v3",
}
GPU_IDS = {
    "a100-40gb",
    "a100-80gb",
    "h100-sxm",
    "h100-pcie",
    "h200",
    "b200",
    "l40s",
    "l4",
    "mi300x",
}


def test_every_reference_model_and_gpu_is_in_the_catalog_with_a_source() -> None:
    assert MODEL_IDS <= set(models())
    assert GPU_IDS <= set(gpus())
    assert all(entry.source.strip() for entry in [*models().values(), *gpus().values()])


def test_head_dim_is_explicit_not_hidden_over_heads() -> None:
    gemma = get_model("gemma-2-9b")
    assert gemma.head_dim == 256
    assert gemma.hidden // gemma.heads == 224  # the trap a derived head_dim falls into


def test_architecture_features_are_represented() -> None:
    mixtral = get_model("mixtral-8x7b")
    assert (mixtral.moe.experts, mixtral.moe.active_experts) == (8, 2)
    deepseek = get_model("deepseek-v3")
    assert deepseek.attention_kind == "mla"
    assert (deepseek.mla.kv_lora_rank, deepseek.mla.rope_dim) == (512, 64)
    assert (deepseek.moe.experts, deepseek.moe.shared_experts, deepseek.moe.dense_layers) == (
        256,
        1,
        3,
    )
    assert get_model("gemma-2-9b").tied_embeddings
    assert get_model("gemma-2-9b").sliding_window.sliding_layers == 21
    assert get_model("llama-2-7b").attention_kind == "mha"
    assert get_model("llama-3.1-8b").attention_kind == "gqa"


def test_seed_names_resolve_to_the_same_architecture() -> None:
    # Llama 3 is Llama 3.1's architecture with its own context: 8,192 (Meta-Llama-3-8B and
    # -70B config.json), not the 131,072 of 3.1, so a max_model_len above it is refused.
    for seed_name, model_id in (("Llama 3 8B", "llama-3.1-8b"), ("llama_3_70b", "llama-3.1-70b")):
        llama_3, llama_3_1 = get_model(seed_name), get_model(model_id)
        assert llama_3.id != llama_3_1.id
        assert (llama_3.layers, llama_3.kv_heads, llama_3.head_dim, llama_3.hidden) == (
            llama_3_1.layers,
            llama_3_1.kv_heads,
            llama_3_1.head_dim,
            llama_3_1.hidden,
        )
        assert (llama_3.max_context, llama_3_1.max_context) == (8192, 131072)
    assert get_model("llama3-8b").id == get_model("llama-3-8b-instruct").id == "llama-3-8b"
    assert get_gpu("H100").id == "h100-sxm"


def test_gpu_memory_is_never_the_datasheet_label_read_as_decimal_bytes() -> None:
    # HBM is binary-sized: an "80 GB" A100 holds 80 GiB, of which CUDA reports 79.15 GiB
    # (a vLLM 0.8.2 log). Read as 80e9 bytes it would be 74.5 GiB, 6 % short.
    a100 = get_gpu("a100-80gb")
    assert a100.visible_memory_bytes == 79.15 * 2**30
    assert a100.visible_memory_bytes > 80e9
    h100 = get_gpu("h100-sxm")
    assert not hasattr(h100, "memory_bytes")
    assert h100.bandwidth_bytes_per_s == 3.35e12
    assert get_gpu("a100-40gb").fp8 is False


def test_dtype_sizes() -> None:
    assert {name: d.bytes for name, d in DTYPES.items()} == {
        "fp32": 4,
        "bf16": 2,
        "fp16": 2,
        "fp8": 1,
        "int8": 1,
        "int4": 0.5,
        "fp4": 0.5,
    }
    assert get_dtype("int4").scale_bits > 0
    assert get_dtype("BF16").name == "bf16"


def test_unknown_names_list_close_matches() -> None:
    with pytest.raises(UserError, match="did you mean.*llama-3.1-8b"):
        get_model("llama-3.1-8")
    with pytest.raises(UserError, match="did you mean.*h100"):
        get_gpu("h10")
    with pytest.raises(UserError, match="bf16"):
        get_dtype("bf61")


def test_a_catalog_file_with_an_unknown_key_is_rejected(tmp_path: Path) -> None:
    entry = {k: v for k, v in asdict(get_model("llama-2-7b")).items() if v is not None}
    entry["kv_head"] = 8  # a typo must not pass silently
    path = tmp_path / "models.yaml"
    path.write_text(json.dumps([entry]), encoding="utf-8")  # JSON is valid YAML
    with pytest.raises(UserError, match="kv_head"):
        load_entries(path, ModelSpec)


def test_models_and_gpus_commands_list_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models"]) == 0
    text = capsys.readouterr().out
    assert all(model_id in text for model_id in MODEL_IDS)
    assert main(["gpus", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {g["id"] for g in listed} >= GPU_IDS
    assert next(g for g in listed if g["id"] == "h100-sxm")["visible_memory_bytes"] == (
        79.22 * 2**30
    )
    assert main(["models", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert next(m for m in listed if m["id"] == "deepseek-v3")["attention_kind"] == "mla"


# Dense FP8 TFLOP/s: half of each datasheet's "with sparsity" figure (H100 SXM 3,958 -> 1,979).
DENSE_FP8 = {
    "h100-sxm": 1979,
    "h100-pcie": 1513,
    "h200": 1979,
    "b200": 4500,
    "l40s": 733,
    "l4": 242,
    "mi300x": 2615,
}


def test_gpus_with_fp8_tensor_cores_carry_their_dense_fp8_figure() -> None:
    assert {g.id: g.fp8_tflops for g in gpus().values() if g.fp8} == DENSE_FP8
    assert get_gpu("a100-80gb").fp8_tflops is None
    # Dense FP8 is twice dense BF16 on every GPU that has it; a sparse figure would be 4x.
    # (L40S's datasheet prints 733 against 362.05, 2.02x.)
    for gpu_id, fp8 in DENSE_FP8.items():
        assert fp8 / get_gpu(gpu_id).bf16_tflops == pytest.approx(2, rel=0.015)


def test_an_fp8_figure_without_fp8_tensor_cores_is_rejected(tmp_path: Path) -> None:
    entry = {k: v for k, v in asdict(get_gpu("a100-80gb")).items() if v is not None}
    entry["fp8_tflops"] = 624  # A100 has no FP8 tensor cores
    path = tmp_path / "gpus.yaml"
    path.write_text(json.dumps([entry]), encoding="utf-8")
    with pytest.raises(UserError, match="fp8_tflops"):
        load_entries(path, GpuSpec)


def test_pool_figures_start_from_the_memory_vllm_logs() -> None:
    from kvdrill.engine.capacity.compute import compute

    h100 = get_gpu("h100-sxm")
    assert h100.visible_memory_bytes == 79.22 * 2**30  # vLLM PR #10511's total_gpu_memory
    assert "10511" in h100.visible_memory_source
    # HBM is sized in binary units: an "80 GB" H100 carries 80 GiB, of which the driver keeps a
    # little. Every logged total lies below the datasheet number read as GiB, and cites its log.
    for card in gpus().values():
        # GDDR6 parts with ECC on (L4, L40S) keep more back than HBM ones.
        assert 0.9 * card.memory_gb < card.visible_memory_gib < card.memory_gb, card.id
        source = card.visible_memory_source
        assert any(word in source for word in ("total_gpu_memory", "CUDA total", "nvidia-smi"))
    # 79.22 GiB x 0.9 - 14.96 GiB of weights - 1.5 GiB = 54.84 GiB; 28,078 blocks of 2 MiB
    # over 8,192 blocks per 131,072-token request = 3.427, within 1 % of vLLM's "3.43x".
    got = compute(
        "max_concurrency",
        model="llama-3.1-8b",
        gpu="h100-sxm",
        overrides={"max_model_len": 131072},
    )
    assert got.value == pytest.approx(3.43, rel=0.01)
    assert got.value == 28_078 / 8_192


def test_b200_is_the_180_gb_hgx_part_not_the_192_gb_announcement() -> None:
    assert get_gpu("b200").memory_gb == 180
    assert get_gpu("b200").visible_memory_gib < 180


def test_an_instruct_checkpoint_keeps_its_own_context() -> None:
    # Qwen2.5-7B-Instruct's config.json says 32,768; the base model's 131,072 needs YaRN there.
    base, instruct = get_model("qwen2.5-7b"), get_model("qwen2.5-7b-instruct")
    assert (base.max_context, instruct.max_context) == (131_072, 32_768)
    assert instruct.layers == base.layers and instruct.kv_heads == base.kv_heads
    assert get_model("Qwen2.5 72B Instruct").max_context == 32_768
    assert base.published_params_b == 7.61  # the model card's figure
    with pytest.raises(UserError, match="above its context of 32,768"):
        inputs_from("qwen2.5-7b-instruct", overrides={"max_model_len": 131_072})


def test_the_sources_page_lists_every_gpu_with_its_visible_memory() -> None:
    page = (Path(__file__).resolve().parent.parent / "decks" / "sources" / "README.md").read_text(
        encoding="utf-8"
    )
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    first_cells = {row.split("|")[1].strip(): row for row in rows}
    for card in gpus().values():
        # "H200 (SXM)" lists the H200; "L40S" does not list the L4.
        row = next((r for cell, r in first_cells.items() if cell.split(" (")[0] == card.name), None)
        assert row is not None, card.name
        assert f"| {card.visible_memory_gib:g} |" in row, card.name
