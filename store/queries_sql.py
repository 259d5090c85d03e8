"""The SQL that opens a session and shows a card, written once as text. Standard library only.

The store runs these statements through SQLAlchemy's ``text()`` (store/day_queue.py,
store/cards.py); the fast-start helper (store/fast_start.py) runs the very same text through
``sqlite3`` before SQLAlchemy is even imported. Rows come back as the database stores them
(SQLite: dates as ISO text, JSON as text, booleans as 0 and 1), so the readers below accept both
the stored and the already-decoded forms.
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from kvdrill.engine.records import unchecked
from kvdrill.engine.study.queue import (
    DayCounts,
    QueueCard,
    missing_parents,
    read_today_log,
    with_seen_parents,
)
from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI, Schedule
from kvdrill.engine.study.settings import (
    COURSE_LANGUAGE,
    PackSettings,
    ProfileSettings,
    setting_names,
)

if TYPE_CHECKING:
    from kvdrill.store.sql import Sql

# Every live card with the profile's schedule for it, in pack order; filters are added by
# ``queue_cards_statement``.
_QUEUE_CARDS = """
SELECT cards.id, cards.kind, cards.parent_id, card_states.reviews, card_states.due_day,
       card_states.easiness_milli, card_states.suspended, card_states.buried_until,
       cards.pack_id, cards.status
FROM cards
JOIN packs ON packs.id = cards.pack_id
LEFT OUTER JOIN card_states
  ON card_states.card_id = cards.id AND card_states.profile_id = :profile_id
WHERE NOT cards.retired AND packs.edition_of IS NULL{filters}
ORDER BY packs.id, cards.position, cards.id
"""
# The packs a profile in language :lang is offered: those in its language and the course's
# English packs (shown in :lang where they have an edition in it, CARD_VIEW_SQL).
_IN_LANGUAGE = (
    "(packs.lang IN (:lang, :course) OR packs.lang LIKE :lang_region"
    " OR packs.lang LIKE :course_region)"
)
# ``--pack`` names a pack or one of its editions (whose cards are the original's).
_IN_PACK = "(packs.key = :pack OR packs.key IN (SELECT edition_of FROM packs WHERE key = :pack))"
_DUE_BY = """(card_states.reviews IS NULL OR card_states.reviews = 0
       OR card_states.due_day <= :due_by OR cards.id IN ({missed})
       OR cards.id IN (SELECT follow.parent_id FROM cards AS follow
                       LEFT OUTER JOIN card_states AS follow_state
                         ON follow_state.card_id = follow.id
                        AND follow_state.profile_id = :profile_id
                       WHERE follow.parent_id IS NOT NULL
                         AND COALESCE(follow_state.reviews, 0) = 0))"""
# The cards with a topic (tag or lesson) among ``values`` (the queue's and the browser's).
IN_TOPIC = (
    "cards.id IN (SELECT card_id FROM card_topics WHERE kind = '{kind}' AND value IN ({values}))"
)

# A profile's id and every settings column, by name (reads without the ORM: the fast start,
# the due counts, the fast stats, plain_reads.settings_of). New columns go at the end: the due
# counts read the first ones by position.
PROFILE_SQL = """
SELECT id, new_per_day, reviews_per_day, rollover_hour, answer_seconds, options, theme
FROM profiles
WHERE name = :name
"""

TODAY_LOG_SQL = """
SELECT review_log.card_id, review_log.quality, review_log.moved_schedule, review_log.prev_state,
       cards.pack_id
FROM review_log
JOIN cards ON cards.id = review_log.card_id
WHERE review_log.profile_id = :profile_id AND review_log.study_day = :study_day
  AND NOT review_log.practice
ORDER BY review_log.id
"""

# Which of the cards ``{ids}`` the profile has seen (the parents a queue left out).
_SEEN_CARDS_SQL = """
SELECT card_id FROM card_states
WHERE profile_id = :profile_id AND reviews > 0 AND card_id IN ({ids})
ORDER BY card_id
"""
# A profile's settings of each pack's own (engine/study/settings.py ``PackSettings``).
PACK_SETTINGS_SQL = """
SELECT pack_id, new_per_day, new_order
FROM pack_settings
WHERE profile_id = :profile_id
"""

# The card of the same id in an edition in language :lang of the card's pack, if any: the
# edition pack of lowest id that has the card, picked in a subquery, so each card gives one
# row and no sort (two packs of the language, one without the card, find the other's). The
# edition's card by (pack_id, key), the cards' unique index: joined the other way round SQLite
# materializes every card of every pack for each card read. No LIKE with a bound pattern:
# SQLite prepares such a statement again on every run. The language's regions (``vi`` takes
# ``vi-VN``) by prefix, without case, as SQLite's LIKE matched them.
EDITION_JOIN = """LEFT OUTER JOIN cards AS edition ON edition.id = (
  SELECT edition_card.id
  FROM packs AS in_language
  JOIN cards AS edition_card
    ON edition_card.pack_id = in_language.id AND edition_card.key = cards.key
   AND NOT edition_card.retired
  WHERE in_language.edition_of = packs.key
    AND (in_language.lang = :lang
         OR lower(substr(in_language.lang, 1, length(:lang) + 1)) = lower(:lang) || '-')
  ORDER BY in_language.id
  LIMIT 1)
LEFT OUTER JOIN packs AS edition_pack ON edition_pack.id = edition.pack_id"""

# Everything a card view shows, in one statement: the card's text in language :lang where an
# edition in it has the card (the edition's card of the same id), else its own. The schedule,
# note and ids are the card's own: a card and its edition are one card.
CARD_VIEW_SQL = f"""
SELECT cards.id, cards.key, cards.kind, COALESCE(edition.title, cards.title) AS title,
       COALESCE(edition.prompt, cards.prompt) AS prompt,
       COALESCE(edition.answer, cards.answer) AS answer,
       COALESCE(edition.key_numbers, cards.key_numbers) AS key_numbers,
       COALESCE(edition.tip, cards.tip) AS tip,
       COALESCE(edition.choices, cards.choices) AS choices,
       COALESCE(edition.explanation, cards.explanation) AS explanation,
       COALESCE(edition.related, cards.related) AS related,
       COALESCE(edition.problem, cards.problem) AS problem, cards.tags, cards.status,
       packs.key AS pack_key,
       CASE WHEN edition.id IS NULL THEN packs.title ELSE edition_pack.title END AS pack_title,
       CASE WHEN edition.id IS NULL THEN packs.source_path ELSE edition_pack.source_path END
         AS pack_path,
       COALESCE(edition_parent.title, parent.title) AS parent_title, card_states.reviews,
       card_states.leech, notes.text AS note
FROM cards
JOIN packs ON packs.id = cards.pack_id
LEFT OUTER JOIN cards AS parent ON parent.id = cards.parent_id
{EDITION_JOIN}
LEFT OUTER JOIN cards AS edition_parent ON edition_parent.id = edition.parent_id
LEFT OUTER JOIN card_states
  ON card_states.card_id = cards.id AND card_states.profile_id = :profile_id
LEFT OUTER JOIN notes ON notes.card_id = cards.id AND notes.profile_id = :profile_id
WHERE cards.id = :card_id
"""


# The live problem templates offered in language :lang (pack key, card key, title, template),
# in pack order; ``problem_templates_statement`` adds the language filter.
_PROBLEM_TEMPLATES = f"""
SELECT packs.key, cards.key, COALESCE(edition.title, cards.title) AS title,
       COALESCE(edition.problem, cards.problem) AS problem
FROM cards
JOIN packs ON packs.id = cards.pack_id
{EDITION_JOIN}
WHERE cards.kind = 'problem' AND NOT cards.retired AND packs.edition_of IS NULL{{filters}}
ORDER BY packs.key, cards.position, cards.id
"""


def problem_templates_statement(lang: str, offered_only: bool) -> tuple[str, dict[str, Any]]:
    """The problem-template query: the text in ``lang``; ``offered_only`` keeps the packs
    offered in it (``_IN_LANGUAGE``), else every pack's."""
    filters = f"\n  AND {_IN_LANGUAGE}" if offered_only else ""
    return _PROBLEM_TEMPLATES.format(filters=filters), language_params(lang)


def card_view_params(card_id: int, profile_id: int, lang: str) -> dict[str, Any]:
    """``CARD_VIEW_SQL``'s parameters: the card, the profile, and the language of its text."""
    return {"card_id": card_id, "profile_id": profile_id, **language_params(lang)}


def language_params(lang: str) -> dict[str, str]:
    """A language's parameters (``vi`` also matches ``vi-VN``), and the course's."""
    return {
        "lang": lang,
        "lang_region": f"{lang}-%",
        "course": COURSE_LANGUAGE,
        "course_region": f"{COURSE_LANGUAGE}-%",
    }


def placeholders(prefix: str, values: Sequence[Any], params: dict[str, Any]) -> str:
    """``:prefix_0, :prefix_1, ...`` for ``values``, which go into ``params`` by those names."""
    names = [f"{prefix}_{index}" for index in range(len(values))]
    params.update(zip(names, values, strict=True))
    return ", ".join(f":{name}" for name in names)


def queue_cards_statement(
    profile_id: int,
    *,
    lang: str | None = None,
    pack: str | None = None,
    tag: str | None = None,
    lessons: Sequence[str] = (),
    due_by: date | str | None = None,
    missed: Collection[int] = (),
    flag: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """The queue query and its parameters; ``lessons`` are the spellings of one lesson number;
    ``lang`` keeps the packs offered in that language (``_IN_LANGUAGE``; ``vi`` matches ``vi``
    and ``vi-VN``), ``pack`` a pack (or the original of an edition); an edition's cards are
    never queued: its original's are. ``flag``
    the cards the profile flagged with that colour.

    ``due_by`` (a counting query, ``kvdrill due``) leaves out the seen cards ``plan_day`` cannot
    take that day: kept are new cards, cards due by then, the ``missed`` ones and the parents
    of new follow-ups (whether a follow-up is new depends on them). The counts of the plan are
    the same; the rows are only those a session could show."""
    params: dict[str, Any] = {"profile_id": profile_id}
    filters = []
    if due_by is not None:
        params["due_by"] = due_by
        missed_ids = placeholders("missed", sorted(missed), params)
        filters.append(_DUE_BY.format(missed=missed_ids or "NULL"))
    if lang is not None:
        filters.append(_IN_LANGUAGE)
        params.update(language_params(lang))
    if pack is not None:
        filters.append(_IN_PACK)
        params["pack"] = pack
    if tag is not None:
        filters.append(IN_TOPIC.format(kind="tag", values=":tag"))
        params["tag"] = tag
    if flag is not None:
        filters.append(
            "cards.id IN (SELECT card_id FROM card_flags"
            " WHERE profile_id = :profile_id AND colour = :flag)"
        )
        params["flag"] = flag
    if lessons:
        values = placeholders("lesson", list(lessons), params)
        filters.append(IN_TOPIC.format(kind="lesson", values=values))
    text = _QUEUE_CARDS.format(filters="".join(f"\n  AND {item}" for item in filters))
    return text, params


def stored_day(value: Any) -> date | None:
    """A date column's value (SQLite stores ISO text)."""
    return date.fromisoformat(value) if isinstance(value, str) else value


def stored_time(value: Any) -> datetime | None:
    """A time column's value (SQLite stores ISO text)."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


# A card state's schedule columns, in the order of ``Schedule``'s fields.
SCHEDULE_COLUMNS = tuple(Schedule().columns())


def stored_schedule(row: Sequence[Any]) -> Schedule:
    """The ``Schedule`` in a row of ``SCHEDULE_COLUMNS`` as the database returns it (SQLite:
    ISO text, 0 and 1, JSON text; PostgreSQL: typed values)."""
    (
        repetitions,
        easiness,
        interval,
        due,
        lapses,
        reviews,
        last,
        suspended,
        buried,
        leech,
        memory,
    ) = row
    # Every field, from the row: no frozen ``__init__`` to go through (this is on the answer
    # path).
    return unchecked(
        Schedule,
        {
            "repetitions": repetitions,
            "easiness_milli": easiness,
            "interval_days": interval,
            "due_day": stored_day(due),
            "lapses": lapses,
            "reviews": reviews,
            "last_review_at": stored_time(last),
            "suspended": bool(suspended),
            "buried_until": stored_day(buried),
            "leech": bool(leech),
            "fsrs": stored_json(memory),
        },
    )


def stored_json(value: Any) -> Any:
    """A JSON column's value (SQLite stores text)."""
    if not isinstance(value, str):
        return value
    # The decoder's own scanner: ``json.loads`` less its wrappers (a card view reads four of
    # these between an answer and the next card). Anything it does not take whole, such as
    # surrounding spaces or a damaged text, goes to ``json.loads``, which reads or refuses it.
    try:
        decoded, end = _scan_json(value, 0)
    except StopIteration:
        return json.loads(value)
    return decoded if end == len(value) else json.loads(value)


# typeshed types make_scanner's argument as the scanner itself; it reads a JSONDecoder.
_scan_json = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]


def stored_settings(row: Mapping[str, Any]) -> ProfileSettings:
    """A profile's settings from its row (column -> value): the ``options`` JSON, and the
    settings that have a column of their own."""
    values = dict(stored_json(row["options"]) or {})
    values.update(
        {name: row[name] for name in setting_names() if name != "options" and name in row}
    )
    return ProfileSettings.from_values(values)


def options_language(options: Any) -> str:
    """The pack language a profile studies, from its ``options`` column (default ``en``)."""
    return ProfileSettings.from_values(stored_json(options) or {}).language


def queue_cards_from_rows(
    rows: Iterable[Sequence[Any]], missed_today: Collection[int]
) -> list[QueueCard]:
    """The queue query's rows as the policy's ``QueueCard`` entries, in the same order."""
    missed = set(missed_today)
    cards = []
    for order, row in enumerate(rows):
        card_id, kind, parent_id, reviews, due_day, easiness, suspended, buried_until = row[:8]
        pack_id, status = row[8:]
        seen = bool(reviews)
        cards.append(
            QueueCard(
                card_id=card_id,
                kind=kind,
                order=order,
                parent_id=parent_id,
                due_day=stored_day(due_day) if seen else None,
                easiness_milli=easiness if easiness is not None else NEW_CARD_EASINESS_MILLI,
                seen=seen,
                missed_today=card_id in missed,
                suspended=bool(suspended),
                buried_until=stored_day(buried_until),
                pack=pack_id,
                priority=status == "priority",
            )
        )
    return cards


def today_log_answers(
    rows: Iterable[Sequence[Any]],
) -> Iterator[tuple[int, int, bool, Schedule | None, int]]:
    """The today-log query's rows as ``engine.queue.read_today_log`` takes them."""
    for card_id, quality, moved, prev_state, pack_id in rows:
        before = stored_json(prev_state)
        schedule = Schedule.from_dict(before) if before else None
        yield card_id, quality, bool(moved), schedule, pack_id


# Runs one statement with its parameters and gives its rows: a sqlite3 connection's
# ``execute``, or an ``Sql``'s ``rows`` (store/day_queue.py, app/services/overview.py).
Execute = Callable[[str, dict[str, Any]], Iterable[Sequence[Any]]]


def read_day_counts(
    execute: Execute, profile_id: int, today: date, new_per_day: int, reviews_per_day: int
) -> tuple[DayCounts, set[int]]:
    """Today's counts against the profile's and each pack's limits (the packs' own settings
    with them), and the cards whose last grade today was < 4: what ``plan_day`` needs besides
    the cards. The drill, ``kvdrill due``, the fast start and home all read them here."""
    log = execute(TODAY_LOG_SQL, {"profile_id": profile_id, "study_day": today.isoformat()})
    answers = list(today_log_answers(log))
    packs = pack_settings_from_rows(execute(PACK_SETTINGS_SQL, {"profile_id": profile_id}))
    return read_today_log(answers, new_per_day, reviews_per_day, packs)


def pack_settings_from_rows(rows: Iterable[Sequence[Any]]) -> dict[int, PackSettings]:
    """``PACK_SETTINGS_SQL``'s rows: each pack's own settings, by pack id."""
    return {
        pack_id: PackSettings.from_values({"new_per_day": new_per_day, "new_order": new_order})
        for pack_id, new_per_day, new_order in rows
    }


def with_parents_seen(sql: Sql, profile_id: int, cards: list[QueueCard]) -> list[QueueCard]:
    """``cards`` with the parents they leave out (retired, or by a filter) that the profile has
    seen, as unavailable entries, so the policy knows whether a follow-up's parent was seen."""
    missing = missing_parents(cards)
    if not missing:
        return cards
    params: dict[str, Any] = {"profile_id": profile_id}
    ids = placeholders("card", sorted(missing), params)
    seen = [row[0] for row in sql.rows(_SEEN_CARDS_SQL.format(ids=ids), params)]
    return with_seen_parents(cards, seen)
