"""Editions: a pack that translates another (front matter ``edition_of: <pack id>``).

An edition and its original are one course in two languages: the same card ids, the same
kinds, sections, follow-ups and problem templates, the same numbers in the key numbers and the
same claims, so a card and its edition can be one card for scheduling. ``edition_problems``
reports every difference as ``path:line: what is wrong``.

Numbers in an edition's prose are written as in the English packs (131,072 and 3.43: a comma
groups thousands, a point marks decimals; each Vietnamese pack's introduction says so). Key
numbers are compared by reading them that way, so a Vietnamese-style 131.072 is caught.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from kvdrill.engine.errors import Located
from kvdrill.engine.packs.model import ParsedCard, ParsedPack

# A number as the packs write it: digits, thousands grouped by commas, a decimal point. Not a
# digit inside a word (H100, FP8): a letter, digit, comma or point just before it excludes it.
_NUMBER_RE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*")
_GROUPED_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")

# The fields an edition translates; every other field of a card must be the original's.
_TRANSLATED_PROBLEM_FIELDS = frozenset({"prompt"})  # and `unit`, in words naming the same unit


def number_value(written: str) -> str:
    """A number as the packs write it, read in their convention: '131,072' is 131072, '3.43'
    is 3.43; one that convention cannot read ('131.072.5', '3,43') stays as written, so it
    matches nothing but itself."""
    return written.replace(",", "") if _GROUPED_RE.fullmatch(written) else written


def _figures(text: str) -> Counter[str]:
    return Counter(number_value(written) for written in _NUMBER_RE.findall(text))


def _written(values: Counter[str], text: str) -> str:
    """``values`` as ``text`` writes them, for a message."""
    spelled = {number_value(written): written for written in _NUMBER_RE.findall(text)}
    return ", ".join(spelled[value] for value in sorted(values.elements())) or "nothing"


def edition_problems(
    edition: ParsedPack, original: ParsedPack, edition_line: int, original_line: int = 1
) -> list[Located]:
    """Every way ``edition`` differs from ``original`` beyond its translated text.
    ``edition_line`` is the line of its ``edition_of:`` key (where a missing card is reported)."""
    problems: list[Located] = []
    where = edition.path

    def report(line: int, message: str) -> None:
        problems.append(Located(where, line, message))

    if edition.meta.lang == original.meta.lang:
        report(
            edition_line,
            f'an edition is in another language than its original: both are "{edition.meta.lang}"',
        )
    if original.meta.edition_of is not None:
        report(
            edition_line,
            f"{original.meta.pack} is itself an edition of {original.meta.edition_of}: "
            "name the original pack",
        )
    theirs = {card.key: card for card in original.cards}
    ours = {card.key: card for card in edition.cards}
    for key, card in theirs.items():
        if key not in ours:
            report(
                edition_line,
                f"card {{#{key}}} of {original.meta.pack} ({original.path}:{card.line}) is "
                "missing: an edition has every card id of its original",
            )
    for key, card in ours.items():
        if key not in theirs:
            report(
                card.line,
                f"card {{#{key}}} is not in {original.meta.pack}: an edition has the same card "
                "ids as its original",
            )
            continue
        for line, message in _card_differences(card, theirs[key], original):
            report(line, message)
    order = [key for key in theirs if key in ours]
    if [key for key in ours if key in theirs] != order:
        report(
            edition_line,
            f"the cards are in another order than in {original.meta.pack}: keep its order",
        )
    return problems


def _card_differences(
    card: ParsedCard, original: ParsedCard, pack: ParsedPack
) -> Iterable[tuple[int, str]]:
    """(line, message) for each way ``card`` is not a translation of ``original``."""
    name = f"card {{#{card.key}}}"
    there = f"{pack.path}:{original.line}"
    if card.kind != original.kind:
        yield card.line, f"{name} is a {card.kind} card; in {there} it is a {original.kind} card"
        return
    if card.status != original.status:
        yield card.line, f"{name} has status {card.status}; in {there} it has {original.status}"
    if card.lessons != original.lessons:
        yield (
            card.line,
            f"{name} draws on lessons {_listed(card.lessons)}; in {there} on "
            f"{_listed(original.lessons)}",
        )
    if card.tags != original.tags:
        yield (
            card.line,
            f"{name} has tags {_listed(card.tags)}; in {there} {_listed(original.tags)}",
        )
    for section, ours, theirs in (
        ("### Answer", card.answer, original.answer),
        ("### Tip", card.tip, original.tip),
        ("### Explanation", card.explanation, original.explanation),
    ):
        if bool(ours) != bool(theirs):
            has = "has" if ours else "has no"
            yield card.line, f"{name} {has} {section}; {there} {'has none' if ours else 'has one'}"
    if len(card.choices) != len(original.choices):
        yield (
            card.line,
            f"{name} has {len(card.choices)} choices; {there} has {len(original.choices)}",
        )
    elif [choice.correct for choice in card.choices] != [c.correct for c in original.choices]:
        right = ", ".join(
            chr(ord("A") + index) for index, c in enumerate(original.choices) if c.correct
        )
        yield card.line, f"{name} marks other choices correct than {there} ({right})"
    if [item.card for item in card.related] != [item.card for item in original.related]:
        yield (
            card.line,
            f"{name}'s ### Related differs from {there}: the same items, the same links",
        )
    yield from _key_number_differences(card, original, there)
    if (card.problem is None) != (original.problem is None):
        yield card.line, f"{name} and {there} are not both problem templates"
    elif card.problem is not None and original.problem is not None:
        yield from _problem_differences(card, original, there)


def _key_number_differences(
    card: ParsedCard, original: ParsedCard, there: str
) -> Iterable[tuple[int, str]]:
    name = f"card {{#{card.key}}}"
    if len(card.key_numbers) != len(original.key_numbers):
        yield (
            card.line,
            f"{name} has {len(card.key_numbers)} key numbers; {there} has "
            f"{len(original.key_numbers)}",
        )
        return
    for ours, theirs in zip(card.key_numbers, original.key_numbers, strict=True):
        original_place = f"{there.rsplit(':', 1)[0]}:{theirs.line}"
        if _spaced(ours.claim) != _spaced(theirs.claim):
            stated = f"`claim: {theirs.claim}`" if theirs.claim else "no claim"
            yield ours.line, f"the claim differs from {original_place}, which has {stated}"
        mine, its = _figures(ours.text), _figures(theirs.text)
        if mine != its:
            extra = _written(mine - its, ours.text)
            lacking = _written(its - mine, theirs.text)
            yield (
                ours.line,
                f"the key number's figures differ from {original_place}: "
                f"{extra} here, {lacking} there (write numbers as the English pack does: "
                "131,072 and 3.43)",
            )


def _problem_differences(
    card: ParsedCard, original: ParsedCard, there: str
) -> Iterable[tuple[int, str]]:
    assert card.problem is not None and original.problem is not None
    fields = (card.problem.keys() | original.problem.keys()) - _TRANSLATED_PROBLEM_FIELDS
    for field in sorted(fields):
        ours, theirs = card.problem.get(field), original.problem.get(field)
        if field == "unit" and _same_unit(ours, theirs):
            continue  # in the edition's words: 'yêu cầu' for requests
        if ours != theirs:
            line = card.problem_field_lines.get(field, card.problem_line or card.line)
            yield (
                line,
                f"problem field `{field}` differs from {there}: an edition translates only "
                "the prompt and the unit's word",
            )


def _same_unit(ours: object, theirs: object) -> bool:
    """Whether two units of problem blocks name one unit ('yêu cầu' and 'requests')."""
    from kvdrill.engine.capacity.units import AnswerError, parse_unit

    if not (isinstance(ours, str) and isinstance(theirs, str)):
        return False
    try:
        return bool(parse_unit(ours) == parse_unit(theirs))
    except AnswerError:
        return False  # the template check reports the unit


def _spaced(text: str | None) -> str | None:
    return " ".join(text.split()) if text is not None else None


def _listed(values: list[str]) -> str:
    return ", ".join(values) if values else "none"
