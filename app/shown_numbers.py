"""Numbers shown for reading, in the convention of the interface's language: ``1,234.5`` in
English, ``1.234,5`` in Vietnamese (CLDR's, through Babel). The one place that formats a count,
a decimal or a percentage for the learner to read.

Where a number is shown for typing (an answer, a worked solution the learner copies, a unit
in engineering form) it keeps the form the answer reader takes: those never come here.
"""

from __future__ import annotations

from kvdrill import i18n


def count(value: int) -> str:
    """A whole number with its thousands grouped: ``12,345`` / ``12.345``."""
    return _decimal(value, "#,##0", f"{value:,}")


def decimal(value: float, digits: int = 2) -> str:
    """``value`` with exactly ``digits`` decimals, thousands grouped: ``2.50`` / ``2,50``."""
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return _decimal(value, pattern, f"{value:,.{digits}f}")


def short(value: float) -> str:
    """``value`` in its shortest form (Python's ``:g``: ``1.555``, ``80``), with the language's
    decimal mark: ``1,555`` in Vietnamese. For a datasheet figure beside its unit."""
    english = f"{value:g}"
    language = i18n.language()
    if language == i18n.DEFAULT_LANGUAGE:
        return english
    from babel.numbers import get_decimal_symbol

    return english.replace(".", get_decimal_symbol(language))


def figure(value: float, significant: int = 4) -> str:
    """``value`` to ``significant`` figures as engine/capacity/units.format_number rounds it
    (``131,072``, ``3.429``, ``1.2e-05``), in the language's marks: ``131.072``, ``3,429``. For a
    calculated result (``kvdrill calc``) beside its unit."""
    from kvdrill.engine.capacity.units import format_number

    english = format_number(value, significant)
    language = i18n.language()
    if language == i18n.DEFAULT_LANGUAGE:
        return english
    from babel.numbers import get_decimal_symbol, get_group_symbol

    marks = str.maketrans({",": get_group_symbol(language), ".": get_decimal_symbol(language)})
    return english.translate(marks)


def percent(fraction: float, digits: int = 0) -> str:
    """``fraction`` (0.5) as a percentage (``50%``), with ``digits`` decimals."""
    language = i18n.language()
    if language == i18n.DEFAULT_LANGUAGE:
        return f"{fraction * 100:,.{digits}f}%"
    from babel.numbers import format_percent

    pattern = "#,##0" + ("." + "0" * digits if digits else "") + "%"
    return format_percent(fraction, pattern, locale=language)


def _decimal(value: float, pattern: str, english: str) -> str:
    # English is Python's own format, the same text as CLDR's en: Babel's import is paid only
    # by a learner who reads another language (whose catalog Babel has read anyway).
    language = i18n.language()
    if language == i18n.DEFAULT_LANGUAGE:
        return english
    from babel.numbers import format_decimal

    return format_decimal(value, pattern, locale=language)
