"""Unit traps: a right number in the wrong one of two sibling units, or a size off by 1.024**k.

Sibling units are the decimal and binary units of one prefix step (``kB``/``KiB``, ``GB``/``GiB``,
also in bits: ``Gb``/``Gib``) and a byte unit and its bit unit (``GB``/``Gb``). When the number
typed is the truth in the *sibling* of the unit typed (``128 kB`` for 128 KiB, ``64 GB`` for
64 GiB, ``1 Gb`` for 1 GB) the answer is a unit slip (``unit_slip``); when a precise size or
bandwidth is off by a decimal/binary ratio 1.024**k (k = 1..4: 1.024, 1.049, 1.074, 1.1) to
within ``TRAP_TOLERANCE`` under a tolerance loose enough to let it pass, it is a prefix-ratio trap
(``prefix_ratio_trap``). Neither is ever accepted (engine/problems/acceptance.py); the first is
also a diagnosis (engine/problems/diagnosis.py).
"""

from __future__ import annotations

import functools

from kvdrill.engine.capacity.units import convert, registry, unit_scale
from kvdrill.engine.problems.answers import TypedAnswer
from kvdrill.engine.problems.mistake_sentences import unit_slip_sentence
from kvdrill.engine.problems.types import Diagnosis, Variant

TRAP_TOLERANCE = 0.005  # the typed number equals the truth in the sibling unit

# Decimal/binary pairs, one per prefix step: (code, decimal unit, binary unit).
PREFIX_PAIRS = [
    ("kb_vs_kib", "kB", "KiB"),
    ("mb_vs_mib", "MB", "MiB"),
    ("gb_vs_gib", "GB", "GiB"),
    ("tb_vs_tib", "TB", "TiB"),
    ("tb_vs_tib", "PB", "PiB"),
]
_BIT_OF_BYTE = {
    "B": "b",
    "kB": "kb",
    "MB": "Mb",
    "GB": "Gb",
    "TB": "Tb",
    "KiB": "Kib",
    "MiB": "Mib",
    "GiB": "Gib",
    "TiB": "Tib",
}


def _sibling_table() -> dict[str, list[tuple[str, str]]]:
    """unit symbol -> [(sibling symbol, mistake code)] for every trap pair."""
    table: dict[str, list[tuple[str, str]]] = {}

    def add(a: str, b: str, code: str) -> None:
        table.setdefault(a, []).append((b, code))
        table.setdefault(b, []).append((a, code))

    for code, decimal, binary in PREFIX_PAIRS:
        add(decimal, binary, code)
        if decimal in _BIT_OF_BYTE and binary in _BIT_OF_BYTE:
            add(_BIT_OF_BYTE[decimal], _BIT_OF_BYTE[binary], code)
    for byte_unit, bit_unit in _BIT_OF_BYTE.items():
        add(byte_unit, bit_unit, "bits_vs_bytes")
    return table


_SIBLINGS = _sibling_table()


@functools.lru_cache(maxsize=256)
def _symbol(unit_word: str) -> str:
    """'gigabytes' -> 'GB': the symbol pint knows a typed unit word by."""
    return registry().get_symbol(unit_word)


def unit_slip(answer: TypedAnswer, variant: Variant) -> Diagnosis | None:
    """The typed number is the truth in the sibling of the typed unit: right number, trap unit."""
    if not answer.unit_typed:
        return None
    numerator, _slash, denominator = answer.unit.partition("/")
    symbol = _symbol(numerator)
    for sibling, code in _SIBLINGS.get(symbol, []):
        sibling_unit = sibling + (f"/{denominator}" if denominator else "")
        truth_there = convert(variant.expected_value, variant.unit, sibling_unit)
        if truth_there and abs(answer.value / truth_there - 1) <= TRAP_TOLERANCE:
            typed_unit = symbol + (f"/{denominator}" if denominator else "")
            truth_typed = convert(variant.expected_value, variant.unit, answer.unit)
            return Diagnosis(code, unit_slip_sentence(code, sibling_unit, typed_unit, truth_typed))
    return None


PREFIX_RATIOS = [1.024**k for k in (1, 2, 3, 4)] + [1.024**-k for k in (1, 2, 3, 4)]
_CLOSEST_PREFIX_GAP = min(abs(r - 1) for r in PREFIX_RATIOS)  # 1 - 1/1.024 = 2.3 %


def prefix_ratio_trap(variant: Variant, answer: TypedAnswer, ratio: float) -> bool:
    """A precise size or bandwidth off by a decimal/binary ratio: a trap under a loose tolerance."""
    if variant.rel_tolerance < _CLOSEST_PREFIX_GAP - TRAP_TOLERANCE:
        return False  # the tolerance alone already rejects every such ratio
    if "[information]" not in dict(unit_scale(variant.unit)[1]):
        return False
    if answer.rounding() > TRAP_TOLERANCE:
        return False
    return any(abs(ratio / trap - 1) <= TRAP_TOLERANCE for trap in PREFIX_RATIOS)
