"""Units: kvdrill's own pint registry, a strict reader for quantities, and display formatting.

The registry is built from ``engine/capacity/data/units.txt`` into an empty ``pint.UnitRegistry`` (never
pint's default one, which makes bytes dimensionless and reads ``Gb`` as gilbert and ``b`` as
barn). It is built on first use and cached; importing this module does not import pint.

What the units mean (all case-sensitive):

- information: ``B`` byte, ``b`` bit (= B/8); decimal ``kB MB GB TB PB`` (powers of 1000);
  binary ``KiB MiB GiB TiB PiB`` (powers of 1024); bits ``kb Mb Gb Tb`` and ``Kib Mib Gib Tib``;
- time: ``s ms us µs ns min h``; compute: ``FLOP``, ``GFLOP``/``TFLOP``/``PFLOP``, ``TFLOPS``
  (= TFLOP/s);
- dimensionless: tokens, requests, sequences, params, users, blocks, layers, GPUs, ``x``
  (a ratio, 3.43x) and ``%`` (0.01); so ``449k tokens`` and ``449k`` are the same quantity;
- money: ``USD`` (``$0.35`` is read as 0.35 USD), a dimension of its own, so a percentage or a
  ratio typed for a price is refused rather than read as a number of dollars;
- rates: any ``unit/unit`` with one slash, e.g. ``GB/s``, ``TB/s``, ``tokens/s``, ``KiB/token``.

``KB`` and ``Kb`` are rejected on purpose: people write ``KB`` for both 1000 and 1024 bytes, and
the 2.4 % between them is exactly the trap the drill teaches. The message asks for ``kB``
(1000 B) or ``KiB`` (1024 B).

Reading text (``parse_quantity``) never hands the text to pint's expression parser, which
evaluates ``**`` and friends: a strict regex takes the number, each unit word is looked up in the
list of names defined in units.txt, and pint only multiplies the resulting units.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from kvdrill.engine.capacity.data_files import UNITS_PATH, data_text
from kvdrill.engine.errors import UserError
from kvdrill.i18n import DEFAULT_LANGUAGE, N_, _, language

if TYPE_CHECKING:
    import pint

MAX_TEXT_CHARS = 100  # a typed answer or a --set value; anything longer is not an answer
MAX_UNIT_CHARS = 40
MAX_MAGNITUDE = 1e30  # larger than any quantity in LLM serving; keeps conversions finite

# Multipliers a count may carry: 449k, 1.3M, 2G, 1T. "B" (billion, as in "7B params") only
# where a plain count is asked for (``read_quantity_parts(count=True)``): on its own "B" is the byte.
SCALE_SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
BILLION_SUFFIX = "B"

AMBIGUOUS_UNITS = {
    "KB": N_("KB is ambiguous: write kB (1000 B) or KiB (1024 B)."),
    "Kb": N_("Kb is ambiguous: write kb (1000 bit) or Kib (1024 bit)."),
}

RATIO_UNITS = {"x", "X", "%"}  # written right after the number: 3.43x, 90%

Dimension = frozenset[tuple[str, int]]
_COUNT: Dimension = frozenset()
_INFORMATION: Dimension = frozenset({("[information]", 1)})
_TIME: Dimension = frozenset({("[time]", 1)})
_COMPUTE: Dimension = frozenset({("[compute]", 1)})
_CURRENCY: Dimension = frozenset({("[currency]", 1)})
# The units most results are shown in or set with, as (factor to base units, dimension): enough
# for ``kvdrill calc --unit KiB`` or ``--set pool=54.8GiB`` without building the pint registry,
# and, two of them around a slash, for rates (GB/s, tokens/s). Each entry equals what pint
# computes from units.txt (tests/test_units.py checks them all, and every rate of two);
# any other unit, and every unknown or ambiguous one (KB), goes through pint.
BASIC_UNIT_SCALES: dict[str, tuple[float, Dimension]] = {
    "": (1.0, _COUNT),
    "dimensionless": (1.0, _COUNT),
    "token": (1.0, _COUNT),
    "tokens": (1.0, _COUNT),
    "request": (1.0, _COUNT),
    "requests": (1.0, _COUNT),
    "sequence": (1.0, _COUNT),
    "sequences": (1.0, _COUNT),
    "block": (1.0, _COUNT),
    "blocks": (1.0, _COUNT),
    "param": (1.0, _COUNT),
    "params": (1.0, _COUNT),
    "GPU": (1.0, _COUNT),
    "GPUs": (1.0, _COUNT),
    "x": (1.0, _COUNT),
    "%": (0.01, _COUNT),
    "byte": (1.0, _INFORMATION),
    "bit": (0.125, _INFORMATION),
    "Gb": (1.25e8, _INFORMATION),
    "B": (1.0, _INFORMATION),
    "kB": (1e3, _INFORMATION),
    "MB": (1e6, _INFORMATION),
    "GB": (1e9, _INFORMATION),
    "TB": (1e12, _INFORMATION),
    "PB": (1e15, _INFORMATION),
    "KiB": (2.0**10, _INFORMATION),
    "MiB": (2.0**20, _INFORMATION),
    "GiB": (2.0**30, _INFORMATION),
    "TiB": (2.0**40, _INFORMATION),
    "PiB": (2.0**50, _INFORMATION),
    "s": (1.0, _TIME),
    "ms": (1e-3, _TIME),
    "us": (1e-6, _TIME),
    "ns": (1e-9, _TIME),
    "min": (60.0, _TIME),
    "h": (3600.0, _TIME),
    "FLOP": (1.0, _COMPUTE),
    "GFLOP": (1e9, _COMPUTE),
    "TFLOP": (1e12, _COMPUTE),
    "PFLOP": (1e15, _COMPUTE),
    "TFLOPS": (1e12, _COMPUTE | {("[time]", -1)}),
    "USD": (1.0, _CURRENCY),
}
CURRENCY_UNIT = "USD"
CURRENCY_SIGN = "$"  # typed before the number: $0.35


def basic_unit_scale(text: str) -> tuple[float, Dimension] | None:
    """The scale of a BASIC_UNIT_SCALES unit or of a rate of two ('GB/s'), else None.

    ``text`` is normalised (normalise_unit_text); None sends the caller to pint.
    """
    basic = BASIC_UNIT_SCALES.get(text)
    if basic is not None:
        return basic
    top, slash, bottom = text.partition("/")
    if not slash or {top, bottom} & {"", "dimensionless"}:
        return None
    if top not in BASIC_UNIT_SCALES or bottom not in BASIC_UNIT_SCALES:
        return None
    if top == bottom:
        return 1.0, _COUNT  # pint cancels a unit over itself before any arithmetic
    (top_factor, top_dimension), (bottom_factor, bottom_dimension) = (
        BASIC_UNIT_SCALES[top],
        BASIC_UNIT_SCALES[bottom],
    )
    powers = dict(top_dimension)
    for name, power in bottom_dimension:
        powers[name] = powers.get(name, 0) - power
    # Times the reciprocal, as pint computes it, so the last bit agrees too.
    factor = top_factor * (1 / bottom_factor)
    return factor, frozenset((n, p) for n, p in powers.items() if p)


class AnswerError(UserError):
    """Text that cannot be read as a quantity, explained in one line."""


_registry_lock = threading.Lock()
_registry: pint.UnitRegistry | None = None


def registry() -> pint.UnitRegistry:
    """The project's unit registry, built once from units.txt. Built under a lock: two threads
    asking at once (two imports starting together) must get the same registry, or pint refuses
    to combine their quantities ("different registries")."""
    global _registry
    if _registry is None:
        with _registry_lock:
            if _registry is None:
                import pint

                ureg: pint.UnitRegistry = pint.UnitRegistry(
                    None, autoconvert_offset_to_baseunit=False
                )
                ureg.load_definitions(data_text(UNITS_PATH).splitlines())
                _registry = ureg
    return _registry


def __getattr__(name: str) -> object:
    # ``from kvdrill.engine.capacity.units import ureg`` builds the registry on first access, not at import.
    if name == "ureg":
        return registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def unit_names() -> frozenset[str]:
    """Every unit name, symbol and alias defined in units.txt (the whitelist for typed units)."""
    names: set[str] = set()
    for raw in data_text(UNITS_PATH).splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("@"):
            continue
        fields = [f.strip() for f in line.split("=")]
        # name = definition [= symbol] [= alias ...]
        names.add(fields[0])
        names.update(f for f in fields[2:] if f and f != "_")
    return frozenset(names)


# --- numbers -------------------------------------------------------------------------------

_NUMBER = re.compile(
    r"""
    (?P<sign>[+-])?
    (?P<mantissa>
        \d{1,3}(?P<sep>[,\ _])\d{3}(?:(?P=sep)\d{3})*(?:\.\d+)?   # 131,072  131 072  1_000.5
      | \d+(?:\.\d*)?                                             # 42  0.5  3.
      | \.\d+                                                     # .5
    )
    (?P<exponent>[eE][+-]?\d+)?
    (?![\d.,])
    """,
    re.VERBOSE,
)

_SCALE = re.compile(r"([kKMGT])(?:\s+|$)")
_PER = re.compile(r"\s+per\s+")
_SLASH = re.compile(r"\s*/\s*")

# Unit words: letters, µ/μ, %; at most one slash (GB/s, tokens/s, KiB/token).
_UNIT_WORD = r"[A-Za-zµμ%]+"
_UNIT_TEXT = re.compile(rf"{_UNIT_WORD}(?:/{_UNIT_WORD})?")


@dataclass(frozen=True)
class ReadNumber:
    """A number read from text: its value (scale suffix applied) and significant figures."""

    value: float
    significant_figures: int
    rest: str  # the text after the number, stripped
    scaled: bool = False  # a k/M/G/T suffix multiplied the value


def clean_text(text: str) -> str:
    """Check length and characters of typed text; return it stripped, spaces normalised."""
    if not isinstance(text, str):
        raise AnswerError(_("The answer must be text."))
    if len(text) > MAX_TEXT_CHARS:
        raise AnswerError(
            _("The answer is too long ({count} characters; at most {most}).").format(
                count=f"{len(text):,}", most=MAX_TEXT_CHARS
            )
        )
    # NBSP and narrow NBSP are what some keyboards put between digit groups.
    text = text.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ")
    for ch in text:
        if ch in "\t\r\n":  # whitespace a paste may carry; normalised below
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise AnswerError(
                _("The answer contains control characters; type a number and a unit.")
            )
    text = " ".join(text.split())
    if not text:
        raise AnswerError(_("The answer is empty: type a number and a unit, like 128 KiB."))
    return text


def shorten(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _significant_figures(mantissa: str) -> int:
    digits = mantissa.replace(",", "").replace(" ", "").replace("_", "")
    has_point = "." in digits
    digits = digits.replace(".", "").lstrip("0")
    if not has_point:
        digits = digits.rstrip("0")
    return max(1, len(digits))


def _too_large(text: str) -> str:
    return _("{typed} is too large to be an answer.").format(typed=text)


def read_number(text: str, example: str = "something like 128 KiB") -> ReadNumber:
    """Read the leading number of cleaned text: separators, exponent, k/M/G/T suffix.
    ``example`` is what the message suggests typing instead of text that is no number."""
    text = text.lstrip("~≈").lstrip()
    match = _NUMBER.match(text)
    if match is None:
        if re.match(r"[+-]?(nan|inf|infinity)\b", text, re.IGNORECASE):
            raise AnswerError(_("'{typed}' is not a finite number.").format(typed=shorten(text)))
        if re.match(r"[+-]?\.?\d", text) is None:
            raise AnswerError(
                _("'{typed}' does not start with a number: type {example}.").format(
                    typed=shorten(text), example=example
                )
            )
        if "," in text:
            raise AnswerError(
                _(
                    "Could not read the number in '{typed}': use a dot for decimals, "
                    "and commas only between groups of three digits (131,072)."
                ).format(typed=shorten(text))
            )
        raise AnswerError(_("Could not read the number in '{typed}'.").format(typed=shorten(text)))
    rest = text[match.end() :].strip()
    mantissa = match.group("mantissa")
    plain = mantissa.replace(",", "").replace(" ", "").replace("_", "")
    value = float(plain + (match.group("exponent") or ""))
    if match.group("sign") == "-":
        value = -value
    if math.isinf(value) or abs(value) > MAX_MAGNITUDE:
        raise AnswerError(_too_large(text))
    if value == 0 and plain.strip("0.") != "":
        raise AnswerError(_("{typed} is too small to be an answer.").format(typed=text))
    figures = _significant_figures(mantissa)

    scale = _SCALE.match(rest)
    if scale is None or rest in unit_names():
        return ReadNumber(value, figures, rest)
    return scale_number(
        ReadNumber(value, figures, rest[scale.end() :].strip(), True),
        SCALE_SUFFIXES[scale.group(1)],
        text,
    )


# A typed answer's leading number with its separators: digits, dots, commas and underscores,
# and a space only before a group of exactly three digits ("131 072 B", "1 234,5").
_TYPED_NUMBER = re.compile(
    r"(?P<sign>[+-]?)(?P<body>(?:\d|[.,](?=\d))(?:[\d.,_]|\ (?=\d{3}(?!\d)))*)"
)


def unambiguous_number(text: str) -> str:
    """``text`` (a cleaned typed answer) with its leading number in the reader's form: a dot
    decimal, no group separators. Both conventions read (``1,234.5`` and ``1.234,5``); a
    comma or a dot is a decimal mark when it cannot be a thousands separator (``0,5``,
    ``12,34``, ``1.5``). A single comma or dot before exactly three digits (``1,024``,
    ``1.024``) is read as the English screens write numbers (``1,024`` is 1024, ``1.024`` a
    decimal); for a learner in Vietnamese, who meets both conventions (the Vietnamese one
    writes 1.024 for 1024 and 1,024 for a decimal), it is refused with one line: never
    guessed."""
    start = len(text) - len(text.lstrip("~≈").lstrip())
    match = _TYPED_NUMBER.match(text, start)
    if match is None:
        return text
    body = match.group("body")
    return text[: match.start("body")] + _plain_digits(body, text) + text[match.end() :]


def _plain_digits(body: str, text: str) -> str:
    marks = [character for character in body if not character.isdigit()]
    if not marks:
        return body
    last = marks[-1]
    if last in ",." and marks.count(last) == 1:
        head, _mark, tail = body.rpartition(last)
        if head.isdigit() or not head:
            groups = len(tail) == 3 and 1 <= len(head) <= 3 and head != "0"
            if groups and language() == DEFAULT_LANGUAGE and last == ",":
                return head + tail
            if groups and language() != DEFAULT_LANGUAGE:
                whole = head + tail
                raise AnswerError(
                    _(
                        "'{typed}' could be {whole} or {decimal}: type {whole} or {spaced} for "
                        "the whole number, {decimal}0 for the decimal one."
                    ).format(
                        typed=shorten(text),
                        whole=whole,
                        spaced=f"{head} {tail}",
                        decimal=f"{head}.{tail}",
                    )
                )
            return f"{head or '0'}.{tail}"
        grouped = _grouped_digits(head)
        if grouped is not None:
            return f"{grouped}.{tail}"
    elif len(set(marks)) == 1:
        grouped = _grouped_digits(body)
        if grouped is not None:
            return grouped
    raise AnswerError(
        _(
            "Could not read the number in '{typed}': write groups of three digits (131 072) "
            "and one decimal mark (0.5 or 0,5)."
        ).format(typed=shorten(text))
    )


def _grouped_digits(text: str) -> str | None:
    """``1,234,567`` / ``1.234.567`` / ``1 234 567`` as ``1234567``; None unless one mark
    separates a lead of 1-3 digits and groups of exactly three."""
    marks = {character for character in text if not character.isdigit()}
    if len(marks) != 1:
        return None
    parts = text.split(marks.pop())
    lead, groups = parts[0], parts[1:]
    if not (lead.isdigit() and len(lead) <= 3) or not all(
        group.isdigit() and len(group) == 3 for group in groups
    ):
        return None
    return "".join(parts)


def scale_number(number: ReadNumber, factor: float, text: str) -> ReadNumber:
    """The number multiplied by a suffix's factor, still within MAX_MAGNITUDE."""
    value = number.value * factor
    if abs(value) > MAX_MAGNITUDE:
        raise AnswerError(_too_large(text))
    return ReadNumber(value, number.significant_figures, number.rest, True)


# --- units ---------------------------------------------------------------------------------


# The unit words of the translated packs' problem templates (decks/*-vi.md), each the unit of
# units.txt it names. A template asks in them and shows them; a learner may type them; every
# lookup (scale, dimension, pint) reads the unit they name. Words of more than one word are why
# they are not pint aliases in units.txt.
TRANSLATED_UNIT_WORDS = {
    "yêu cầu": "requests",
    "chuỗi": "sequences",
    "người dùng": "users",
    "khối": "blocks",
    "lớp": "layers",
    "giây": "s",
    "giờ": "h",
}


def unit_lookup_text(text: str) -> str:
    """``text`` normalised, each side of a slash in a translated unit word given as the unit it
    names: 'yêu cầu' -> 'requests', 'token/giây' -> 'token/s'."""
    text = normalise_unit_text(text)
    if text.isascii():
        return text
    words = unicodedata.normalize("NFC", text).split("/")
    return "/".join(TRANSLATED_UNIT_WORDS.get(word, word) for word in words)


@functools.lru_cache(maxsize=1024)
def normalise_unit_text(text: str) -> str:
    """'tokens per second' -> 'tokens/s'-style spacing: no spaces around the slash."""
    text = " ".join(text.split())
    text = _PER.sub("/", text)
    return _SLASH.sub("/", text)


def _unknown_unit_message(word: str) -> str:
    if word in AMBIGUOUS_UNITS:
        return _(AMBIGUOUS_UNITS[word])
    close = sorted(n for n in unit_names() if n.lower() == word.lower())
    if close:
        return _(
            "Unknown unit '{word}' (units are case-sensitive): did you mean {options}?"
        ).format(word=word, options=_(" or ").join(close))
    return _("Unknown unit '{word}': use one like B, KiB, GB, ms, tokens, x or GB/s.").format(
        word=word
    )


def parse_unit(text: str) -> pint.Unit:
    """A unit from a short text such as 'KiB', 'GB/s', 'tokens/s' or '' (dimensionless)."""
    return _parse_unit(unit_lookup_text(text))


@functools.lru_cache(maxsize=1024)
def _parse_unit(text: str) -> pint.Unit:
    if text in ("", "dimensionless"):
        return registry().dimensionless
    if len(text) > MAX_UNIT_CHARS or _UNIT_TEXT.fullmatch(text) is None:
        raise AnswerError(
            _(
                "Could not read the unit {unit}: write one unit like KiB, or a rate like GB/s."
            ).format(unit=repr(shorten(text)))
        )
    words = text.split("/")
    for word in words:
        if word not in unit_names():
            raise AnswerError(_unknown_unit_message(word))
    # Built only for a unit that passed the checks: a mistyped one is refused without pint.
    ureg = registry()
    unit = ureg.Unit(words[0])
    if len(words) == 2:
        unit = unit / ureg.Unit(words[1])
    return unit


@functools.lru_cache(maxsize=1024)
def unit_scale(text: str) -> tuple[float, Dimension]:
    """(factor to base units, dimensionality) of a unit text; cached, for fast float math."""
    basic = basic_unit_scale(unit_lookup_text(text))
    if basic is not None:
        return basic
    unit = parse_unit(text)
    factor = registry().Quantity(1.0, unit).to_root_units().magnitude
    return float(factor), cast(Dimension, frozenset(dict(unit.dimensionality).items()))


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit``; AnswerError if dimensions differ."""
    f_from, dim_from = unit_scale(from_unit)
    f_to, dim_to = unit_scale(to_unit)
    if dim_from != dim_to:
        plain = _("a plain number")
        raise AnswerError(
            _("Cannot convert {source} ({source_kind}) to {target} ({target_kind}).").format(
                source=from_unit or plain,
                source_kind=describe_dimension(from_unit),
                target=to_unit or plain,
                target_kind=describe_dimension(to_unit),
            )
        )
    return value * f_from / f_to


_DIMENSION_WORDS: dict[frozenset[tuple[str, int]], str] = {
    frozenset(): N_("a count or a ratio"),
    frozenset({("[information]", 1)}): N_("a size in bytes"),
    frozenset({("[time]", 1)}): N_("a time"),
    frozenset({("[information]", 1), ("[time]", -1)}): N_("a bandwidth"),
    frozenset({("[time]", -1)}): N_("a rate per second"),
    frozenset({("[compute]", 1)}): N_("an amount of FLOP"),
    frozenset({("[compute]", 1), ("[time]", -1)}): N_("a compute rate"),
    frozenset({("[compute]", 1), ("[information]", -1)}): N_("FLOP per byte"),
    _CURRENCY: N_("an amount of money"),
}


def describe_dimension(unit_text: str) -> str:
    """Plain words for what a unit measures: 'a size in bytes', 'a time', 'a bandwidth'..."""
    return dimension_words(unit_scale(unit_text)[1])


def dimension_words(dimension: frozenset[tuple[str, int]]) -> str:
    """Plain words for a dimension (base dimension -> power), as ``describe_dimension``."""
    if dimension in _DIMENSION_WORDS:
        return _(_DIMENSION_WORDS[dimension])
    parts = [f"{name.strip('[]')}^{power}" for name, power in sorted(dimension)]
    return _("a quantity in {dimensions}").format(dimensions=" ".join(parts))


@dataclass(frozen=True)
class ReadQuantity:
    """A quantity read from text, keeping what the reader needs beyond the pint Quantity."""

    value: float  # in ``unit_text`` (scale suffix applied)
    unit_text: str  # the unit as typed, normalised ('' when none was typed)
    significant_figures: int
    text: str = ""  # the text read, cleaned (single spaces)
    scaled: bool = False  # a k/M/G/T suffix (or a count's billion) multiplied the value


_BILLION = re.compile(rf"{BILLION_SUFFIX}(?:\s+|$)")


def read_quantity_parts(
    text: str,
    example: str = "something like 128 KiB",
    *,
    by_learner: bool = False,
    count: bool = False,
    negative: bool = True,
) -> ReadQuantity:
    """Split text into a checked number and a checked unit text (unit may be ''); ``example``
    as in ``read_number``. The one reader of a typed quantity: an answer, a ``--set`` value, a
    pack's stated claim.

    ``by_learner``: a learner typed it, so a number that one of the two conventions would read
    otherwise is refused (``unambiguous_number``); ``count``: a plain count is asked for, so
    ``7B``/``7B params`` is seven billion; ``negative=False`` refuses a negative number."""
    cleaned = clean_text(text)
    number_text, signed = without_currency_sign(cleaned)
    if by_learner:
        number_text = unambiguous_number(number_text)
    number = read_number(number_text, example)
    if count:
        number = _billions(number, cleaned)
    if not negative and number.value < 0:
        raise AnswerError(_("{typed} is negative; this answer cannot be.").format(typed=cleaned))
    unit_text = unit_after_number(number.rest, cleaned)
    return ReadQuantity(
        number.value,
        signed_unit(unit_text, signed, cleaned),
        number.significant_figures,
        cleaned,
        number.scaled,
    )


def _billions(number: ReadNumber, cleaned: str) -> ReadNumber:
    """'7B' / '7B params' is seven billion when a plain count is asked for."""
    if number.scaled:
        return number
    match = _BILLION.match(number.rest)
    if match is None:
        return number
    scaled = scale_number(number, 1e9, cleaned)
    return ReadNumber(scaled.value, scaled.significant_figures, number.rest[match.end() :], True)


def without_currency_sign(cleaned: str) -> tuple[str, bool]:
    """'$0.35' -> ('0.35', True): the text with a leading $ taken off, and whether it had one."""
    if not cleaned.startswith(CURRENCY_SIGN):
        return cleaned, False
    return cleaned.removeprefix(CURRENCY_SIGN).lstrip(), True


def signed_unit(unit_text: str, signed: bool, cleaned: str) -> str:
    """The unit of a number typed with a leading $ (USD), refusing a second, different unit."""
    if not signed:
        return unit_text
    if unit_text not in ("", CURRENCY_UNIT):
        raise AnswerError(
            _("'{typed}' has both a $ sign and the unit {unit}: type one of them.").format(
                typed=shorten(cleaned), unit=unit_text
            )
        )
    return CURRENCY_UNIT


def unit_after_number(rest: str, whole: str) -> str:
    """The checked, normalised unit text that follows a number ('' if none)."""
    unit_text = unit_lookup_text(rest)
    if unit_text and _UNIT_TEXT.fullmatch(unit_text) is None:
        raise AnswerError(
            _(
                "Could not read '{typed}': type one number and a unit, "
                "like 128 KiB or 3.35 TB/s (no arithmetic)."
            ).format(typed=shorten(whole))
        )
    if basic_unit_scale(unit_text) is None:
        parse_unit(unit_text)  # validates; raises AnswerError with the reason
    return unit_text


def parse_quantity(text: str, *, allow_negative: bool = False) -> pint.Quantity:
    """Read '54.8GiB', '131,072 B', '3.35 TB/s', '449k', '0.9' into a pint Quantity.

    A bare number is dimensionless. Raises AnswerError (a UserError) with one clear line.
    """
    parts = read_quantity_parts(text, negative=allow_negative)
    return registry().Quantity(parts.value, parse_unit(parts.unit_text))


# --- display -------------------------------------------------------------------------------


def format_number(value: float, significant: int = 4) -> str:
    """131072 -> '131,072'; 3.42857 -> '3.429'; 0.5 -> '0.5'; 1.2e-5 -> '1.2e-05'."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude < 1e15 and abs(value - round(value)) <= 1e-9 * max(1.0, magnitude):
        return f"{round(value):,}"
    if magnitude < 1e-3 or magnitude >= 1e15:
        mantissa, exponent = f"{value:.{significant - 1}e}".split("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{exponent}"
    decimals = max(0, significant - 1 - math.floor(math.log10(magnitude)))
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


# Count units written in the plural, and their singular for a count of exactly one.
SINGULAR_COUNT_UNITS = {
    "tokens": "token",
    "requests": "request",
    "sequences": "sequence",
    "blocks": "block",
    "GPUs": "GPU",
}


def format_quantity(
    value: float,
    unit: str,
    significant: int = 4,
    number: Callable[[float, int], str] = format_number,
) -> str:
    """'128 KiB', '131,072 B', '3.35 TB/s', '3.43x', '90%', '448,921 tokens', '1 GPU'.
    ``number`` writes the figure (the app passes the reader's convention for a result shown
    for reading); the default is the engineering form an answer is typed in."""
    figure = number(value, significant)
    unit = normalise_unit_text(unit)
    if not unit or unit == "dimensionless":
        return figure
    if unit in RATIO_UNITS:
        return figure + unit
    if unit == CURRENCY_UNIT:
        return CURRENCY_SIGN + figure
    if figure == "1":
        unit = SINGULAR_COUNT_UNITS.get(unit, unit)
    return f"{figure} {unit}"
