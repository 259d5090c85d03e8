"""``kvdrill models`` and ``kvdrill gpus``: list the catalogs with their ids and fields."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from kvdrill.app.shown_numbers import short
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
        notes.append(_("{params} B active").format(params=short(spec.published_active_params_b)))
    if spec.moe:
        moe = spec.moe
        shared = (
            _(" + {count} shared").format(count=moe.shared_experts) if moe.shared_experts else ""
        )
        dense = (
            _(", {count} dense layers").format(count=moe.dense_layers) if moe.dense_layers else ""
        )
        notes.append(
            _("MoE {experts} experts{shared}, {active} active, expert MLP {mlp}{dense}").format(
                experts=moe.experts,
                shared=shared,
                active=moe.active_experts,
                mlp=moe.expert_intermediate,
                dense=dense,
            )
        )
    if spec.mla:
        notes.append(
            _("MLA latent {rank} + rope {rope}").format(
                rank=spec.mla.kv_lora_rank, rope=spec.mla.rope_dim
            )
        )
    if spec.sliding_window:
        window = spec.sliding_window
        notes.append(
            _("sliding window {window} on {count} layers").format(
                window=window.window, count=window.sliding_layers
            )
        )
    if spec.tied_embeddings:
        notes.append(_("tied embeddings"))
    if spec.aliases:
        notes.append(_("aka {aliases}").format(aliases=", ".join(spec.aliases)))
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
    header = [
        _("id"),
        _("layers"),
        _("heads/kv"),
        "head_dim",
        _("hidden"),
        "MLP",
        _("vocab"),
        _("params"),
    ]
    rows = [
        [
            spec.id,
            str(spec.layers),
            f"{spec.heads}/{spec.kv_heads}" if not spec.mla else f"{spec.heads}/MLA",
            str(spec.head_dim),
            str(spec.hidden),
            str(spec.intermediate),
            str(spec.vocab),
            f"{short(spec.published_params_b)} B",
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
    header = [_("id"), _("name"), _("memory"), _("bandwidth"), "BF16 TFLOP/s", "FP8 TFLOP/s"]
    rows = [
        [
            card.id,
            card.name,
            f"{short(card.memory_gb)} GB",
            f"{short(card.bandwidth_tbps)} TB/s",
            short(card.bf16_tflops),
            short(card.fp8_tflops) if card.fp8_tflops else _("no"),
        ]
        for card in entries
    ]
    notes = [
        "; ".join(
            n
            for n in (
                _(card.memory_note).rstrip("."),
                _("FP4 too") if card.fp4 else "",
                _("CUDA sees {memory} GiB").format(memory=short(card.visible_memory_gib)),
                _("aka {aliases}").format(aliases=", ".join(card.aliases)) if card.aliases else "",
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
                _(
                    "Memory in decimal GB (80 GB = 80e9 bytes), bandwidth in decimal TB/s and "
                    "dense TFLOP/s (no sparsity), as on datasheets; pools start from what CUDA "
                    "sees where a vLLM log shows it (kvdrill gpus --json: source)."
                )
            )
        )
    )
    return 0
