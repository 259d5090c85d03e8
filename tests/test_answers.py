"""Reading typed answers: a table of what reads (and as what) and what is refused in one line."""

from __future__ import annotations

import pytest

from kvdrill.engine.problems.answers import AnswerError, read_typed_answer


@pytest.mark.parametrize(
    ("typed", "expected_unit", "value", "in_unit"),
    [
        ("449k", "tokens", 449_000, "tokens"),
        ("449K", "tokens", 449_000, "tokens"),
        ("449k tokens", "tokens", 449_000, "tokens"),
        ("1.3e5", "tokens", 130_000, "tokens"),
        ("1.3M", "tokens", 1_300_000, "tokens"),
        ("131,072", "B", 131_072, "B"),
        ("131 072", "B", 131_072, "B"),
        ("131\u202f072 B", "B", 131_072, "B"),
        ("131_072", "B", 131_072, "B"),
        ("128KiB", "B", 131_072, "B"),
        ("128 KiB", "B", 131_072, "B"),
        ("128", "KiB", 128, "KiB"),
        ("0.5 GiB", "MiB", 512, "MiB"),
        (".5 GiB", "GiB", 0.5, "GiB"),
        ("42 ms", "s", 0.042, "s"),
        ("42", "ms", 42, "ms"),
        ("3.35 TB/s", "GB/s", 3350, "GB/s"),
        ("3.35TB/s", "TB/s", 3.35, "TB/s"),
        ("12k tokens/s", "tokens/s", 12_000, "tokens/s"),
        ("3.43x", "x", 3.43, "x"),
        ("3.43 x", "x", 3.43, "x"),
        ("3.43", "x", 3.43, "x"),
        ("90%", "", 0.9, ""),
        ("7B", "params", 7e9, "params"),
        ("7B params", "", 7e9, ""),
        ("7B", "B", 7, "B"),
        ("  128   KiB  ", "KiB", 128, "KiB"),
        ("\t128 KiB", "KiB", 128, "KiB"),
        ("128 KiB\n", "KiB", 128, "KiB"),
        ("~128 KiB", "KiB", 128, "KiB"),
        ("0", "tokens", 0, "tokens"),
        ("1 Gb", "GB", 0.125, "GB"),
    ],
)
def test_answers_that_read(typed: str, expected_unit: str, value: float, in_unit: str) -> None:
    assert read_typed_answer(typed, expected_unit).value_in(in_unit) == pytest.approx(value)


@pytest.mark.parametrize(
    ("typed", "expected_unit", "message"),
    [
        ("", "KiB", "empty"),
        ("   ", "KiB", "empty"),
        ("x" * 10_000, "KiB", "too long"),
        ("1" * 101, "KiB", "too long"),
        ("128\x00 KiB", "KiB", "control characters"),
        ("128\x1b[31m KiB", "KiB", "control characters"),
        ("128\u200b KiB", "KiB", "control characters"),
        ("9**9**9", "B", "no arithmetic"),
        ("32*1024", "B", "no arithmetic"),
        ("2^10 KiB", "KiB", "no arithmetic"),
        ("(128) KiB", "KiB", "does not start with a number"),
        ("1e999999", "B", "too large"),
        ("1e31", "B", "too large"),
        ("1e-999", "B", "too small"),
        ("nan", "B", "not a finite number"),
        ("inf", "B", "not a finite number"),
        ("-inf GiB", "GiB", "not a finite number"),
        ("-5 GiB", "GiB", "negative"),
        ("-5", "tokens", "negative"),
        ("128 KB", "KiB", "KB is ambiguous"),
        ("128 gib", "GiB", "did you mean GiB or Gib"),
        ("128 furlongs", "KiB", "Unknown unit 'furlongs'"),
        ("42 ms", "KiB", "a time, but this answer is a size in bytes"),
        ("128 KiB", "ms", "a size in bytes, but this answer is a time"),
        ("128 KiB", "tokens", "a size in bytes, but this answer is a count"),
        ("3 TB/s", "TB", "a bandwidth, but this answer is a size in bytes"),
        ("128K", "KiB", "ambiguous for a size"),
        ("0,5 GiB", "GiB", "use a dot for decimals"),
        ("1.2.3", "GiB", "Could not read the number"),
        ("one hundred", "tokens", "does not start with a number"),
        ("128 KiB KiB", "KiB", "no arithmetic"),
        ("1/2 GiB", "GiB", "no arithmetic"),
    ],
)
def test_answers_that_do_not_read(typed: str, expected_unit: str, message: str) -> None:
    with pytest.raises(AnswerError, match=message) as caught:
        read_typed_answer(typed, expected_unit)
    assert "\n" not in str(caught.value)


def test_significant_figures_are_those_typed() -> None:
    figures = {
        "449k": 3,
        "131,072": 6,
        "450": 2,
        "450.": 3,
        "1.0": 2,
        "0.050": 2,
        "1.3e5": 2,
        "128 KiB": 3,
    }
    for typed, expected in figures.items():
        assert (
            read_typed_answer(typed, "tokens" if "k" in typed else "B").significant_figures
            == expected
        ), typed


def test_a_bare_number_takes_the_expected_unit_and_says_so() -> None:
    bare = read_typed_answer("128", "KiB")
    typed = read_typed_answer("128 KiB", "B")
    assert (bare.unit, bare.unit_typed) == ("KiB", False)
    assert (typed.unit, typed.unit_typed) == ("KiB", True)
