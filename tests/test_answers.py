"""Reading typed answers: a table of what reads (and as what) and what is refused in one line."""

from __future__ import annotations

import math
import random
import time

import pytest

from kvdrill.engine.problems.answers import AnswerError, read_typed_answer
from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant


@pytest.mark.parametrize(
    ("typed", "expected_unit", "value", "in_unit"),
    [
        ("449k", "tokens", 449_000, "tokens"),
        ("449K", "tokens", 449_000, "tokens"),
        ("449k tokens", "tokens", 449_000, "tokens"),
        ("1.3e5", "tokens", 130_000, "tokens"),
        ("1.3M", "tokens", 1_300_000, "tokens"),
        ("131,072", "B", 131_072, "B"),  # as the English screens write it
        ("131 072", "B", 131_072, "B"),
        ("131,072,000", "B", 131_072_000, "B"),
        ("131.072.000", "B", 131_072_000, "B"),
        ("1,234.5", "B", 1234.5, "B"),
        ("1.234,5", "B", 1234.5, "B"),
        ("1 234,5 B", "B", 1234.5, "B"),
        ("0,5 GiB", "GiB", 0.5, "GiB"),
        ("12,34", "tokens", 12.34, "tokens"),
        ("0,125 MiB", "MiB", 0.125, "MiB"),
        ("1234.567", "B", 1234.567, "B"),
        ("2.199 TiB", "TiB", 2.199, "TiB"),  # in English a dot is only a decimal mark
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
        ("1,2,3", "B", "groups of three digits"),
        ("12,3456.7", "B", "groups of three digits"),
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


@pytest.mark.usefixtures("vietnamese")
@pytest.mark.parametrize("typed", ["1,024 GiB", "1.024 GiB", "131,072", "2.199 TiB"])
def test_one_mark_before_three_digits_is_refused_for_a_learner_in_vietnamese(typed: str) -> None:
    """Vietnamese writes 1.024 for 1024 and 1,024 for 1.024: which one was meant is not guessed."""
    number = typed.split()[0]
    with pytest.raises(AnswerError, match=f"'{typed}' có thể là ") as caught:
        read_typed_answer(typed, "GiB" if " " in typed else "B")
    assert number.replace(",", "").replace(".", "") in str(caught.value)
    # Its decimal reading is written as typed (1.024): the message says so, or a Vietnamese
    # reader takes 1.024 for the whole number too.
    assert "dấu chấm là dấu thập phân" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.usefixtures("vietnamese")
@pytest.mark.parametrize(
    ("typed", "value"),
    [("1,5", 1.5), ("0,125", 0.125), ("1.234,5", 1234.5), ("1,234.5", 1234.5),
     ("131 072", 131_072), ("131.072.000", 131_072_000), ("1024", 1024)],
)  # fmt: skip
def test_either_convention_reads_where_it_is_unambiguous(typed: str, value: float) -> None:
    assert read_typed_answer(typed, "B").value == pytest.approx(value)


def test_significant_figures_are_those_typed() -> None:
    figures = {
        "449k": 3,
        "131 072": 6,
        "1.234,5": 5,
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


# --- generated answers ---------------------------------------------------------------------------

NUMBERS = [
    "128", "131,072", "131 072", "131_072", "1.3e5", ".5", "0", "0.0", "-5", "+5", "1e30",
    "1e31", "1e999", "1e-999", "9**9**9", "2^10", "32*1024", "0x10", "1/2", "nan", "inf",
    "-inf", "NaN", "１２３", "١٢٣", "1,2,3", "1,,000", "1.2.3", "1e", "e5", "٫5", "12,34",
    "9" * 99, "9" * 400, "0." + "0" * 300 + "1",
]  # fmt: skip
SUFFIXES = ["", "k", "K", "M", "G", "T", "B", "kk", "Mi", "%", "x"]
UNITS = [
    "", "B", "KiB", "kB", "KB", "MiB", "GB", "GiB", "TiB", "bits", "Gb", "ms", "s", "us", "µs",
    "tokens", "tokens per second", "tokens/s", "TB/s", "GB/s", "requests", "params", "x", "%",
    "B/token", "GiB/GPU", "kg", "meters", "furlongs", "gb", "kib", "KIB", "bytes",
    "[bold]GiB[/]", "GiB\x1b[2J", "Gi\u202eB", "Gi\u200bB", "GiB" * 20, "per", "/", "**2",
]  # fmt: skip
DECORATION = ["", " ", "  ", "\t", "~", "≈", "about ", "\n", "\u00a0", "\u202f", "\x00", "\ufeff"]
ASKED_UNITS = ["KiB", "GB", "B", "ms", "s", "tokens", "requests", "x", "TB/s", "", "params"]


def generated_answers(count: int, seed: int) -> list[str]:
    """Answer-shaped text: numbers, scale suffixes, units and decoration in every mix, and
    one in ten pure noise (printable, control and astral characters)."""
    rng = random.Random(seed)
    answers = []
    for _ in range(count):
        if rng.random() < 0.1:
            length = rng.randint(0, 140)
            answers.append(
                "".join(
                    chr(rng.choice((rng.randint(0, 0x7F), rng.randint(0x80, 0x10FFFF))))
                    for _ in range(length)
                ).replace("\ud800", "")
            )
            continue
        if rng.random() < 0.4:  # plausible: a learner's answer, right or wrong
            number = f"{rng.uniform(0, 10 ** rng.randint(0, 12)):.{rng.randint(0, 4)}f}"
            unit = rng.choice([*ASKED_UNITS, "MiB", "GiB", "kB", "tokens per second"])
            answers.append(f"{number}{rng.choice(['', '', 'k', 'M'])}{rng.choice(['', ' '])}{unit}")
            continue
        parts = [rng.choice(DECORATION), rng.choice(NUMBERS), rng.choice(SUFFIXES)]
        parts += [rng.choice(["", " "]), rng.choice(UNITS), rng.choice(DECORATION)]
        answers.append("".join(parts))
    return answers


def test_ten_thousand_generated_answers_read_or_are_refused_in_one_line(
    fault_campaign: bool,
) -> None:
    """Every answer reads or raises AnswerError with one printable line; never anything else.
    The slowest are printed (run with -s): speed is for scripts/, not for asserts."""
    count = 100_000 if fault_campaign else 10_000
    for unit in ASKED_UNITS:  # the unit registry loads once: not the answers' cost
        read_typed_answer("1", unit)
    template = {"ask": "kv_bytes_per_token", "vary": {"model": "gqa"}, "unit": "KiB"}
    variant = make_variant(template, "answers/generated", 14)
    timings: list[tuple[float, str, str]] = []
    refused = 0
    for index, typed in enumerate(generated_answers(count, seed=14)):
        unit = ASKED_UNITS[index % len(ASKED_UNITS)]
        started = time.perf_counter()
        try:
            answer = read_typed_answer(typed, unit)
        except AnswerError as error:
            refused += 1
            message = str(error)
            assert message and "\n" not in message, (typed, message)
            assert all(ch.isprintable() for ch in message), (typed, message)
        else:
            assert math.isfinite(answer.value) and answer.value >= 0, (typed, answer)
        timings.append((time.perf_counter() - started, typed, unit))
        if index % 5 == 0:  # and the whole check, diagnosis included, on a real variant
            verdict = check_answer(variant, typed)
            assert verdict.unreadable or verdict.quality in range(6), (typed, verdict)
    assert 0 < refused < count
    slowest = sorted(timings, reverse=True)[:3]
    print(f"\n{count} typed answers, {refused} refused; slowest:")
    for seconds, typed, unit in slowest:
        print(f"  {seconds * 1000:.2f} ms  {typed[:40]!r} in {unit!r}")
