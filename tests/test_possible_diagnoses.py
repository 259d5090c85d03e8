"""A diagnosis names only a mistake the prompt makes possible (issue 23, item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.app.services.pack_files import parse_paths
from kvdrill.engine.capacity.units import format_quantity
from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant
from kvdrill.engine.problems.types import Variant

DECKS = Path(__file__).resolve().parent.parent / "decks"
SEEDS = range(20)


@pytest.fixture(scope="module")
def templates() -> dict[str, tuple[str, dict]]:
    packs, _ = parse_paths([DECKS])
    return {
        card.key: (f"{pack.meta.pack}/{card.key}", card.problem)
        for pack in packs
        if pack.meta.lang == "en"
        for card in pack.cards
        if card.kind == "problem"
    }


def variants(templates: dict[str, tuple[str, dict]], key: str) -> list[Variant]:
    template_id, spec = templates[key]
    return [make_variant(spec, template_id, seed) for seed in SEEDS]


def typed(variant: Variant, value: float) -> str:
    return format_quantity(value, variant.unit, 6)


def test_the_right_number_in_gigabytes_is_bits_and_bytes_not_attention_heads(templates) -> None:
    # The prompt gives the KV bytes per token: no head count enters the learner's sum.
    for variant in variants(templates, "gen-kv-link-bandwidth"):
        verdict = check_answer(variant, f"{variant.expected_value:.6g} GB/s")
        assert verdict.mistake == "bits_vs_bytes", (variant.seed, verdict.diagnosis)


@pytest.mark.parametrize(
    "key",
    [
        "gen-kv-per-request",
        "gen-prefix-sharing-saving",
        "gen-kv-transfer-time",
        "gen-kv-link-bandwidth",
    ],
)
def test_no_kv_structure_mistake_where_the_prompt_states_the_kv_per_token(templates, key) -> None:
    for variant in variants(templates, key):
        assert variant.context["kv_stated"] is True
        assert "per token" in variant.prompt
        for ratio in (8, 1 / 8, 2, 1 / 2, 4, 1 / 4):
            verdict = check_answer(variant, typed(variant, variant.expected_value * ratio))
            assert verdict.mistake not in ("attention_heads", "kv_factor_2", "mla_factor_2")


@pytest.mark.parametrize("key", ["gen-block-bytes", "gen-kv-per-gpu-tp"])
def test_no_attention_heads_where_the_prompt_gives_only_the_kv_heads(templates, key) -> None:
    for variant in variants(templates, key):
        assert "attention heads" not in variant.prompt
        for ratio in (8, 4, 16):
            verdict = check_answer(variant, typed(variant, variant.expected_value * ratio))
            assert verdict.mistake != "attention_heads", (variant.seed, verdict.diagnosis)


@pytest.mark.parametrize(
    "key",
    [
        "gen-prefill-floor",
        "gen-prefix-hit-time",
        "gen-prefill-time-floor",
        "gen-recompute-time",
        "gen-weight-quant-gain",
    ],
)
def test_a_forgotten_tensor_parallel_split_is_named(templates, key) -> None:
    split = [v for v in variants(templates, key) if (v.context.get("tp") or 1) > 1]
    assert split
    for variant in split:
        wrong = typed(variant, variant.expected_value * variant.context["tp"])
        assert check_answer(variant, wrong).mistake == "tp_missing", variant.seed


def test_a_forgotten_spare_replica_is_not_a_near_miss(templates) -> None:
    for variant in variants(templates, "gen-replicas-for-peak"):
        verdict = check_answer(variant, typed(variant, variant.expected_value - 1))
        assert not verdict.correct
        assert verdict.mistake == "rounded_down", variant.seed
        assert "digits" not in (verdict.diagnosis or "")


def test_a_forgotten_gpu_count_is_named(templates) -> None:
    several = [v for v in variants(templates, "gen-gpu-hours-per-million") if v.context["gpus"] > 1]
    assert several
    for variant in several:
        wrong = typed(variant, variant.expected_value / variant.context["gpus"])
        assert check_answer(variant, wrong).mistake == "gpus_missing", variant.seed


def test_weights_in_gb_read_as_gib_on_the_decode_floor_are_named(templates) -> None:
    for variant in variants(templates, "gen-decode-floor"):
        wrong = typed(variant, variant.expected_value * 2**30 / 1e9)
        assert check_answer(variant, wrong).mistake == "gb_read_as_gib", variant.seed
