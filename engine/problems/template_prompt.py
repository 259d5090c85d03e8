"""The ``prompt`` of a problem block: its length and its ``{placeholder}``s checked."""

from __future__ import annotations

from collections.abc import Mapping

from kvdrill.engine.capacity.units import AnswerError
from kvdrill.engine.problems.placeholders import SPECIAL_PLACEHOLDERS, iter_placeholders
from kvdrill.engine.problems.quantities import catalog_symbol, unit_dimension
from kvdrill.engine.problems.template_fields import MAX_PROMPT_CHARS
from kvdrill.engine.problems.template_types import IssueSink
from kvdrill.i18n import _


def prompt_placeholders(
    prompt: str, ask: str, units: Mapping[str, str], issue: IssueSink
) -> tuple[tuple[str, str | None], ...]:
    """The prompt's placeholders as (name, unit or None), each checked: it names something
    the problem defines, does not show the answer, and its unit fits."""
    if len(prompt) > MAX_PROMPT_CHARS:
        issue("prompt", _("prompt is over {most} characters").format(most=MAX_PROMPT_CHARS))
    found: list[tuple[str, str | None]] = []
    for match in iter_placeholders(prompt):
        if match is None:
            issue(
                "prompt",
                _(
                    "a lone {open} or {close}: write {open}{open} or {close}{close} for a "
                    "literal brace"
                ).format(open="{", close="}"),
            )
            continue
        raw_name, unit = match
        name = raw_name if raw_name in SPECIAL_PLACEHOLDERS else catalog_symbol(raw_name)
        if name is None and raw_name in units:
            name = raw_name
        if name is None:
            issue(
                "prompt",
                _("placeholder {placeholder} names nothing this problem defines").format(
                    placeholder=f"{{{raw_name}}}"
                ),
            )
            continue
        if name == ask:
            issue(
                "prompt",
                _("placeholder {placeholder} would show the answer").format(
                    placeholder=f"{{{raw_name}}}"
                ),
            )
            continue
        if unit is not None:
            if name in SPECIAL_PLACEHOLDERS:
                issue(
                    "prompt",
                    _("placeholder {placeholder} takes no unit").format(
                        placeholder=f"{{{raw_name}}}"
                    ),
                )
                continue
            try:
                if unit_dimension(unit) != unit_dimension(units[name]):
                    issue(
                        "prompt",
                        _("placeholder {placeholder}: {unit} does not fit {name}").format(
                            placeholder=f"{{{raw_name}:{unit}}}", unit=unit, name=name
                        ),
                    )
                    continue
            except AnswerError as exc:
                issue(
                    "prompt",
                    _("placeholder {placeholder}: {reason}").format(
                        placeholder=f"{{{raw_name}:{unit}}}", reason=exc
                    ),
                )
                continue
        found.append((name, unit))
    return tuple(dict.fromkeys(found))
