"""Storing a review history brought from Anki (engine/interop/anki_history.py) for a profile.

Per card of the history:

- answers already imported (by their ``imported_id``) are not added again;
- a card the profile never answered in kvdrill gets the new answers and Anki's schedule (its
  review count and last review are the log's, so ``kvdrill doctor`` finds them agreeing);
- a card the profile has answered in kvdrill, while Anki has answers the profile has not
  imported yet, is a *conflict*: its schedule would be replaced. Nothing is written unless
  ``replace`` says so; then the card takes Anki's schedule, and the profile's own answers stay in
  the log beside Anki's (its review count counts both);
- a card answered in kvdrill with nothing new from Anki keeps its kvdrill schedule.

Everything runs in the caller's transaction (the pack import's): all or nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TypedDict

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from kvdrill.engine.interop.anki_history import CardHistory, PackHistory, logged_answers
from kvdrill.engine.study.schedule import Schedule
from kvdrill.i18n import _, ngettext
from kvdrill.store import reviews
from kvdrill.store.db import session_sql
from kvdrill.store.models import Card, CardState, Pack, ReviewLog


@dataclass(frozen=True)
class ReplacedSchedule:
    """A card whose kvdrill schedule Anki's would replace."""

    card: str
    title: str
    before: Schedule
    after: Schedule

    def line(self) -> str:
        def shown(schedule: Schedule) -> str:
            return f"due {schedule.due_day}, every {schedule.interval_days} days"

        return f"{self.title} ({self.card}): {shown(self.before)} -> {shown(self.after)}"


class HistoryPlanJson(TypedDict):
    """One pack's history in ``kvdrill import --json`` (its ``anki_history`` list)."""

    pack: str
    cards: int
    answers_added: int
    answers_imported_before: int
    cards_kept: int
    schedules_replaced: list[str]
    missing_cards: list[str]
    left_new: int
    answers_left_out: int


@dataclass
class HistoryPlan:
    """What importing one pack's history does (or would do) for a profile."""

    pack: str
    cards: int = 0  # cards given Anki's schedule
    added: int = 0  # answers added to the log
    known: int = 0  # answers imported before
    kept: int = 0  # cards answered in kvdrill since, kept as they are
    replaced: list[ReplacedSchedule] = field(default_factory=list)  # conflicts
    missing: list[str] = field(default_factory=list)  # history of cards the pack lacks
    left_new: int = 0
    answers_left_out: int = 0

    def to_dict(self) -> HistoryPlanJson:
        """For ``kvdrill import --json``."""
        return HistoryPlanJson(
            pack=self.pack,
            cards=self.cards,
            answers_added=self.added,
            answers_imported_before=self.known,
            cards_kept=self.kept,
            schedules_replaced=[item.line() for item in self.replaced],
            missing_cards=list(self.missing),
            left_new=self.left_new,
            answers_left_out=self.answers_left_out,
        )

    def summary(self, number: Callable[[int], str] = str) -> str:
        """One line of what the history brings; ``number`` writes each count for reading."""
        answers = ngettext("{count} answer", "{count} answers", self.added)
        cards = ngettext("{count} card", "{count} cards", self.cards)
        parts = [
            _("{pack}: Anki history: {answers} added to {cards}").format(
                pack=self.pack,
                answers=answers.format(count=number(self.added)),
                cards=cards.format(count=number(self.cards)),
            )
        ]
        if self.known:
            parts.append(_("{count} imported before").format(count=number(self.known)))
        if self.kept:
            parts.append(
                ngettext(
                    "{count} card kept as studied in kvdrill since",
                    "{count} cards kept as studied in kvdrill since",
                    self.kept,
                ).format(count=number(self.kept))
            )
        if self.replaced:
            parts.append(
                ngettext(
                    "{count} kvdrill schedule replaced",
                    "{count} kvdrill schedules replaced",
                    len(self.replaced),
                ).format(count=number(len(self.replaced)))
            )
        if self.left_new:
            left_out = ngettext("{count} answer", "{count} answers", self.answers_left_out)
            parts.append(
                ngettext(
                    "{count} card new or learning in Anki starts new ({answers} not carried over)",
                    "{count} cards new or learning in Anki start new ({answers} not carried over)",
                    self.left_new,
                ).format(
                    count=number(self.left_new),
                    answers=left_out.format(count=number(self.answers_left_out)),
                )
            )
        elif self.answers_left_out:
            parts.append(
                ngettext(
                    "{count} row without an answer not carried over",
                    "{count} rows without an answer not carried over",
                    self.answers_left_out,
                ).format(count=number(self.answers_left_out))
            )
        return "; ".join(parts)


@dataclass(frozen=True)
class _Stored:
    card_id: int
    title: str
    state: Schedule | None
    own_answers: int
    imported: frozenset[str]


def _stored(session: Session, profile_id: int | None, pack: str) -> dict[str, _Stored]:
    """The pack's live cards by key, with the profile's state and log of each."""
    cards = session.execute(
        select(Card.key, Card.id, Card.title)
        .join(Pack, Card.pack_id == Pack.id)
        .where(Pack.key == pack, Card.retired.is_(False))
    ).all()
    states: dict[int, Schedule] = {}
    own: dict[int, int] = {}
    imported: dict[int, set[str]] = {}
    if profile_id is not None and cards:
        ids = [card_id for _key, card_id, _title in cards]
        for row in session.scalars(
            select(CardState).where(CardState.profile_id == profile_id, CardState.card_id.in_(ids))
        ):
            if (schedule := Schedule.from_row(row)) is not None:
                states[row.card_id] = schedule
        for card_id, count in session.execute(
            select(ReviewLog.card_id, func.count())
            .where(
                ReviewLog.profile_id == profile_id,
                ReviewLog.card_id.in_(ids),
                ReviewLog.imported_id.is_(None),
            )
            .group_by(ReviewLog.card_id)
        ):
            own[card_id] = count
        for card_id, imported_id in session.execute(
            select(ReviewLog.card_id, ReviewLog.imported_id).where(
                ReviewLog.profile_id == profile_id,
                ReviewLog.card_id.in_(ids),
                ReviewLog.imported_id.is_not(None),
            )
        ):
            if imported_id is not None:
                imported.setdefault(card_id, set()).add(imported_id)
    return {
        key: _Stored(
            card_id,
            title,
            states.get(card_id),
            own.get(card_id, 0),
            frozenset(imported.get(card_id, ())),
        )
        for key, card_id, title in cards
    }


def _new_answers(history: CardHistory, stored: _Stored) -> int:
    return sum(1 for review in history.reviews if review.id not in stored.imported)


def plan_history(
    session: Session,
    profile_id: int | None,
    history: PackHistory,
    replace_history: bool,
    stored_as: str | None = None,
) -> HistoryPlan:
    """What ``apply_history`` would do; writes nothing. ``profile_id`` None: a profile not
    created yet (it has studied nothing). ``stored_as``: the pack's stored id, when a dry run
    plans a pack that takes over one of another id."""
    stored = _stored(session, profile_id, stored_as or history.pack)
    plan = HistoryPlan(
        history.pack, left_new=history.left_new, answers_left_out=history.answers_left_out
    )
    for key, card in history.cards.items():
        found = stored.get(key)
        if found is None:
            plan.missing.append(key)
            continue
        new = _new_answers(card, found)
        plan.known += len(card.reviews) - new
        if found.own_answers and not new:
            plan.kept += 1
            continue
        if found.own_answers and found.state is not None:
            plan.replaced.append(ReplacedSchedule(key, found.title, found.state, card.schedule))
            if not replace_history:
                continue
        plan.cards += 1
        plan.added += new
    return plan


def apply_history(
    session: Session,
    profile_id: int,
    history: PackHistory,
    rollover_hour: int,
    replace_history: bool,
) -> HistoryPlan:
    """Store ``history`` for the profile (see the module docstring). With conflicts and no
    ``replace_history`` nothing is written: the plan says what would change."""
    plan = plan_history(session, profile_id, history, replace_history)
    if plan.replaced and not replace_history:
        return plan
    stored = _stored(session, profile_id, history.pack)
    rows = []
    for key, card in history.cards.items():
        found = stored.get(key)
        if found is None:
            continue
        new = _new_answers(card, found)
        if found.own_answers and not new:
            continue
        for answer in logged_answers(card.reviews, rollover_hour):
            if answer.review.id in found.imported:
                continue
            rows.append(
                {
                    "profile_id": profile_id,
                    "card_id": found.card_id,
                    "reviewed_at": answer.review.reviewed_at,
                    "study_day": answer.study_day,
                    "quality": answer.review.quality,
                    "seconds": answer.review.seconds,
                    "graded_by": "self",
                    "moved_schedule": answer.moved_schedule,
                    "prev_state": answer.before.to_dict() if answer.before else None,
                    "imported_id": answer.review.id,
                    "interval_days": answer.review.interval_days,
                    "easiness_milli": answer.review.easiness_milli,
                }
            )
        answers, last = _logged(found, card, new)
        schedule = replace(card.schedule, reviews=answers, last_review_at=last)
        reviews.restore_schedule(session_sql(session), profile_id, found.card_id, schedule)
    if rows:
        session.execute(insert(ReviewLog), rows)
    return plan


def _logged(found: _Stored, card: CardHistory, new: int) -> tuple[int, datetime | None]:
    """The card's review count and last review once the new answers are in."""
    times = [review.reviewed_at for review in card.reviews]
    if found.state is not None and found.state.last_review_at is not None:
        times.append(found.state.last_review_at)
    answers = found.own_answers + len(found.imported) + new
    return answers, max(times) if times else None
