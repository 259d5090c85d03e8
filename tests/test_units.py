"""The project's unit registry: bytes are information, bits and bytes are case-sensitive, KB is
refused, and text is read without pint's expression parser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kvdrill.engine.capacity.units import (
    BASIC_UNIT_SCALES,
    AnswerError,
    basic_unit_scale,
    convert,
    describe_dimension,
    format_quantity,
    parse_quantity,
    parse_unit,
    registry,
)
from kvdrill.engine.errors import UserError


@pytest.mark.parametrize(
    ("text", "unit", "in_bytes"),
    [
        ("1 B", "B", 1),
        ("1 b", "b", 1 / 8),
        ("1 kB", "kB", 1000),
        ("1 KiB", "KiB", 1024),
        ("1 MB", "MB", 1e6),
        ("1 MiB", "MiB", 2**20),
        ("1 GB", "GB", 1e9),
        ("1 GiB", "GiB", 2**30),
        ("1 TB", "TB", 1e12),
        ("1 TiB", "TiB", 2**40),
        ("1 PB", "PB", 1e15),
        ("1 Gb", "Gb", 1e9 / 8),
        ("1 Gib", "Gib", 2**30 / 8),
        ("1 kb", "kb", 125),
        ("1 Kib", "Kib", 128),
    ],
)
def test_information_units_have_their_sizes(text: str, unit: str, in_bytes: float) -> None:
    quantity = parse_quantity(text)
    assert quantity.to(parse_unit("B")).magnitude == pytest.approx(in_bytes)
    assert convert(1, unit, "B") == pytest.approx(in_bytes)


def test_bytes_are_a_dimension_not_a_plain_number() -> None:
    assert describe_dimension("GiB") == "a size in bytes"
    assert describe_dimension("tokens") == "a count or a ratio"
    with pytest.raises(AnswerError):
        convert(1, "GiB", "tokens")


def test_gb_is_gigabit_and_b_is_bit_never_gilbert_or_barn() -> None:
    assert convert(8, "Gb", "GB") == pytest.approx(1)
    assert convert(8, "b", "B") == pytest.approx(1)
    assert describe_dimension("Gb") == "a size in bytes"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1 s", 1), ("42 ms", 0.042), ("3 us", 3e-6), ("3 µs", 3e-6), ("5 ns", 5e-9), ("2 min", 120)],
)
def test_times(text: str, seconds: float) -> None:
    assert parse_quantity(text).to(parse_unit("s")).magnitude == pytest.approx(seconds)


def test_rates_and_counts() -> None:
    assert convert(3.35, "TB/s", "GB/s") == pytest.approx(3350)
    assert convert(1, "tokens per second", "tokens/s") == 1
    assert convert(90, "%", "") == pytest.approx(0.9)
    assert convert(3.43, "x", "") == pytest.approx(3.43)
    assert convert(1, "TFLOPS", "FLOP/s") == pytest.approx(1e12)
    assert describe_dimension("GB/s") == "a bandwidth"


def test_kb_is_refused_with_the_two_meanings() -> None:
    with pytest.raises(AnswerError, match=r"kB \(1000 B\) or KiB \(1024 B\)"):
        parse_quantity("128 KB")
    with pytest.raises(AnswerError, match="kb .* or Kib"):
        parse_quantity("128 Kb")


def test_unknown_unit_in_the_wrong_case_gets_a_hint() -> None:
    with pytest.raises(AnswerError, match="did you mean GB or Gb"):
        parse_quantity("5 gb")
    with pytest.raises(AnswerError, match="Unknown unit 'parsecs'"):
        parse_quantity("5 parsecs")


def test_answer_error_is_a_user_error() -> None:
    assert issubclass(AnswerError, UserError)


@pytest.mark.parametrize(
    "text",
    [
        "9**9**9",
        "2**10 B",
        "1e999999",
        "nan",
        "inf",
        "-5 GiB",
        "",
        "x" * 10_000,
        "1\x00",
        "a\x1b[2J",
    ],
)
def test_bad_text_is_one_line_error(text: str) -> None:
    with pytest.raises(AnswerError) as caught:
        parse_quantity(text)
    assert "\n" not in str(caught.value)
    assert len(str(caught.value)) < 200


def test_registry_is_built_once_and_is_the_projects_own() -> None:
    assert registry() is registry()
    assert "gilbert" not in registry()
    assert "barn" not in registry()


def test_threads_asking_at_once_share_one_registry() -> None:
    # Two imports starting together each asked for the registry first: each built its own,
    # and pint refused to add their quantities ("different registries"). A new process, so
    # the registry is not built yet.
    script = """
import threading
from kvdrill.engine.capacity.units import parse_quantity, registry
start = threading.Barrier(4)
built = []
def ask():
    start.wait()
    built.append(registry())
threads = [threading.Thread(target=ask) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len({id(ureg) for ureg in built}), parse_quantity("2 GiB") + parse_quantity("1 GiB"))
"""
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert run.stdout.split()[0] == "1", run.stdout


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (131072, "B", "131,072 B"),
        (128.0, "KiB", "128 KiB"),
        (0.5, "GiB", "0.5 GiB"),
        (3.35, "TB/s", "3.35 TB/s"),
        (3.428571, "x", "3.429x"),
        (90, "%", "90%"),
        (448921, "tokens", "448,921 tokens"),
        (54.78934, "GiB", "54.79 GiB"),
        (12345.67, "tokens/s", "12,346 tokens/s"),
        (1.25e-5, "s", "1.25e-05 s"),
        (7, "dimensionless", "7"),
        (1, "GPUs", "1 GPU"),  # one of a count reads in the singular
        (1.0, "tokens", "1 token"),
        (2, "GPUs", "2 GPUs"),
        (1, "GiB", "1 GiB"),
    ],
)
def test_format_quantity(value: float, unit: str, shown: str) -> None:
    assert format_quantity(value, unit) == shown


def test_importing_the_checker_does_not_load_pint() -> None:
    # The TUI imports engine modules on its start path; pint loads on the first answer.
    code = "import sys, kvdrill.engine.problems.checker, kvdrill.engine.problems.answers; print('pint' in sys.modules)"
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("text", sorted(BASIC_UNIT_SCALES))
def test_each_basic_unit_scale_is_what_pint_computes(text: str) -> None:
    unit = parse_unit(text)
    factor = registry().Quantity(1.0, unit).to_root_units().magnitude
    assert BASIC_UNIT_SCALES[text] == (factor, frozenset(dict(unit.dimensionality).items()))


def test_every_rate_of_two_basic_units_is_what_pint_computes() -> None:
    words = [w for w in BASIC_UNIT_SCALES if w not in ("", "dimensionless")]
    for top in words:
        for bottom in words:
            rate = f"{top}/{bottom}"
            unit = parse_unit(rate)
            factor = registry().Quantity(1.0, unit).to_root_units().magnitude
            dimension = frozenset(dict(unit.dimensionality).items())
            assert basic_unit_scale(rate) == (factor, dimension), rate
    # What the table does not hold goes to pint: one slash of two table words, nothing else.
    assert basic_unit_scale("/s") is None and basic_unit_scale("GB/") is None
    assert basic_unit_scale("KB") is None and basic_unit_scale("GB/s/s") is None


def test_an_ambiguous_unit_is_refused_without_building_the_registry() -> None:
    code = (
        "import sys; from kvdrill.engine.capacity.units import convert\n"
        "try:\n    convert(1.0, 'B', 'KB')\n"
        "except Exception as exc:\n    print(exc)\n"
        "print('pint' in sys.modules)"
    )
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert result.stdout.splitlines() == [
        "KB is ambiguous: write kB (1000 B) or KiB (1024 B).",
        "False",
    ]


@pytest.mark.parametrize(
    ("value", "from_unit", "to_unit", "expected"),
    [
        (131072, "byte", "KiB", 128),
        (2e9, "B", "GB", 2),
        (0.0421, "s", "ms", 42.1),
        (3.35e12, "byte/s", "GB/s", 3350),
        (90, "%", "", 0.9),
    ],
)
def test_common_conversions_need_no_registry(
    value: float, from_unit: str, to_unit: str, expected: float
) -> None:
    code = (
        "import sys; from kvdrill.engine.capacity.units import convert; "
        f"print(convert({value!r}, {from_unit!r}, {to_unit!r}), 'pint' in sys.modules)"
    )
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    shown, pint_loaded = result.stdout.split()
    assert float(shown) == pytest.approx(expected) and pint_loaded == "False"
