"""An edition (front matter ``edition_of:``) must be its original in another language: the
checker reports each missing or extra card id, changed structure and changed number as
``file:line: what is wrong``."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.app.services.importing import read_packs

pytestmark = pytest.mark.unit

ORIGINAL = """---
pack: kv-basics
title: KV basics
version: 1
---

## KV bytes per token {#kv-per-token}

### Prompt
How many bytes does one token of Llama 3.1 8B add?

### Answer
2 × 32 × 8 × 128 × 2 B = 131,072 B.

### Key numbers
- Llama 3.1 8B: 128 KiB per token (131,072 B) `claim: kv_bytes_per_token model=llama-3.1-8b kv_dtype=bf16 = 128 KiB`

### Follow-up
Q: And a 4,096-token chat?

A: 512 MiB.

## What doubles the pool? {#double-the-pool}

### Prompt
Which change doubles the tokens?

### Choices
- [ ] 8-bit weights
- [x] FP8 KV cache
"""

EDITION = """---
pack: kv-basics-vi
title: KV cơ bản
version: 1
lang: vi
edition_of: kv-basics
---

Số viết theo quy ước tiếng Việt: dấu chấm ngăn hàng nghìn, dấu phẩy thập phân (131.072 B; 3,43).

## Số byte KV mỗi token {#kv-per-token}

### Prompt
Mỗi token của Llama 3.1 8B thêm bao nhiêu byte?

### Answer
2 × 32 × 8 × 128 × 2 B = 131.072 B.

### Key numbers
- Llama 3.1 8B: 128 KiB mỗi token (131.072 B) `claim: kv_bytes_per_token model=llama-3.1-8b kv_dtype=bf16 = 128 KiB`

### Follow-up
Q: Còn một cuộc chat 4.096 token?

A: 512 MiB.

## Điều gì nhân đôi vùng nhớ? {#double-the-pool}

### Prompt
Thay đổi nào nhân đôi số token?

### Choices
- [ ] Trọng số 8 bit
- [x] KV cache FP8
"""


def _check(tmp_path: Path, edition: str) -> list[str]:
    (tmp_path / "kv-basics.md").write_text(ORIGINAL, encoding="utf-8")
    (tmp_path / "kv-basics-vi.md").write_text(edition, encoding="utf-8")
    return [str(problem) for problem in read_packs([tmp_path]).problems]


def test_a_faithful_edition_checks_clean(tmp_path: Path) -> None:
    assert _check(tmp_path, EDITION) == []


def test_a_missing_and_an_extra_card_id_are_errors_at_their_lines(tmp_path: Path) -> None:
    problems = _check(tmp_path, EDITION.replace("{#double-the-pool}", "{#double-pool}"))
    where = str(tmp_path / "kv-basics-vi.md")
    assert any(
        p.startswith(f"{where}:6: card {{#double-the-pool}} of kv-basics") and "missing" in p
        for p in problems
    ), problems
    assert any(
        p.startswith(f"{where}:27: card {{#double-pool}} is not in kv-basics") for p in problems
    )


def test_a_vietnamese_edition_writes_numbers_the_vietnamese_way(tmp_path: Path) -> None:
    # 131.072 and 4.096 above are the original's 131,072 and 4,096; a decimal is 3,43
    edition = EDITION.replace(
        "mỗi token (131.072 B)", "mỗi token (131.072 B, 0,5 MiB cho 4.096 token)"
    )
    original = ORIGINAL.replace(
        "per token (131,072 B)", "per token (131,072 B, 0.5 MiB for 4,096 tokens)"
    )
    (tmp_path / "kv-basics.md").write_text(original, encoding="utf-8")
    (tmp_path / "kv-basics-vi.md").write_text(edition, encoding="utf-8")
    assert [str(problem) for problem in read_packs([tmp_path]).problems] == []


def test_a_number_still_written_the_english_way_is_refused_with_the_form_to_write(
    tmp_path: Path,
) -> None:
    edition = (
        EDITION.replace("= 131.072 B.", "= 131,072 B, 0.5 MiB.")
        .replace("mỗi token (131.072 B)", "mỗi token (131,072 B)")
        .replace("chat 4.096 token", "chat 4,096 token")
    )
    original = ORIGINAL.replace("= 131,072 B.", "= 131,072 B, 0.5 MiB.")
    (tmp_path / "kv-basics.md").write_text(original, encoding="utf-8")
    where = tmp_path / "kv-basics-vi.md"
    where.write_text(edition, encoding="utf-8")
    problems = sorted(str(problem) for problem in read_packs([tmp_path]).problems)
    english = "the way kv-basics writes numbers (131,072, 3.43): in this pack write"
    assert problems == [
        f"{where}:17: 0.5 is written {english} 0,5",
        f"{where}:17: 131,072 is written {english} 131.072",
        f"{where}:20: 131,072 is written {english} 131.072",
        f"{where}:20: the key number's figures differ from {tmp_path / 'kv-basics.md'}:16: "
        "131,072 here, 131,072 there (this pack writes numbers as in 131.072, 3,43)",
        f"{where}:23: 4,096 is written {english} 4.096",
    ]


def test_the_english_form_is_refused_where_the_original_has_the_value_elsewhere(
    tmp_path: Path,
) -> None:
    # the introduction's example: the original's introduction has no 131,072, its card has
    problems = _check(tmp_path, EDITION.replace("phân (131.072 B; 3,43)", "phân (131,072 B; 3,43)"))
    where = tmp_path / "kv-basics-vi.md"
    assert problems == [
        f"{where}:9: 131,072 is written the way kv-basics writes numbers (131,072, 3.43): in "
        "this pack write 131.072"
    ]


def test_names_code_and_claims_keep_the_engineering_forms(tmp_path: Path) -> None:
    # Llama 3.1 (even wrapped onto the next line), vLLM 0.6.5, v0.21, FP8, a code span and
    # the claim are not for reading: the edition writes them as the original does
    text = "Llama 3.1 8B, vLLM 0.6.5 or v0.21, FP8, `gpu_util=0.92`: 0.5 of {unit}."
    original = ORIGINAL.replace(
        "How many bytes does one token of Llama 3.1 8B add?",
        "How many bytes does one token add? " + text.format(unit="it") + "\nLlama\n3.1 70B.",
    )
    edition = EDITION.replace(
        "Mỗi token của Llama 3.1 8B thêm bao nhiêu byte?",
        "Mỗi token thêm bao nhiêu byte? "
        + text.format(unit="nó").replace(": 0.5", ": 0,5")
        + "\nLlama\n3.1 70B.",
    )
    (tmp_path / "kv-basics.md").write_text(original, encoding="utf-8")
    (tmp_path / "kv-basics-vi.md").write_text(edition, encoding="utf-8")
    assert [str(problem) for problem in read_packs([tmp_path]).problems] == []


def test_a_decimal_the_original_has_may_have_three_places(tmp_path: Path) -> None:
    # 4,125 reads as 4125 in English but 4.125 here: the original's 4.125 says which
    original = ORIGINAL.replace("A: 512 MiB.", "A: 512 MiB; 4.125 bits a weight.")
    edition = EDITION.replace("A: 512 MiB.", "A: 512 MiB; 4,125 bit mỗi trọng số.")
    (tmp_path / "kv-basics.md").write_text(original, encoding="utf-8")
    (tmp_path / "kv-basics-vi.md").write_text(edition, encoding="utf-8")
    assert [str(problem) for problem in read_packs([tmp_path]).problems] == []
    (tmp_path / "kv-basics.md").write_text(
        original.replace("4.125 bits", "4,125 bits"), encoding="utf-8"
    )
    (problem,) = read_packs([tmp_path]).problems
    assert str(problem).endswith(
        ": 4,125 is written the way kv-basics writes numbers "
        "(131,072, 3.43): in this pack write 4.125"
    )


def test_a_changed_claim_and_a_changed_answer_are_caught(tmp_path: Path) -> None:
    edition = EDITION.replace("= 128 KiB`", "= 128.0 KiB`").replace(
        "- [ ] Trọng số 8 bit\n- [x]", "- [x] Trọng số 8 bit\n- [ ]"
    )
    problems = _check(tmp_path, edition)
    assert any(":20: the claim differs from" in p for p in problems), problems
    assert any("marks other choices correct" in p for p in problems), problems


def test_a_dropped_follow_up_is_a_missing_card(tmp_path: Path) -> None:
    edition = EDITION.replace(
        "### Follow-up\nQ: Còn một cuộc chat 4.096 token?\n\nA: 512 MiB.\n", ""
    )
    problems = _check(tmp_path, edition)
    assert any("card {#kv-per-token/follow-up} of kv-basics" in p for p in problems), problems


def test_an_edition_of_an_unknown_pack_says_so(tmp_path: Path) -> None:
    problems = _check(tmp_path, EDITION.replace("edition_of: kv-basics", "edition_of: kv-basic"))
    assert any(":6: edition_of: there is no pack kv-basic" in p for p in problems), problems


def test_check_shows_each_packs_edition_or_that_it_has_none(tmp_path: Path, capsys) -> None:
    import json

    from kvdrill.app.cli import main

    (tmp_path / "kv-basics.md").write_text(ORIGINAL, encoding="utf-8")
    (tmp_path / "kv-basics-vi.md").write_text(EDITION, encoding="utf-8")
    solo = ORIGINAL.replace("pack: kv-basics", "pack: solo")
    (tmp_path / "solo.md").write_text(solo, encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Editions:"
    assert f"  kv-basics ({tmp_path / 'kv-basics.md'}): vi: kv-basics-vi" in out
    assert f"  solo ({tmp_path / 'solo.md'}): vi: no edition" in out
    assert out[-1] == "3 packs, 9 cards, 0 errors"
    assert main(["check", "--json", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["editions"] == {"kv-basics": {"vi": "kv-basics-vi"}, "solo": {}}


def test_a_template_may_name_its_unit_in_the_editions_words_only(tmp_path: Path) -> None:
    template = """
## Requests {{#gen-requests}}

### Problem

~~~problem
ask: requests
formula:
  expr: floor(kv_pool_tokens / prompt_tokens)
  symbols: {{prompt_tokens: token}}
vary:
  kv_pool_tokens: {{from: 200000, to: 900000, step: 1000}}
  prompt_tokens: [500, 1000]
prompt: |
  {words}
unit: {unit}
~~~
"""
    english = ORIGINAL + template.format(words="How many requests fit?", unit="requests")
    (tmp_path / "kv-basics.md").write_text(english, encoding="utf-8")

    def problems(unit: str) -> list[str]:
        edition = EDITION + template.format(words="Bao nhiêu yêu cầu?", unit=unit)
        (tmp_path / "kv-basics-vi.md").write_text(edition, encoding="utf-8")
        return [str(problem) for problem in read_packs([tmp_path]).problems]

    assert problems("yêu cầu") == []
    assert problems("requests") == []
    (wrong,) = problems("token")
    assert "problem field `unit` differs from" in wrong


def test_a_vietnamese_learner_reads_the_edition_and_claim_errors_in_vietnamese(
    tmp_path: Path, vietnamese
) -> None:
    edition = EDITION.replace("mỗi token (131.072 B)", "mỗi token (131,072 B)").replace(
        "- [ ] Trọng số 8 bit\n- [x]", "- [x] Trọng số 8 bit\n- [ ]"
    )
    original = ORIGINAL.replace("kv_dtype=bf16 = 128 KiB", "kv_dtype=bf16 = 64 KiB")
    (tmp_path / "kv-basics.md").write_text(original, encoding="utf-8")
    (tmp_path / "kv-basics-vi.md").write_text(
        edition.replace("kv_dtype=bf16 = 128 KiB", "kv_dtype=bf16 = 64 KiB"), encoding="utf-8"
    )
    problems = " ".join(str(problem) for problem in read_packs([tmp_path]).problems)
    assert "các con số của key number khác với" in problems, problems
    assert "đánh dấu đúng các lựa chọn khác với" in problems
    assert (
        "131,072 được viết theo cách kv-basics viết số (131,072, 3.43): trong bộ thẻ này"
        in problems
    )
    assert "claim kv_bytes_per_token: thẻ ghi 64 KiB, engine tính ra 128 KiB" in problems
    for english in ("figures differ", "marks other", "the card states", "computes", "written the"):
        assert english not in problems, english


def test_two_editions_in_one_language_are_refused_each_naming_the_other(
    tmp_path: Path, capsys
) -> None:
    from kvdrill.app.cli import main

    (tmp_path / "kv-basics.md").write_text(ORIGINAL, encoding="utf-8")
    (tmp_path / "kv-basics-vi.md").write_text(EDITION, encoding="utf-8")
    assert _check(tmp_path, EDITION) == []  # one edition alone: clean
    second = EDITION.replace("pack: kv-basics-vi", "pack: kv-basics-vi2")
    first_file, second_file = tmp_path / "kv-basics-vi.md", tmp_path / "kv-basics-vi2.md"
    expected = [
        f'{first_file}:6: kv-basics has another "vi" edition, kv-basics-vi2 in {second_file}:6: '
        "keep one edition per language",
        f'{second_file}:6: kv-basics has another "vi" edition, kv-basics-vi in {first_file}:6: '
        "keep one edition per language",
    ]
    (tmp_path / "kv-basics-vi2.md").write_text(second, encoding="utf-8")
    assert sorted(str(p) for p in read_packs([tmp_path]).problems) == expected
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert expected[0] in out.out + out.err
    database = tmp_path / "kv.db"
    assert main(["--db", f"sqlite:///{database}", "import", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert expected[1] in out.out + out.err
    # a region of the language is the language (a profile in vi reads vi-VN editions too)
    (tmp_path / "kv-basics-vi2.md").write_text(
        second.replace("lang: vi", "lang: vi-VN"), encoding="utf-8"
    )
    assert any(
        str(p).startswith(f'{first_file}:6: kv-basics has another "vi-VN" edition, kv-basics-vi2')
        for p in read_packs([tmp_path]).problems
    )
    # an edition in another language of the same original is no rival
    (tmp_path / "kv-basics-vi2.md").write_text(
        second.replace("lang: vi", "lang: fr"), encoding="utf-8"
    )
    assert not any("another" in str(p) for p in read_packs([tmp_path]).problems)


def test_a_vietnamese_learner_reads_the_rival_edition_error_in_vietnamese(
    tmp_path: Path, vietnamese
) -> None:
    (tmp_path / "kv-basics-vi2.md").write_text(
        EDITION.replace("pack: kv-basics-vi", "pack: kv-basics-vi2"), encoding="utf-8"
    )
    first = f"{tmp_path / 'kv-basics-vi.md'}:"
    problems = [p for p in _check(tmp_path, EDITION) if p.startswith(first)]
    assert problems == [
        f'{tmp_path / "kv-basics-vi.md"}:6: kv-basics đã có một bản dịch "vi" khác, kv-basics-vi2 '
        f"ở {tmp_path / 'kv-basics-vi2.md'}:6: mỗi ngôn ngữ chỉ giữ một bản dịch"
    ]


def test_an_edition_of_an_unknown_pack_says_so_in_vietnamese(tmp_path: Path, vietnamese) -> None:
    problems = _check(tmp_path, EDITION.replace("edition_of: kv-basics", "edition_of: kv-basic"))
    assert any(
        ":6: edition_of: không có bộ thẻ kv-basic trong các bộ thẻ" in p for p in problems
    ), problems
