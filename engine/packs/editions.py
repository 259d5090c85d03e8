"""Editions: a pack that translates another (front matter ``edition_of: <pack id>``).

An edition and its original are one course in two languages: the same card ids, the same
kinds, sections, follow-ups and problem templates, the same numbers in the key numbers and the
same claims, so a card and its edition can be one card for scheduling. ``edition_problems``
reports every difference as ``path:line: what is wrong``.

Numbers for reading are written in the pack's own language's convention (``CONVENTIONS``): an
English pack writes 131,072 and 3.43, a Vietnamese one 131.072 and 3,43. For reading is the
text a learner reads: the title, the introduction and description, every section's text and
each key number's text. Not for reading, and kept in the engineering forms the answer reader
and the engine take in every language: code spans and fenced blocks (a problem block
whole, its prompt included: it tells what to type), `claim:` spans, and names (a digit inside
a word: H100, FP8, Qwen2.5, v0.21; a number with points right after a capitalised Latin word
where the original writes the same, Llama 3.1; a number no convention reads, 0.6.5).

Key numbers are compared by value, each pack's read in its convention, so 4.096 in a
Vietnamese edition matches 4,096 in English; a number its convention cannot read compares as
written, so Llama 3.1 matches Llama 3.1. ``stale_numbers`` reports a number an edition still
writes the English way (0.5, or 4,096 where the original has 4096), with the form to write.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kvdrill.engine.errors import Located
from kvdrill.engine.packs.model import ParsedCard, ParsedPack
from kvdrill.i18n import _

# A number as the packs write it: digits, with points or commas between them. Not a digit
# inside a word (H100, FP8): a letter, digit, comma or point just before it excludes it.
_NUMBER_RE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*")
# Text that is not for reading: inline code spans (claims among them) and fenced blocks.
_CODE_SPAN_RE = re.compile(r"(`+).+?\1")
_FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
_COMMENT_RE = re.compile(r"<!--.*?-->")
# A capitalised Latin word and a space: a name whose version may follow (Llama 3.1).
_NAME_BEFORE_RE = re.compile(r"(?<![\w-])([A-Z][A-Za-z]*) $")

# The fields an edition translates; every other field of a card must be the original's.
_TRANSLATED_PROBLEM_FIELDS = frozenset({"prompt"})  # and `unit`, in words naming the same unit


@dataclass(frozen=True)
class Convention:
    """How a language writes a number for reading: the mark grouping thousands, the decimal one."""

    group: str
    decimal: str

    def example(self) -> str:
        """131,072 and 3.43 in this convention, for a message."""
        return f"131{self.group}072, 3{self.decimal}43"


ENGLISH = Convention(group=",", decimal=".")
# Languages whose packs write numbers otherwise than English (CLDR's marks); any other
# language's pack is read the English way until it is added here.
CONVENTIONS = {"vi": Convention(group=".", decimal=",")}


def convention(language: str) -> Convention:
    """The convention of a pack's ``lang`` (``vi``, ``vi-VN``)."""
    return CONVENTIONS.get(language.split("-")[0].lower(), ENGLISH)


def number_value(written: str, writing: Convention = ENGLISH) -> str | None:
    """A number as a pack writes it, read in the pack's convention, as plain digits with a
    decimal point: in English '131,072' is '131072' and '3.43' is '3.43'; in Vietnamese
    '131.072' is '131072' and '3,43' is '3.43'. None for a number the convention cannot read
    ('3.1' or '0.6.5' in Vietnamese, '1,5' or '0.6.5' in English)."""
    group, decimal = re.escape(writing.group), re.escape(writing.decimal)
    if re.fullmatch(
        rf"\d{{1,3}}(?:{group}\d{{3}})+(?:{decimal}\d+)?|\d+(?:{decimal}\d+)?", written
    ):
        return written.replace(writing.group, "").replace(writing.decimal, ".")
    return None


def _figure(written: str, writing: Convention) -> str:
    """What a number compares as: its value, or as written when its convention cannot read it."""
    return number_value(written, writing) or written


def _figures(text: str, writing: Convention) -> Counter[str]:
    return Counter(_figure(written, writing) for written in _NUMBER_RE.findall(text))


def _written(values: Counter[str], text: str, writing: Convention) -> str:
    """``values`` as ``text`` writes them, for a message."""
    spelled = {_figure(written, writing): written for written in _NUMBER_RE.findall(text)}
    return ", ".join(spelled[value] for value in sorted(values.elements())) or _("nothing")


def edition_problems(
    edition: ParsedPack,
    original: ParsedPack,
    edition_line: int,
    original_line: int = 1,
    lines: Sequence[str] = (),
) -> list[Located]:
    """Every way ``edition`` differs from ``original`` beyond its translated text.
    ``edition_line`` is the line of its ``edition_of:`` key (where a missing card is reported);
    ``lines`` are the edition file's lines, read for numbers written the English way."""
    problems: list[Located] = stale_numbers(edition, original, lines)
    where = edition.path
    writing = convention(edition.meta.lang)

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
        for line, message in _card_differences(card, theirs[key], original, writing):
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


def one_language(first: str, second: str) -> bool:
    """Whether editions in ``first`` and ``second`` would both serve one profile: the same tag,
    or one a region of the other (``vi`` and ``vi-VN``), without case, as a profile's language
    takes its regions (store/queries_sql.py ``_EDITION_JOIN``)."""
    first, second = first.lower(), second.lower()
    return first == second or first.startswith(second + "-") or second.startswith(first + "-")


def rival_editions(editions: list[tuple[ParsedPack, int]]) -> list[Located]:
    """Each of ``editions`` (an edition with the line of its ``edition_of:`` key) that shares
    its original and its language (``one_language``) with another: a course has one edition
    per language, so each is reported at its ``edition_of:`` line, naming the other's file."""
    problems: list[Located] = []
    for pack, line in editions:
        for other, other_line in editions:
            if other is pack or other.meta.edition_of != pack.meta.edition_of:
                continue
            if not one_language(pack.meta.lang, other.meta.lang):
                continue
            problems.append(
                Located(
                    pack.path,
                    line,
                    _(
                        '{original} has another "{language}" edition, {other} in {place}: '
                        "keep one edition per language"
                    ).format(
                        original=pack.meta.edition_of,
                        language=other.meta.lang,
                        other=other.meta.pack,
                        place=f"{other.path}:{other_line}",
                    ),
                )
            )
    return problems


def stale_numbers(edition: ParsedPack, original: ParsedPack, lines: Sequence[str]) -> list[Located]:
    """Each number for reading in ``lines`` (the edition's file) written in the original's
    convention where the edition's language writes numbers otherwise: one the edition's
    convention cannot read (0.5 in Vietnamese), or one it reads as another value than the
    original's card has where the original has the value it means (4,096 where the original
    has 4096, not the decimal 4.096), each with the form to write."""
    ours, theirs = convention(edition.meta.lang), convention(original.meta.lang)
    if ours == theirs or not lines:
        return []
    swapped = str.maketrans({theirs.group: ours.group, theirs.decimal: ours.decimal})
    said = _reading_texts(original)
    names = " ".join(" ".join(said.values()).split())  # a name wrapped over two lines is one
    values = {
        group: {_figure(written, theirs) for written in _NUMBER_RE.findall(text)}
        for group, text in said.items()
    }
    everywhere = set().union(*values.values())
    starts = sorted((card.line, card.parent or card.key) for card in edition.cards)
    start_lines = [line for line, _key in starts]
    problems: list[Located] = []
    previous = ""
    for number, text in _reading_lines(lines):
        index = bisect_right(start_lines, number) - 1
        group = starts[index][1] if index >= 0 else _INTRODUCTION
        if group not in values:
            continue  # a card the original lacks: reported as such
        for match in _NUMBER_RE.finditer(text):
            written = match.group()
            read, meant = number_value(written, ours), number_value(written, theirs)
            if meant is None or meant == read:
                continue
            if read is not None and (read in values[group] or meant not in everywhere):
                continue  # the original has the value as read here, or nowhere as meant
            before = text[: match.start()]
            name = _NAME_BEFORE_RE.search(before if before.strip() else previous.rstrip() + " ")
            if read is None and name and f"{name.group(1)} {written}" in names:
                continue  # a version in a name, as the original writes it: Llama 3.1
            problems.append(
                Located(
                    edition.path,
                    number,
                    _(
                        "{number} is written the way {original} writes numbers "
                        "({original_example}): in this pack write {form}"
                    ).format(
                        number=written,
                        original=original.meta.pack,
                        original_example=theirs.example(),
                        form=written.translate(swapped),
                    ),
                )
            )
        previous = text
    return problems


_INTRODUCTION = ""  # the group of the lines before the first card: not a card id


def _reading_texts(pack: ParsedPack) -> dict[str, str]:
    """A pack's text for reading by card (a follow-up with its parent), its title, description
    and introduction under ``_INTRODUCTION``; code spans left out."""
    texts = {_INTRODUCTION: [pack.meta.title, pack.meta.description, pack.intro]}
    for card in pack.cards:
        prompt = (card.problem or {}).get("prompt")
        texts.setdefault(card.parent or card.key, []).extend(
            [
                card.title,
                card.prompt,
                card.answer,
                card.tip,
                card.explanation,
                *(choice.text for choice in card.choices),
                *(item.prompt for item in card.related),
                *(item.text for item in card.key_numbers),
                prompt if isinstance(prompt, str) else "",
            ]
        )
    return {group: _CODE_SPAN_RE.sub(" ", "\n".join(parts)) for group, parts in texts.items()}


def _reading_lines(lines: Sequence[str]) -> Iterable[tuple[int, str]]:
    """(1-based line, its text for reading) of a pack file: the front matter's title and
    description, and every line outside fenced blocks and HTML comments, code spans blanked."""
    start = 0
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() in ("---", "..."):
                start = index + 1
                break
            if lines[index].startswith(("title:", "description:")):
                yield index + 1, lines[index]
    fence: str | None = None
    in_comment = False
    for index in range(start, len(lines)):
        text = lines[index]
        if in_comment:
            if "-->" not in text:
                continue
            text, in_comment = text.split("-->", 1)[1], False
        elif fence is None and (opened := _FENCE_RE.match(text)):
            fence = opened.group(1)
            continue
        elif fence is not None:
            closing = _FENCE_RE.match(text)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = None
            continue
        text = _COMMENT_RE.sub(" ", text)
        if "<!--" in text:
            text, in_comment = text.split("<!--", 1)[0], True
        yield index + 1, _CODE_SPAN_RE.sub(" ", text)


def _card_differences(
    card: ParsedCard, original: ParsedCard, pack: ParsedPack, writing: Convention
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
    yield from _key_number_differences(card, original, there, writing, convention(pack.meta.lang))
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
    card: ParsedCard,
    original: ParsedCard,
    there: str,
    writing: Convention,
    original_writing: Convention,
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
        mine, its = _figures(ours.text, writing), _figures(theirs.text, original_writing)
        if mine != its:
            extra = _written(mine - its, ours.text, writing)
            lacking = _written(its - mine, theirs.text, original_writing)
            yield (
                ours.line,
                _(
                    "the key number's figures differ from {place}: {extra} here, {lacking} "
                    "there (this pack writes numbers as in {example})"
                ).format(
                    place=original_place, extra=extra, lacking=lacking, example=writing.example()
                ),
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
