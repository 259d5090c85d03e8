"""Problem template validation: what `kvdrill check` says about a ```problem block."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.engine.errors import Located
from kvdrill.engine.packs.checks import extra_checks
from kvdrill.engine.packs.model import ParsedCard
from kvdrill.engine.problems.generator import validate_problem
from kvdrill.engine.problems.template_types import ProblemSpecError
from kvdrill.engine.problems.templates import compile_problem

ROOT = Path(__file__).resolve().parent.parent

GOOD = {
    "ask": "kv_bytes_per_token",
    "vary": {"model": "gqa", "kv_dtype": ["bf16", "fp8"]},
    "prompt": "{model}, {kv_dtype} KV cache: KV bytes per token?",
    "unit": "KiB",
}


def card(problem: dict, line: int = 10) -> ParsedCard:
    return ParsedCard(
        key="gen", kind="problem", title="Gen", problem=problem, problem_line=line, line=line - 2
    )


def messages(problem: dict) -> list[str]:
    return [p.message for p in validate_problem(card(problem), "p.md")]


def test_a_good_template_has_no_errors() -> None:
    assert messages(GOOD) == []


def test_catalog_selectors_and_ranges_compile() -> None:
    problem = compile_problem(
        {
            "ask": "requests_that_fit",
            "vary": {
                "model": ["llama-3.1-8b", "qwen2.5-7b"],
                "gpu": "fp8",
                "request_tokens": {"from": 1000, "to": 8000, "step": 100},
                "gpu_util": [0.85, 0.9],
            },
            "given": {"overhead_bytes": "2 GiB"},
            "constraints": ["weights_fit"],
            "prompt": "{model} on {gpu}: how many {request_tokens}-token requests fit?",
            "unit": "requests",
        }
    )
    sizes = {axis.name: axis.size() for axis in problem.axes}
    assert sizes == {"model": 2, "gpu": 7, "request_tokens": 71, "gpu_util": 2}
    assert problem.given["overhead_bytes"].value == 2 * 2**30


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"ask": "kv_bytes_per_tokn"}, "unknown formula 'kv_bytes_per_tokn' (did you mean"),
        ({"vary": {"modle": "gqa"}}, "unknown name 'modle' (did you mean model"),
        ({"vary": {"model": "llama-9"}}, "unknown model 'llama-9'"),
        ({"vary": {"model": "sparse"}}, "nor a selector"),
        ({"vary": {"kv_dtype": ["bf16", "fp7"]}}, "unknown dtype 'fp7'"),
        ({"vary": {"model": "gqa", "tp": [1, 1.5]}}, "whole number"),
        ({"given": {"gpu_util": "0.9 GiB"}}, "is a size in bytes, but this value is a count"),
        ({"given": {"gpu_util": 1.5}}, "at most 1 (100%)"),
        ({"vary": {"model": "gqa", "layers": [0, 32]}}, "layers must be more than 0"),
        ({"unit": "ms"}, "kv_bytes_per_token is a size in bytes, but the answer unit ms is a time"),
        ({"unit": "KB"}, "KB is ambiguous"),
        ({"prompt": "What about {colour}?"}, "placeholder {colour} names nothing"),
        ({"prompt": "Is it {kv_bytes_per_token}?"}, "would show the answer"),
        ({"prompt": "A stray { brace"}, "lone {"),
        ({"prompt": "{layers:ms} layers"}, "ms does not fit layers"),
        ({"tolerance": "25%"}, "wider lets unit slips through"),
        ({"constraints": ["weight_bytes < 70"]}, "compares a size in bytes with a count"),
        ({"constraints": ["weights_fitt"]}, "named ones: weights_fit"),
        ({"constraints": ["layers > 1000"]}, "no variant meets the constraints"),
        # YAML's true is not the number 1, and infinite or absurd numbers are not values.
        ({"given": {"kv_dtype_bytes": True}}, "kv_dtype_bytes: expected a number, got true"),
        ({"given": {"kv_heads": float("inf")}}, "inf is not a finite number"),
        ({"given": {"kv_heads": float("nan")}}, "nan is not a finite number"),
        ({"given": {"kv_heads": 10**400}}, "is too large"),
        ({"vary": {"model": "gqa", "layers": {"from": 8, "to": float("inf")}}}, "not a finite"),
        ({"vary": {"model": "gqa", "layers": {"from": 8, "to": 1e300}}}, "is too large"),
    ],
)
def test_template_errors_are_reported(change: dict, words: str) -> None:
    found = messages({**GOOD, **change})
    assert any(words in m for m in found), found


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"colour": "red"}, "trường 'colour' không xác định"),
        ({"ask": "kv_bytes_per_tokn"}, "không biết công thức 'kv_bytes_per_tokn' (ý bạn là"),
        ({"vary": {"model": "llama-3.1-8c"}}, "không biết mô hình 'llama-3.1-8c' (ý bạn là"),
        ({"vary": {"model": "sparse"}}, "cũng không phải selector"),
        ({"given": {"gpu_util": 1.5}}, "tối đa 1 (100%)"),
        ({"unit": "ms"}, "nhưng đơn vị đáp án ms là một khoảng thời gian"),
        ({"prompt": "Is it {kv_bytes_per_token}?"}, "sẽ làm lộ đáp án"),
        ({"prompt": "A stray { brace"}, "một dấu { hoặc } đứng riêng"),
        ({"tolerance": "25%"}, "lỗi nhầm đơn vị sẽ lọt qua"),
        ({"constraints": ["layers > 1000"]}, "không biến thể nào thỏa các ràng buộc"),
    ],
)
def test_a_vietnamese_author_reads_the_template_errors_in_vietnamese(
    change: dict, words: str, vietnamese
) -> None:
    found = messages({**GOOD, **change})
    assert any(words in m for m in found), found


def test_missing_required_fields_are_named() -> None:
    found = messages({"vary": {"model": "gqa"}})
    assert any("missing required field 'ask'" in m for m in found)
    assert any("missing required field 'unit'" in m for m in found)


def test_pack_formula_whose_dimension_does_not_match_the_unit() -> None:
    found = messages(
        {
            "ask": "pool_left",
            "formula": {"expr": "pool - used", "symbols": {"pool": "GiB", "used": "GiB"}},
            "given": {"pool": "54.8 GiB", "used": "10 GiB"},
            "prompt": "What is left?",
            "unit": "ms",
        }
    )
    assert any("pool_left is a size in bytes, but the answer unit ms is a time" in m for m in found)


def test_pack_formula_that_adds_bytes_to_a_count() -> None:
    found = messages(
        {
            "ask": "total",
            "formula": {"expr": "pool + tokens", "symbols": {"pool": "GiB", "tokens": "token"}},
            "prompt": "Total?",
            "unit": "GiB",
        }
    )
    assert any("mixes" in m for m in found), found


def test_pack_formula_goes_through_the_whitelisting_parser() -> None:
    found = messages(
        {
            "ask": "x",
            "formula": {"expr": "__import__('os').system('true')", "symbols": {}},
            "prompt": "?",
            "unit": "",
        }
    )
    assert found == ['problem: expr, column 12: character "\'" is not allowed in a formula']


def test_pack_formula_with_unknown_name() -> None:
    found = messages(
        {
            "ask": "x",
            "formula": {"expr": "poool / 2", "symbols": {"pool": "GiB"}},
            "prompt": "?",
            "unit": "GiB",
        }
    )
    assert len(found) == 1 and "unknown name 'poool'" in found[0]


def test_errors_point_at_the_field_line() -> None:
    problems = validate_problem(
        card({**GOOD, "unit": "ms"}), "p.md", key_lines={"ask": 11, "unit": 14}
    )
    assert [(p.path, p.line) for p in problems] == [("p.md", 14)]
    assert str(problems[0]).startswith("p.md:14: problem: ")


def test_compile_error_lists_every_issue() -> None:
    with pytest.raises(ProblemSpecError) as caught:
        compile_problem({**GOOD, "unit": "ms", "prompt": "{nothing}"})
    assert {issue.field for issue in caught.value.issues} == {"unit", "prompt"}


PACK_TEXT = """\
---
pack: t
title: T
version: 1
---

## Gen {#gen}

### Problem

```problem
ask: kv_bytes_per_token
vary:
  model: gqa
prompt: "{model}: KV bytes per token?"
unit: ms
```
"""


def test_extra_checks_reports_path_and_line_of_the_field(tmp_path: Path) -> None:
    """The parser records each field's line; the check points at the field (unit, line 16)."""
    from kvdrill.app.services.pack_files import parse_pack

    path = tmp_path / "t.md"
    path.write_text(PACK_TEXT, encoding="utf-8")
    pack = parse_pack(path)
    (generated,) = [c for c in pack.cards if c.kind == "problem"]
    assert generated.problem_field_lines == {"ask": 12, "vary": 13, "prompt": 15, "unit": 16}
    found = extra_checks(pack)
    assert [(p.line, p.path) for p in found] == [(16, str(path))]
    assert isinstance(found[0], Located)


def test_placeholder_without_a_value_in_any_variant() -> None:
    problems = validate_problem(
        card({**GOOD, "prompt": "{model} on {gpu_mem}?"}), "p.md", key_lines={"prompt": 13}
    )
    assert [(p.line, p.message) for p in problems] == [
        (13, "problem: placeholder {gpu_mem} has no value in this problem")
    ]


def test_bundled_problem_pack_is_clean_and_accepts_its_own_answers() -> None:
    from kvdrill.app.services.pack_files import parse_paths
    from kvdrill.engine.capacity.units import format_quantity
    from kvdrill.engine.problems.checker import check_answer
    from kvdrill.engine.problems.generator import make_variant

    packs, problems = parse_paths([ROOT / "decks" / "problems.md"])
    assert problems == []
    (pack,) = packs
    assert extra_checks(pack) == []
    templates = [c for c in pack.cards if c.kind == "problem"]
    assert 4 <= len(templates) <= 8
    assert all(c.tip for c in templates)
    for template in templates:
        for seed in range(25):
            variant = make_variant(template.problem, f"{pack.meta.pack}/{template.key}", seed)
            typed = format_quantity(variant.expected_value, variant.unit, 6)
            assert check_answer(variant, typed).correct, (template.key, seed, typed)
            assert "{" not in variant.prompt


def test_readme_example_template_is_valid() -> None:
    import re

    import yaml

    text = (ROOT / "decks" / "README.md").read_text(encoding="utf-8")
    block = re.search(r"~~~problem\n(ask: requests_that_fit.*?)~~~", text, re.DOTALL)
    assert block is not None
    assert validate_problem(card(yaml.safe_load(block.group(1))), "README.md") == []


def test_a_template_whose_answer_cannot_be_typed_fails_check() -> None:
    """6.4e82 bytes is a number the answer reader refuses (above 1e30): nobody could answer it."""
    found = messages(
        {
            "ask": "huge",
            "formula": {"expr": "size * 1e30 * 1e30 * 1e20", "symbols": {"size": "B"}},
            "given": {"size": "64 B"},
            "unit": "B",
        }
    )
    assert len(found) == 1
    assert "an answer a learner can type (at most 1e+30 B)" in found[0]


def test_an_answer_just_within_the_reader_s_limit_is_fine() -> None:
    assert (
        messages(
            {
                "ask": "big",
                "formula": {"expr": "size * 1e20", "symbols": {"size": "B"}},
                "given": {"size": "64 B"},
                "unit": "B",
            }
        )
        == []
    )


@pytest.mark.parametrize(
    ("language", "missing", "wrong_type"),
    [
        ("en", "missing required field 'unit'", "must be text"),
        ("vi", "thiếu trường bắt buộc 'unit'", "phải là văn bản"),
    ],
)
def test_pydantics_field_errors_read_in_the_learners_words_and_language(
    language: str, missing: str, wrong_type: str
) -> None:
    from kvdrill.app.services.language import use_language

    use_language(language)
    try:
        with pytest.raises(ProblemSpecError) as caught:
            compile_problem({"ask": ["kv_bytes_per_token"]})
    finally:
        use_language("en")
    assert {(issue.field, issue.message) for issue in caught.value.issues} == {
        ("ask", wrong_type),
        ("unit", missing),
    }
