"""The store queries that feed the queue policy in engine/study/queue.py.

One query reads every live card with its schedule for the profile, one reads today's log; the
policy then decides. Narrowing by ``--pack``, ``--tag`` and ``--lesson`` happens in SQL. The
statements' text lives in store/queries_sql.py, shared with the fast-start helper.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date

from sqlalchemy import Select, select, text
from sqlalchemy.orm import Session

from kvdrill.engine.errors import UserError
from kvdrill.engine.study.queue import DayCounts, QueueCard
from kvdrill.i18n import _
from kvdrill.store.db import session_sql
from kvdrill.store.models import CardTopic, Pack, Profile
from kvdrill.store.queries_sql import (
    queue_cards_from_rows,
    queue_cards_statement,
    read_day_counts,
    with_parents_seen,
)


def pack_keys(session: Session) -> list[str]:
    return list(session.scalars(select(Pack.key).order_by(Pack.key)))


def lesson_spellings(lesson: str) -> list[str]:
    """The ways a lesson number may be stored: ``"05"`` and ``"5"`` are the same lesson."""
    text = lesson.strip()
    if not text.isdigit():
        return [text]
    return list(dict.fromkeys([text, str(int(text)), f"{int(text):02d}"]))


def lesson_values(session: Session) -> list[str]:
    """Every lesson some card draws on, numbers in numeric order."""
    values = session.scalars(select(CardTopic.value).where(CardTopic.kind == "lesson").distinct())
    return sorted(values, key=lambda value: (len(value.lstrip("0")), value.lstrip("0"), value))


def cards_of_lesson(lesson: str) -> Select:
    """The ids of the cards of ``lesson``, as a subquery."""
    return select(CardTopic.card_id).where(
        CardTopic.kind == "lesson", CardTopic.value.in_(lesson_spellings(lesson))
    )


def check_filters(
    session: Session, pack: str | None, tag: str | None, lesson: str | None = None
) -> None:
    """A ``--pack``, ``--tag`` or ``--lesson`` that matches nothing is a UserError naming what
    exists."""
    if pack is not None and session.scalar(select(Pack.id).where(Pack.key == pack)) is None:
        known = ", ".join(pack_keys(session)) or "none imported yet"
        raise UserError(
            _("there is no pack '{pack}' (packs: {known})").format(pack=pack, known=known)
        )
    if tag is not None:
        found = session.scalar(
            select(CardTopic.card_id)
            .where(CardTopic.kind == "tag", CardTopic.value == tag)
            .limit(1)
        )
        if found is None:
            raise UserError(_("no card has the tag '{tag}'").format(tag=tag))
    if lesson is not None and session.scalar(cards_of_lesson(lesson).limit(1)) is None:
        known = ", ".join(lesson_values(session)) or "no card names a lesson"
        raise UserError(
            _("no card draws on lesson '{lesson}' (lessons: {known})").format(
                lesson=lesson.strip(), known=known
            )
        )


def queue_cards(
    session: Session,
    profile_id: int,
    missed_today: Collection[int] = (),
    *,
    lang: str | None = None,
    pack: str | None = None,
    tag: str | None = None,
    lesson: str | None = None,
    due_by: date | None = None,
    flag: str | None = None,
) -> list[QueueCard]:
    """Every live card (narrowed by pack language, pack, tag and lesson) with its schedule, for
    ``plan_day``; with ``due_by``, only the rows a plan of that day can take
    (``queue_cards_statement``)."""
    statement, params = queue_cards_statement(
        profile_id,
        lang=lang,
        pack=pack,
        tag=tag,
        lessons=lesson_spellings(lesson) if lesson is not None else (),
        due_by=due_by,
        missed=missed_today,
        flag=flag,
    )
    # Plain rows on the session's connection: no ORM loading for 10,000 tuples.
    rows = session.connection().execute(text(statement), params)
    cards = queue_cards_from_rows(rows, missed_today)
    return with_parents_seen(session_sql(session), profile_id, cards)


def today_log(session: Session, profile: Profile, today: date) -> tuple[DayCounts, set[int]]:
    """Today's counts against the profile's and each pack's limits, and the cards whose last
    grade today was < 4 (``read_day_counts``)."""
    return read_day_counts(
        session_sql(session).rows, profile.id, today, profile.new_per_day, profile.reviews_per_day
    )
