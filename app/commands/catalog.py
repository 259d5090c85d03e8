"""``kvdrill models`` and ``kvdrill gpus``: list the catalogs with their ids and fields."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from kvdrill.i18n import _


def register(subparsers) -> None:
    models = subparsers.add_parser(
        "models",
        help=_("list the model catalog (ids for --model)"),
        description=_("List the models kvdrill knows, with their architecture fields."),
    )
    models.add_argument("--json", action="store_true", help=_("print a JSON list"))
    models.set_defaults(func=run_models)
    gpus = subparsers.add_parser(
        "gpus",
        help=_("list the GPU catalog (ids for --gpu)"),
        description=_("List the GPUs kvdrill knows, with datasheet memory and bandwidth."),
    )
    gpus.add_argument("--json", action="store_true", help=_("print a JSON list"))
    gpus.set_defaults(func=run_gpus)


def _table(header: list[str], rows: list[list[str]], notes: list[str]) -> str:
    """The catalog as a table of 80 columns: each entry's notes on lines under its row."""
    from kvdrill.app.text_table import table_lines

    return "\n".join(table_lines([header, *rows], rule=True, notes=notes))


def _model_notes(spec) -> str:
    notes = []
    if spec.published_active_params_b:
        notes.append(f"{spec.published_active_params_b:g} B active")
    if spec.moe:
        moe = spec.moe
        shared = f" + {moe.shared_experts} shared" if moe.shared_experts else ""
        notes.append(
            f"MoE {moe.experts} experts{shared}, {moe.active_experts} active, "
            f"expert MLP {moe.expert_intermediate}"
            + (f", {moe.dense_layers} dense layers" if moe.dense_layers else "")
        )
    if spec.mla:
        notes.append(f"MLA latent {spec.mla.kv_lora_rank} + rope {spec.mla.rope_dim}")
    if spec.sliding_window:
        window = spec.sliding_window
        notes.append(f"sliding window {window.window} on {window.sliding_layers} layers")
    if spec.tied_embeddings:
        notes.append("tied embeddings")
    if spec.aliases:
        notes.append("aka " + ", ".join(spec.aliases))
    return "; ".join(notes)


def run_models(args: argparse.Namespace) -> int:
    from kvdrill.engine.capacity.catalog import models

    entries = list(models().values())
    if args.json:
        payload = [
            {**asdict(spec), "attention_kind": spec.attention_kind, "is_moe": spec.is_moe}
            for spec in entries
        ]
        print(json.dumps(payload, indent=2))
        return 0
    header = ["id", "layers", "heads/kv", "head_dim", "hidden", "MLP", "vocab", "params"]
    rows = [
        [
            spec.id,
            str(spec.layers),
            f"{spec.heads}/{spec.kv_heads}" if not spec.mla else f"{spec.heads}/MLA",
            str(spec.head_dim),
            str(spec.hidden),
            str(spec.intermediate),
            str(spec.vocab),
            f"{spec.published_params_b:g} B",
        ]
        for spec in entries
    ]
    print(_table(header, rows, [_model_notes(spec) for spec in entries]))
    return 0


def run_gpus(args: argparse.Namespace) -> int:
    from kvdrill.engine.capacity.catalog import gpus

    entries = list(gpus().values())
    if args.json:
        payload = [
            {
                **asdict(card),
                "visible_memory_bytes": card.visible_memory_bytes,
                "bandwidth_bytes_per_s": card.bandwidth_bytes_per_s,
            }
            for card in entries
        ]
        print(json.dumps(payload, indent=2))
        return 0
    header = ["id", "name", "memory", "bandwidth", "BF16 TFLOP/s", "FP8 TFLOP/s"]
    rows = [
        [
            card.id,
            card.name,
            f"{card.memory_gb:g} GB",
            f"{card.bandwidth_tbps:g} TB/s",
            f"{card.bf16_tflops:g}",
            f"{card.fp8_tflops:g}" if card.fp8_tflops else "no",
        ]
        for card in entries
    ]
    notes = [
        "; ".join(
            n
            for n in (
                card.memory_note.rstrip("."),
                "FP4 too" if card.fp4 else "",
                f"CUDA sees {card.visible_memory_gib:g} GiB",
                "aka " + ", ".join(card.aliases) if card.aliases else "",
            )
            if n
        )
        for card in entries
    ]
    print(_table(header, rows, notes))
    from kvdrill.app.text_table import wrapped

    print(
        "\n".join(
            wrapped(
                "Memory in decimal GB (80 GB = 80e9 bytes), bandwidth in decimal TB/s and dense "
                "TFLOP/s (no sparsity), as on datasheets; pools start from what CUDA sees where "
                "a vLLM log shows it (kvdrill gpus --json: source)."
            )
        )
    )
    return 0
