"""Every bundled problem template, a range of seeds, and typed answers with odd units: a
verdict or a one-line refusal, never a crash (a pint error escaping ended a session)."""

from __future__ import annotations

from pathlib import Path

import pytest
from template_helpers import bundled_templates

from kvdrill.engine.capacity.units import format_number, unit_scale
from kvdrill.engine.errors import UserError
from kvdrill.engine.problems.checker import check_answer
from kvdrill.engine.problems.generator import make_variant

DECKS = Path(__file__).resolve().parent.parent / "decks"
ODD_UNITS = [
    "dimensionless", "Dimensionless", "percent", "%", "count", "tokens", "token", "x",
    "B", "bytes", "KiB", "GB", "ms", "s", "GB/s", "tokens/s", "FLOP", "kelvin", "m", "1",
    "dimensionless/s", "B/dimensionless", "ppm", "radian",
]  # fmt: skip
SEEDS = range(6)


TEMPLATES = bundled_templates()


@pytest.mark.parametrize(("template_id", "problem"), TEMPLATES, ids=[t for t, _ in TEMPLATES])
def test_odd_units_get_a_verdict_or_a_one_line_refusal(template_id: str, problem: dict) -> None:
    for seed in SEEDS:
        variant = make_variant(problem, template_id, seed)
        number = format_number(variant.expected_value)
        for unit in ODD_UNITS:
            typed = f"{number} {unit}"
            try:
                verdict = check_answer(variant, typed)
            except UserError as exc:  # pragma: no cover - the checker reports, not raises
                pytest.fail(f"{template_id} seed {seed} {typed!r}: raised {exc}")
            text = verdict.headline
            assert text and "\n" not in text, (template_id, seed, typed, text)


def test_dimensionless_on_a_count_reads_as_the_plain_number() -> None:
    counts = [(t, p) for t, p in TEMPLATES if not unit_scale(make_variant(p, t, 0).unit)[1]]
    assert counts, "no bundled template asks for a plain count"
    template_id, problem = counts[0]
    variant = make_variant(problem, template_id, 0)
    verdict = check_answer(variant, f"{format_number(variant.expected_value, 6)} dimensionless")
    assert verdict.correct


def _cost_variant():
    problem = dict(TEMPLATES)["cost-and-capacity/gen-cost-per-million"]
    return make_variant(problem, "cost-and-capacity/gen-cost-per-million", 3)


def test_a_price_is_typed_in_dollars_and_a_percentage_is_refused() -> None:
    variant = _cost_variant()
    dollars = format_number(variant.expected_value)
    for typed in (dollars, f"${dollars}", f"$ {dollars}", f"{dollars} USD", f"{dollars} dollars"):
        assert check_answer(variant, typed).correct, typed
    # The same digits read as a percentage or a ratio are another quantity, not a price.
    cents = format_number(variant.expected_value * 100)
    for typed in (f"{cents}%", f"{dollars}x"):
        verdict = check_answer(variant, typed)
        assert not verdict.correct and verdict.unreadable, typed
        assert "amount of money" in verdict.headline, (typed, verdict.headline)


def test_a_dollar_sign_and_another_unit_are_refused_in_one_line() -> None:
    verdict = check_answer(_cost_variant(), "$0.17 GB")
    assert verdict.unreadable and "$ sign and the unit GB" in verdict.headline
