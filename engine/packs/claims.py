"""Fact-checked key numbers: a claim names a quantity, its inputs and the value a card states.

Syntax (the text after ``claim:`` in a key-numbers item; documented in decks/README.md)::

    QUANTITY [name=value ...] = VALUE [UNIT] [±N%]

- QUANTITY is what ``kvdrill calc`` takes: a formula name (``kv_bytes_per_token``), an alias, or
  an input to solve for when the formula's result is among the inputs (``max_model_len`` with
  ``max_concurrency=10``).
- ``model=``, ``gpu=``, ``dtype=``, ``kv_dtype=``, ``tp=`` pick catalog entries as ``--model``,
  ``--gpu``, ``--dtype``, ``--kv-dtype``, ``--tp`` do; any other ``name=value`` sets a symbol as
  ``--set`` does (``pool=54.8GiB``, ``request_tokens=1800``); values have no spaces.
- ``vllm=VERSIONS`` records the vLLM versions a figure about vLLM's behaviour or defaults holds
  for: ``vllm=0.21+`` (from 0.21 on), ``vllm=0.8-0.27`` (a range) or ``vllm=0.6.5`` (one
  release). It takes no part in the computation; the key number's own text must name the
  version too (``v0.21``), so the learner reads it.
- VALUE is read like a typed answer (``128 KiB``, ``449k``, ``3.43x``, ``131,072 B``). It matches
  when the computed value, in VALUE's unit, rounds to it at the precision written (``449k`` covers
  448.5k to 449.5k), or lies within an explicit ``±N%`` (also written ``+-N%``).

Everything is computed by engine/capacity/compute.py, the code behind ``kvdrill calc``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from kvdrill.engine.errors import Located, UserError
from kvdrill.engine.packs.model import KeyNumber, ParsedPack
from kvdrill.i18n import N_, _

MAX_CLAIM_CHARS = 500
CATALOG_KEYS = ("model", "gpu", "dtype", "kv_dtype", "tp")

_SYNTAX = N_("write `claim: QUANTITY name=value ... = VALUE UNIT`")
VERSION_KEY = "vllm"
_VERSION = re.compile(r"^(\d+(?:\.\d+){0,2})(?:\+|-(\d+(?:\.\d+){0,2}))?$")
_TOLERANCE = re.compile(r"\s*(?:±|\+-|\+/-)\s*(\d+(?:\.\d+)?)\s*%\s*$")


class ClaimError(UserError):
    """A claim that cannot be read or computed, in one line."""


@dataclass(frozen=True)
class Claim:
    quantity: str
    settings: dict[str, str] = field(default_factory=dict)  # catalog keys: model, gpu, ...
    sets: dict[str, str] = field(default_factory=dict)  # symbol -> value text
    stated: str = ""  # the value as written, without the tolerance
    tolerance: float | None = None  # explicit relative tolerance, if written
    vllm: str | None = None  # the vLLM versions the figure holds for ("0.21+", "0.8-0.27")


@dataclass(frozen=True)
class Computed:
    quantity: str  # the asked quantity (formula output or solved symbol)
    value: float  # in base units
    unit: str  # the quantity's unit in engine/capacity/formulas.py ("byte", "token", ...)


def parse_claim(text: str) -> Claim:
    """Split a claim into its quantity, inputs and stated value; ClaimError if malformed."""
    if len(text) > MAX_CLAIM_CHARS:
        raise ClaimError(_("claim is over {most} characters").format(most=MAX_CLAIM_CHARS))
    words = text.split()
    if "=" not in words:
        raise ClaimError(_("claim has no ` = VALUE`: {syntax}").format(syntax=_(_SYNTAX)))
    split = words.index("=")
    left, right = words[:split], " ".join(words[split + 1 :])
    if not left or "=" in left[0]:
        raise ClaimError(_("claim names no quantity: {syntax}").format(syntax=_(_SYNTAX)))
    settings: dict[str, str] = {}
    sets: dict[str, str] = {}
    vllm = None
    for pair in left[1:]:
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise ClaimError(_("claim input {pair} is not name=value").format(pair=repr(pair)))
        key = name.strip().lower().replace("-", "_")
        if key == VERSION_KEY:
            if vllm is not None:
                raise ClaimError(_("claim sets {name} twice").format(name=VERSION_KEY))
            if not _VERSION.match(value):
                raise ClaimError(
                    _(
                        "claim vllm={value} is not a version: write vllm=0.21+, vllm=0.8-0.27 "
                        "or vllm=0.6.5"
                    ).format(value=value)
                )
            vllm = value
            continue
        target = settings if key in CATALOG_KEYS else sets
        if key in target:
            raise ClaimError(_("claim sets {name} twice").format(name=name))
        target[key] = value
    tolerance = None
    match = _TOLERANCE.search(right)
    if match:
        tolerance = float(match.group(1)) / 100
        right = right[: match.start()].strip()
        if not 0 < tolerance <= 0.5:
            raise ClaimError(
                _("claim tolerance ±{percent}% is outside (0, 50%]").format(percent=match.group(1))
            )
    if not right:
        raise ClaimError(_("claim states no value after `=`: {syntax}").format(syntax=_(_SYNTAX)))
    return Claim(left[0], settings, sets, right, tolerance, vllm)


def compute(claim: Claim) -> Computed:
    """The claimed quantity computed by the formula engine, exactly as ``kvdrill calc`` does."""
    from kvdrill.engine.capacity.compute import compute as compute_quantity
    from kvdrill.engine.capacity.compute import symbol_value

    overrides = dict(symbol_value(name, text) for name, text in claim.sets.items())
    result = compute_quantity(
        claim.quantity,
        model=claim.settings.get("model"),
        gpu=claim.settings.get("gpu"),
        dtype=claim.settings.get("dtype", "bf16"),
        kv_dtype=claim.settings.get("kv_dtype"),
        tp=_tp(claim.settings.get("tp", "1")),
        overrides=overrides,
    )
    return Computed(result.quantity, result.value, result.unit)


def _tp(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise ClaimError(_("tp={text} is not a whole number of GPUs").format(text=text))
    return int(text)


@dataclass(frozen=True)
class Check:
    """The outcome of one claim: whether it holds, and the numbers behind it."""

    holds: bool
    computed_text: str  # the computed value in the stated unit
    allowed_text: str  # the range the stated value allows


def check_claim(claim: Claim, computed: Computed | None = None) -> Check:
    """Compare the claim (``computed``, else computed here) with the stated value at the
    precision written."""
    from kvdrill.engine.capacity.units import (
        convert,
        format_number,
        format_quantity,
        read_quantity_parts,
    )

    if computed is None:
        computed = compute(claim)
    stated = read_quantity_parts(claim.stated)
    own_unit = "" if computed.unit == "dimensionless" else computed.unit
    unit = stated.unit_text if stated.unit_text else own_unit
    value = convert(computed.value, own_unit, unit)
    if claim.tolerance is not None:
        low = stated.value * (1 - claim.tolerance)
        high = stated.value * (1 + claim.tolerance)
    else:
        half = _half_last_digit(stated.value, stated.significant_figures)
        low, high = stated.value - half, stated.value + half
    holds = low <= value <= high or math.isclose(value, stated.value, rel_tol=1e-9)
    shown_unit = stated.unit_text or ""
    allowed = _("{low} to {high}").format(
        low=format_number(low, 6), high=format_quantity(high, shown_unit, 6)
    )
    return Check(holds, format_quantity(value, shown_unit, 6), allowed)


def _half_last_digit(value: float, figures: int) -> float:
    if value == 0:
        return 0.0
    return 0.5 * 10 ** (math.floor(math.log10(abs(value))) - figures + 1)


def verify_claims(pack: ParsedPack) -> list[Located]:
    """Every claim of the pack that is malformed, cannot be computed, or does not hold."""
    return verify_key_numbers([item for card in pack.cards for item in card.key_numbers], pack.path)


def verify_key_numbers(items: Iterable[KeyNumber], path: str) -> list[Located]:
    """``verify_claims`` over key numbers (also those of a file with other errors)."""
    problems: list[Located] = []
    for item in items:
        if not item.claim:  # none, or empty (the parser reports that)
            continue
        message = _key_number_problem(item)
        if message:
            problems.append(Located(path, item.line, message))
    return problems


def _key_number_problem(item: KeyNumber) -> str | None:
    """Why a key number's claim fails, or what it leaves unsaid; the claim parsed and computed
    once for all the checks."""
    try:
        claim = parse_claim(item.claim or "")
        computed = compute(claim)
        result = check_claim(claim, computed)
    except UserError as exc:
        return _("claim: {reason}").format(reason=exc)
    if not result.holds:
        return _mismatch(claim, result)
    return _version_unnamed(item, claim) or _version_unsaid(claim, computed.value)


def _version_unnamed(item: KeyNumber, claim: Claim) -> str | None:
    """A claim's vllm= versions that the key number's text does not tell the learner."""
    if claim.vllm is None:
        return None
    match = _VERSION.match(claim.vllm)
    first = match.group(1) if match else claim.vllm
    if f"v{first}" in item.text:
        return None
    return _("claim holds for vLLM {versions}: say so in the key number (write v{first})").format(
        versions=claim.vllm, first=first
    )


def _version_unsaid(claim: Claim, value: float) -> str | None:
    """A claim without vllm= whose ``value`` rests on a default only some vLLM releases have."""
    from kvdrill.engine.capacity.compute import canonical_symbol
    from kvdrill.engine.capacity.forward import DEFAULTS, VERSIONED_DEFAULTS

    if claim.vllm is not None:
        return None
    set_by_claim = {canonical_symbol(name) for name in claim.sets}
    for name, versions in VERSIONED_DEFAULTS.items():
        if name in set_by_claim:
            continue
        moved = replace(claim, sets={**claim.sets, name: repr(DEFAULTS[name] * 2)})
        try:
            moved_value = compute(moved).value
        except UserError:
            continue  # no value with the default moved: the claim's value cannot rest on it
        if not math.isclose(moved_value, value, rel_tol=1e-9):
            return _(
                "claim rests on vLLM's default {name} ({default}), which holds for vLLM "
                "{versions}: add vllm={versions} and name the version in the text, or set {name}"
            ).format(name=name, default=f"{DEFAULTS[name]:,g}", versions=versions)
    return None


def claim_problem(text: str) -> str | None:
    """Why a claim fails, in one line, or None when it holds."""
    try:
        claim = parse_claim(text)
        result = check_claim(claim)
    except UserError as exc:
        return _("claim: {reason}").format(reason=exc)
    return None if result.holds else _mismatch(claim, result)


def _mismatch(claim: Claim, result: Check) -> str:
    return _(
        "claim {quantity}: the card states {stated}, the engine computes {computed} "
        "(the value as written allows {allowed})"
    ).format(
        quantity=claim.quantity,
        stated=claim.stated,
        computed=result.computed_text,
        allowed=result.allowed_text,
    )


__all__ = [
    "Check",
    "Claim",
    "ClaimError",
    "Computed",
    "check_claim",
    "claim_problem",
    "compute",
    "parse_claim",
    "verify_claims",
]
