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
from kvdrill.i18n import _

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
    return ", ".join(spelled[value] for value in sorted(values.elements())) or _("nothing")


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
            _('an edition is in another language than its original: both are "{language}"').format(
                language=edition.meta.lang
            ),
        )
    if original.meta.edition_of is not None:
        report(
            edition_line,
            _("{pack} is itself an edition of {original}: name the original pack").format(
                pack=original.meta.pack, original=original.meta.edition_of
            ),
        )
    theirs = {card.key: card for card in original.cards}
    ours = {card.key: card for card in edition.cards}
    for key, card in theirs.items():
        if key not in ours:
            report(
                edition_line,
                _(
                    "card {card} of {pack} ({place}) is missing: an edition has every card id "
                    "of its original"
                ).format(
                    card=_card_id(key),
                    pack=original.meta.pack,
                    place=f"{original.path}:{card.line}",
                ),
            )
    for key, card in ours.items():
        if key not in theirs:
            report(
                card.line,
                _(
                    "card {card} is not in {pack}: an edition has the same card ids as its original"
                ).format(card=_card_id(key), pack=original.meta.pack),
            )
            continue
        for line, message in _card_differences(card, theirs[key], original):
            report(line, message)
    order = [key for key in theirs if key in ours]
    if [key for key in ours if key in theirs] != order:
        report(
            edition_line,
            _("the cards are in another order than in {pack}: keep its order").format(
                pack=original.meta.pack
            ),
        )
    return problems


def rival_editions(editions: list[tuple[ParsedPack, int]]) -> list[Located]:
    """Each of ``editions`` (an edition with the line of its ``edition_of:`` key) that shares
    its original and its language with another: a course has one edition per language, so
    each is reported at its ``edition_of:`` line, naming the other's file."""
    by_course: dict[tuple[str | None, str], list[tuple[ParsedPack, int]]] = {}
    for pack, line in editions:
        by_course.setdefault((pack.meta.edition_of, pack.meta.lang), []).append((pack, line))
    problems: list[Located] = []
    for (original, language), rivals in by_course.items():
        for pack, line in rivals:
            for other, other_line in rivals:
                if other is pack:
                    continue
                problems.append(
                    Located(
                        pack.path,
                        line,
                        _(
                            '{original} has another "{language}" edition, {other} in {place}: '
                            "keep one edition per language"
                        ).format(
                            original=original,
                            language=language,
                            other=other.meta.pack,
                            place=f"{other.path}:{other_line}",
                        ),
                    )
                )
    return problems


def _card_differences(
    card: ParsedCard, original: ParsedCard, pack: ParsedPack
) -> Iterable[tuple[int, str]]:
    """(line, message) for each way ``card`` is not a translation of ``original``."""
    name = _card_id(card.key)
    there = f"{pack.path}:{original.line}"
    if card.kind != original.kind:
        yield (
            card.line,
            _("card {card} is a {kind} card; in {there} it is a {original_kind} card").format(
                card=name, kind=card.kind, there=there, original_kind=original.kind
            ),
        )
        return
    if card.status != original.status:
        yield (
            card.line,
            _("card {card} has status {status}; in {there} it has {original_status}").format(
                card=name, status=card.status, there=there, original_status=original.status
            ),
        )
    if card.lessons != original.lessons:
        yield (
            card.line,
            _("card {card} draws on lessons {lessons}; in {there} on {original_lessons}").format(
                card=name,
                lessons=_listed(card.lessons),
                there=there,
                original_lessons=_listed(original.lessons),
            ),
        )
    if card.tags != original.tags:
        yield (
            card.line,
            _("card {card} has tags {tags}; in {there} {original_tags}").format(
                card=name,
                tags=_listed(card.tags),
                there=there,
                original_tags=_listed(original.tags),
            ),
        )
    for section, ours, theirs in (
        ("### Answer", card.answer, original.answer),
        ("### Tip", card.tip, original.tip),
        ("### Explanation", card.explanation, original.explanation),
    ):
        if bool(ours) != bool(theirs):
            if ours:
                said = _("card {card} has {section}; {there} has none")
            else:
                said = _("card {card} has no {section}; {there} has one")
            yield card.line, said.format(card=name, section=section, there=there)
    if len(card.choices) != len(original.choices):
        yield (
            card.line,
            _("card {card} has {count} choices; {there} has {original_count}").format(
                card=name,
                count=len(card.choices),
                there=there,
                original_count=len(original.choices),
            ),
        )
    elif [choice.correct for choice in card.choices] != [c.correct for c in original.choices]:
        right = ", ".join(
            chr(ord("A") + index) for index, c in enumerate(original.choices) if c.correct
        )
        yield (
            card.line,
            _("card {card} marks other choices correct than {there} ({letters})").format(
                card=name, there=there, letters=right
            ),
        )
    if [item.card for item in card.related] != [item.card for item in original.related]:
        yield (
            card.line,
            _(
                "card {card}'s ### Related differs from {there}: the same items, the same links"
            ).format(card=name, there=there),
        )
    yield from _key_number_differences(card, original, there)
    if (card.problem is None) != (original.problem is None):
        yield (
            card.line,
            _("card {card} and {there} are not both problem templates").format(
                card=name, there=there
            ),
        )
    elif card.problem is not None and original.problem is not None:
        yield from _problem_differences(card, original, there)


def _key_number_differences(
    card: ParsedCard, original: ParsedCard, there: str
) -> Iterable[tuple[int, str]]:
    if len(card.key_numbers) != len(original.key_numbers):
        yield (
            card.line,
            _("card {card} has {count} key numbers; {there} has {original_count}").format(
                card=_card_id(card.key),
                count=len(card.key_numbers),
                there=there,
                original_count=len(original.key_numbers),
            ),
        )
        return
    for ours, theirs in zip(card.key_numbers, original.key_numbers, strict=True):
        original_place = f"{there.rsplit(':', 1)[0]}:{theirs.line}"
        if _spaced(ours.claim) != _spaced(theirs.claim):
            if theirs.claim:
                said = _("the claim differs from {place}, which has `claim: {claim}`")
            else:
                said = _("the claim differs from {place}, which has no claim")
            yield ours.line, said.format(place=original_place, claim=theirs.claim)
        mine, its = _figures(ours.text), _figures(theirs.text)
        if mine != its:
            extra = _written(mine - its, ours.text)
            lacking = _written(its - mine, theirs.text)
            yield (
                ours.line,
                _(
                    "the key number's figures differ from {place}: {extra} here, {lacking} "
                    "there (write numbers as the English pack does: 131,072 and 3.43)"
                ).format(place=original_place, extra=extra, lacking=lacking),
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
                _(
                    "problem field `{field}` differs from {there}: an edition translates only "
                    "the prompt and the unit's word"
                ).format(field=field, there=there),
            )


def _same_unit(ours: object, theirs: object) -> bool:
    """Whether two units of problem blocks name one unit ('yêu cầu' and 'requests')."""
    from kvdrill.engine.capacity.units import AnswerError, parse_unit

    if not (isinstance(ours, str) and isinstance(theirs, str)):
        return False
    if _singular_words(ours) == _singular_words(theirs):
        return True  # one text, but for a plural: no need to build pint's registry
    try:
        return bool(parse_unit(ours) == parse_unit(theirs))
    except AnswerError:
        return False  # the template check reports the unit


def _spaced(text: str | None) -> str | None:
    return " ".join(text.split()) if text is not None else None


def _listed(values: list[str]) -> str:
    return ", ".join(values) if values else _("none")


def _card_id(key: str) -> str:
    """A card as the pack writes its id: ``{#kv-drawn}``."""
    return f"{{#{key}}}"


def _singular_words(unit: str) -> list[str]:
    """A unit's words as the unit reader looks them up, each count word in the singular."""
    from kvdrill.engine.capacity.units import SINGULAR_COUNT_UNITS, unit_lookup_text

    return [SINGULAR_COUNT_UNITS.get(word, word) for word in unit_lookup_text(unit).split("/")]
