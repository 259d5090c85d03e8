"""Key-number claims: computed by the engine, compared at the precision they are written with."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.engine.packs.claims import ClaimError, claim_problem, parse_claim, verify_claims
from kvdrill.engine.packs.model import KeyNumber, PackMeta, ParsedCard, ParsedPack

DECKS = Path(__file__).resolve().parent.parent / "decks"

# Figures from the seed pack (Memory and capacity), each as a claim.
TRUE_CLAIMS = [
    "kv_bytes_per_token model=llama-3.1-8b kv_dtype=bf16 = 128 KiB",
    "kv_bytes_per_token model=llama-3.1-8b = 131,072 B",
    "kv_bytes_per_token model=llama-2-7b = 512 KiB",
    "kv_bytes_per_token model=llama-3.1-70b = 320 KiB",
    "kv_bytes_per_sequence model=llama-3.1-8b seq_tokens=4096 = 512 MiB",
    "weight_bytes model=llama-3.1-70b = 141 GB",
    "weight_bytes model=llama-3.1-70b dtype=fp8 = 70.6 GB",
    "weight_bytes model=mixtral-8x7b = 93 GB ±1%",
    "decode_floor_time model=llama-3.1-70b gpu=h100-sxm = 42 ms",
    "decode_floor_time model=llama-3.1-70b gpu=h100-sxm tp=2 = 21 ms",
    "kv_pool_tokens model=llama-3.1-8b pool=54.8GiB = 449k",
    "max_concurrency model=llama-3.1-8b pool=54.8GiB max_model_len=131072 = 3.43x ±0.5%",
    "requests_that_fit kv_pool_tokens=449k request_tokens=1800 = 249",
    "requests_that_fit kv_pool_tokens=533k request_tokens=7000 = 76",
    "extra_kv_tokens model=llama-3.1-8b gpu_mem=79.1GiB gpu_util=0.92 new_gpu_util=0.95 = 19k",
    "max_model_len model=llama-3.1-8b pool=54.8GiB max_concurrency=10 = 45k ±1%",
]

# Issue 12's quantities, each worked by hand (see tests/test_roofline_and_serving_formulas.py).
NEW_QUANTITY_CLAIMS = [
    "prefill_flops model=llama-3.1-8b prompt_tokens=1000 = 16.06 TFLOP",  # 2 x 8.03e9 x 1000
    "decode_flops_per_token model=llama-3.1-8b = 16.06 GFLOP",
    "ridge_point gpu=h100-sxm = 295 FLOP/byte",  # 989e12 / 3.35e12
    "ridge_point gpu=h100-sxm dtype=fp8 = 591",  # 1979e12 / 3.35e12
    "prefill_time_floor model=llama-3.1-8b gpu=h100-sxm prompt_tokens=1000 = 16.2 ms",
    "critical_batch gpu=h100-sxm = 295",  # 295.2 x 2 B / 2
    "speculative_expected_tokens acceptance_rate=0.8 draft_tokens=4 = 3.36",  # 0.67232 / 0.2
    "littles_law_concurrency arrival_rate=10 latency=2.5s = 25",
    "cost_per_million_tokens gpus=8 price_per_gpu_hour=2.5 tokens_per_second=20000 = 0.278",
    "tp_allreduce_bytes_per_token model=llama-3.1-70b tp=8 = 4.375 MiB",  # 4 x 80 x 7/8 x 16 KiB
    "acceptance_rate speculative_expected_tokens=3.3616 draft_tokens=4 = 0.8",
    # FP8 checkpoint with 16-bit embeddings, LM head and norms: vLLM logs 67.72 GiB
    "weight_bytes model=llama-3.1-70b dtype=fp8 unquantized_bits=16 = 67.7 GiB",
]


@pytest.mark.parametrize("text", NEW_QUANTITY_CLAIMS)
def test_claims_on_the_new_quantities_hold(text: str) -> None:
    assert claim_problem(text) is None


def test_a_wrong_ridge_point_claim_fails() -> None:
    # The sparse FP8 figure (3958) would give 1181 FLOP/byte, twice the dense ridge.
    problem = claim_problem("ridge_point gpu=h100-sxm dtype=fp8 = 1181")
    assert problem is not None and "590.7" in problem, problem


@pytest.mark.parametrize("text", TRUE_CLAIMS)
def test_true_claims_hold(text: str) -> None:
    assert claim_problem(text) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("kv_bytes_per_token model=llama-3.1-8b = 120 KiB", "the engine computes 128 KiB"),
        ("kv_bytes_per_token model=llama-3.1-8b = 128 kB", "the engine computes 131.072 kB"),
        ("kv_pool_tokens model=llama-3.1-8b pool=54.8GiB = 448k", "allows 447,500 to 448,500"),
        ("weight_bytes model=llama-3.1-70b = 141 GiB", "131.4"),
        ("kv_bytes_per_token model=llama-3.1-8b = 100 KiB ±10%", "90 to 110 KiB"),
    ],
)
def test_wrong_claims_fail_with_the_numbers(text: str, words: str) -> None:
    problem = claim_problem(text)
    assert problem is not None and words in problem, problem


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("kv_bytes_per_token model=llama-3.1-8b 128 KiB", "no ` = VALUE`"),
        ("= 128 KiB", "names no quantity"),
        ("kv_bytes_per_token model = 1 KiB", "is not name=value"),
        ("kv_bytes_per_tokn model=llama-3.1-8b = 128 KiB", "did you mean kv_bytes_per_token"),
        ("kv_bytes_per_token model=llama-9 = 128 KiB", "unknown model"),
        ("kv_bytes_per_token = 128 KiB", "needs layers"),
        ("kv_bytes_per_token model=llama-3.1-8b = 128 ms", "Cannot convert"),
        ("kv_bytes_per_token model=llama-3.1-8b = 128 KB", "KB is ambiguous"),
        ("kv_bytes_per_token model=llama-3.1-8b tp=0 = 128 KiB", "not a whole number"),
        ("kv_bytes_per_token model=llama-3.1-8b layerz=3 = 1 KiB", "unknown symbol 'layerz'"),
        ("kv_bytes_per_token model=llama-3.1-8b = 128 KiB ±80%", "outside"),
        ("x" * 600 + " = 1", "over 500 characters"),
    ],
)
def test_malformed_claims_say_why(text: str, words: str) -> None:
    problem = claim_problem(text)
    assert problem is not None and problem.startswith("claim"), problem
    assert words in problem, problem


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("kv_bytes_per_token model=llama-3.1-8b 128 KiB", "thiếu ` = VALUE`"),
        ("kv_bytes_per_tokn model=llama-3.1-8b = 128 KiB", "ý bạn là kv_bytes_per_token"),
        ("kv_bytes_per_token model=llama-9 = 128 KiB", "không biết mô hình 'llama-9'"),
        ("kv_bytes_per_token = 128 KiB", "cần layers"),
        ("kv_bytes_per_token model=llama-3.1-8b = 128 ms", "Không thể đổi"),
        ("kv_bytes_per_token model=llama-3.1-8b = 128 KB", "KB không rõ nghĩa"),
        (
            "kv_bytes_per_token model=llama-3.1-8b = 64 KiB",
            "thẻ ghi 64 KiB, engine tính ra 128 KiB",
        ),
    ],
)
def test_a_vietnamese_learner_reads_why_a_claim_fails_in_vietnamese(
    text: str, words: str, vietnamese
) -> None:
    problem = claim_problem(text)
    assert problem is not None and problem.startswith("claim"), problem
    assert words in problem, problem


def test_parse_claim_splits_inputs_and_tolerance() -> None:
    claim = parse_claim("kv_pool_tokens model=llama-3.1-8b pool=54.8GiB = 449k tokens +-2%")
    assert claim.quantity == "kv_pool_tokens"
    assert claim.settings == {"model": "llama-3.1-8b"}
    assert claim.sets == {"pool": "54.8GiB"}
    assert claim.stated == "449k tokens"
    assert claim.tolerance == pytest.approx(0.02)
    with pytest.raises(ClaimError):
        parse_claim("kv_pool_tokens model=a model=b = 1")


def test_precision_follows_the_digits_written() -> None:
    # 448,921.6 tokens: 449k (448.5k-449.5k) holds, 448.9k holds, 448.0k does not.
    base = "kv_pool_tokens model=llama-3.1-8b pool=54.8GiB = "
    assert claim_problem(base + "449k") is None
    assert claim_problem(base + "448.9k") is None
    assert claim_problem(base + "448.0k") is not None
    assert claim_problem(base + "448,922") is None
    assert claim_problem(base + "448,930") is not None  # trailing zero: 448,925 to 448,935


def pack_with(claims: list[tuple[str, int]]) -> ParsedPack:
    card = ParsedCard(
        key="q1",
        kind="recall",
        title="Q1",
        prompt="?",
        answer="!",
        key_numbers=[KeyNumber(text="figure", claim=text, line=line) for text, line in claims],
        line=5,
    )
    return ParsedPack(
        meta=PackMeta(pack="p", title="P", version="1"), cards=[card], path="p.md", content_hash="0"
    )


def test_verify_claims_reports_path_and_line_of_the_wrong_one() -> None:
    pack = pack_with(
        [
            ("kv_bytes_per_token model=llama-3.1-8b = 128 KiB", 12),
            ("kv_bytes_per_token model=llama-3.1-70b = 360 KiB", 13),
        ]
    )
    problems = verify_claims(pack)
    assert [str(p).split(": claim")[0] for p in problems] == ["p.md:13"]
    assert "the card states 360 KiB, the engine computes 320 KiB" in problems[0].message


def test_bundled_packs_claims_all_hold() -> None:
    from kvdrill.app.services.pack_files import parse_paths

    packs, _ = parse_paths([DECKS])
    assert packs, "no bundled pack parsed"
    problems = [problem for pack in packs for problem in verify_claims(pack)]
    assert problems == []


def test_q4_states_the_general_rule_for_requests_that_fit_with_a_claim() -> None:
    from kvdrill.app.services.pack_files import parse_paths

    packs, _ = parse_paths([DECKS / "memory-and-capacity.md"])
    (card,) = [c for c in packs[0].cards if c.key == "vllm-max-concurrency"]
    (rule,) = [k for k in card.key_numbers if k.text.startswith("Requests that fit =")]
    assert "rounded down" in rule.text
    # 100,000 / 7,000 = 14.29: 14 fit, and the claim says so.
    assert rule.claim is not None and rule.claim.startswith("requests_that_fit ")
    assert claim_problem(rule.claim) is None
    assert claim_problem(rule.claim.replace("= 14", "= 15")) is not None


def test_a_claim_carries_the_vllm_version_it_holds_for() -> None:
    from kvdrill.engine.packs.claims import ClaimError, parse_claim, verify_key_numbers
    from kvdrill.engine.packs.model import KeyNumber

    claim = "max_concurrency model=llama-3.1-8b pool=54.8GiB max_model_len=131072 vllm=0.6.5+ = 3.43 ±0.5%"
    assert parse_claim(claim).vllm == "0.6.5+"
    assert parse_claim(claim.replace("0.6.5+", "0.8-0.27")).vllm == "0.8-0.27"
    with pytest.raises(ClaimError, match="not a version"):
        parse_claim(claim.replace("0.6.5+", "latest"))
    named = KeyNumber(text="3.43, as vLLM v0.6.5 on sizes it", claim=claim, line=7)
    unnamed = KeyNumber(text="3.43", claim=claim, line=9)
    problems = verify_key_numbers([named, unnamed], "p.md")
    assert [(p.line, "write v0.6.5" in p.message) for p in problems] == [(9, True)]


def test_a_claim_resting_on_a_release_dependent_vllm_default_must_name_the_releases() -> None:
    """vLLM's default max_num_batched_tokens (8,192 on an H100) holds for v0.8 to v0.27; a
    sliding-window model's concurrency depends on it, so its claim says for which releases."""
    from kvdrill.engine.packs.claims import verify_key_numbers
    from kvdrill.engine.packs.model import KeyNumber

    claim = "max_concurrency model=mistral-7b-v0.1 gpu=h100-sxm max_model_len=32768 = 37.5"
    assert claim_problem(claim) is None  # the figure itself holds
    versioned = claim.replace(" = ", " vllm=0.8-0.27 = ")
    budget_set = claim.replace(" = ", " max_num_batched_tokens=8192 = ")
    items = [
        KeyNumber(text="37.5 at once", claim=claim, line=3),
        KeyNumber(text="37.5 at once in vLLM v0.8 to v0.27", claim=versioned, line=5),
        KeyNumber(text="37.5 at once with a budget of 8,192", claim=budget_set, line=7),
        # A full-attention model does not use the budget: nothing to say.
        KeyNumber(
            text="3.43",
            claim="max_concurrency model=llama-3.1-8b pool=54.8GiB max_model_len=131072 = 3.425",
            line=9,
        ),
    ]
    problems = verify_key_numbers(items, "p.md")
    assert [p.line for p in problems] == [3]
    assert "add vllm=0.8-0.27" in problems[0].message


def test_every_scaled_4_bit_format_states_its_scales_on_a_card_with_a_claim() -> None:
    """The scale assumption (NVFP4: one 8-bit scale per 16 values) is on a card, not only in
    decks/sources/README.md, next to a checked figure in that format."""
    from kvdrill.app.services.pack_files import parse_paths
    from kvdrill.engine.capacity.catalog import DTYPES

    packs, _ = parse_paths([DECKS])
    numbers = [k for pack in packs for card in pack.cards for k in card.key_numbers]
    scaled = [d for d in DTYPES.values() if d.scale_bits]
    assert {d.name for d in scaled} >= {"int4", "fp4"}
    for dtype in scaled:
        stated = [k for k in numbers if k.claim and f"dtype={dtype.name} " in k.claim]
        assert stated, f"no card states a {dtype.name} figure"
        assert claim_problem(stated[0].claim) is None
    # The English card words it; its editions carry the same figures (the edition check).
    (nvfp4,) = [
        k
        for pack in packs
        if pack.meta.lang == "en"
        for card in pack.cards
        for k in card.key_numbers
        if k.claim and "dtype=fp4 " in k.claim
    ]
    assert "one 8-bit scale per 16 values" in nvfp4.text
