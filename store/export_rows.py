"""What ``kvdrill export`` reads: stored packs as parsed cards, and a profile's data as rows.

Rows are plain dicts of JSON-able values (dates and times as ISO text), so the service can
write them as JSON or CSV without knowing the schema.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from kvdrill.engine.errors import UserError
from kvdrill.engine.interop.anki_history import PastAnswer
from kvdrill.engine.packs.model import CardKind, Choice, KeyNumber, PackMeta, ParsedCard, Status
from kvdrill.engine.study.schedule import Schedule
from kvdrill.engine.study.settings import pack_setting_names
from kvdrill.i18n import _
from kvdrill.store.models import Card, CardFlag, CardState, Note, Pack, ReviewLog
from kvdrill.store.pack_settings import pack_settings_by_key
from kvdrill.store.profiles import get_profile, profile_settings


def _live_packs(session: Session, pack_keys: list[str]) -> list[Pack]:
    packs = session.scalars(select(Pack).order_by(Pack.key)).all()
    if not pack_keys:
        # An edition's cards are its original's: exported once, with the original.
        return [
            pack
            for pack in packs
            if pack.edition_of is None and any(not card.retired for card in pack.cards)
        ]
    by_key = {pack.key: pack for pack in packs}
    unknown = [key for key in pack_keys if key not in by_key]
    if unknown:
        known = ", ".join(sorted(by_key)) or "none; run kvdrill import first"
        raise UserError(
            _("no pack {unknown} in the database (packs: {known})").format(
                unknown=repr(unknown[0]), known=known
            )
        )
    return [by_key[key] for key in dict.fromkeys(pack_keys)]


def _parsed_card(card: Card) -> ParsedCard:
    return ParsedCard(
        key=card.key,
        # The importer stored them from a parsed card: they are the pack format's words.
        kind=cast(CardKind, card.kind),
        title=card.title,
        status=cast(Status | None, card.status),
        tags=list(card.tags or []),
        lessons=[str(lesson) for lesson in card.lessons or []],
        prompt=card.prompt,
        answer=card.answer,
        key_numbers=[KeyNumber(**number) for number in card.key_numbers or []],
        tip=card.tip,
        choices=[Choice(**choice) for choice in card.choices or []],
        explanation=card.explanation,
        problem=card.problem,
        line=card.source_line,
        parent=card.parent.key if card.parent is not None else None,
    )


def packs_for_export(
    session: Session, pack_keys: list[str]
) -> list[tuple[PackMeta, list[ParsedCard], str]]:
    """The live cards of the packs named (all packs with live cards when none is), in order,
    with each pack's file as imported (its images are beside it)."""
    result = []
    for pack in _live_packs(session, pack_keys):
        meta = PackMeta(
            pack=pack.key,
            title=pack.title,
            version=pack.version,
            lang=pack.lang,
            lessons=[str(lesson) for lesson in pack.lessons or []],
            tags=list(pack.tags or []),
            description=pack.description,
        )
        cards = sorted((c for c in pack.cards if not c.retired), key=lambda c: c.position)
        result.append((meta, [_parsed_card(card) for card in cards], pack.source_path or ""))
    return result


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date | datetime) else value


def _profile_id(session: Session, profile: str) -> int:
    row = get_profile(session, profile)
    if row is None:
        raise UserError(
            _("no profile {profile}: nothing studied under that name yet").format(
                profile=repr(profile)
            )
        )
    return row.id


CARD_COLUMNS = (
    "pack", "card", "kind", "title", "status", "prompt", "answer", "key_numbers", "tip",
    "choices", "explanation", "related", "problem", "tags", "lessons", "parent", "retired",
)  # fmt: skip
SCHEDULE_COLUMNS = (
    "pack", "card", "repetitions", "easiness", "interval_days", "due_day", "lapses",
    "reviews", "last_review_at", "suspended", "buried_until", "leech", "fsrs", "flag",
)  # fmt: skip
REVIEW_COLUMNS = (
    "id", "pack", "card", "reviewed_at", "study_day", "quality", "seconds", "reveal_seconds",
    "grade_seconds", "graded_by", "moved_schedule", "typed_answer", "template_id", "seed",
    "params", "expected", "diagnosis", "mistake", "choice_seed", "choice_order",
    "schedule_before", "imported_id", "interval_after", "easiness_after", "practice",
)  # fmt: skip
NOTE_COLUMNS = ("pack", "card", "text", "updated_at")
PROFILE_COLUMNS = ("name", "created_at", "settings")
PACK_SETTING_COLUMNS = ("pack", *pack_setting_names())


def card_rows(session: Session) -> list[dict[str, Any]]:
    """Every stored card, retired ones included (their reviews refer to them)."""
    parent = aliased(Card)
    query = (
        select(Card, Pack.key, parent.key)
        .join(Pack, Card.pack_id == Pack.id)
        .outerjoin(parent, Card.parent_id == parent.id)
        .order_by(Pack.key, Card.position, Card.id)
    )
    return [
        {
            "pack": pack_key,
            "card": card.key,
            "kind": card.kind,
            "title": card.title,
            "status": card.status,
            "prompt": card.prompt,
            "answer": card.answer,
            "key_numbers": card.key_numbers or [],
            "tip": card.tip,
            "choices": card.choices or [],
            "explanation": card.explanation,
            "related": card.related or [],
            "problem": card.problem,
            "tags": card.tags or [],
            "lessons": card.lessons or [],
            "parent": parent_key,
            "retired": card.retired,
        }
        for card, pack_key, parent_key in session.execute(query)
    ]


def schedule_rows(session: Session, profile: str) -> list[dict[str, Any]]:
    """The profile's schedule of every card it has seen (a card never seen has none)."""
    profile_id = _profile_id(session, profile)
    query = (
        select(CardState, Card.key, Pack.key, CardFlag.colour)
        .join(Card, CardState.card_id == Card.id)
        .join(Pack, Card.pack_id == Pack.id)
        .outerjoin(
            CardFlag,
            (CardFlag.card_id == CardState.card_id) & (CardFlag.profile_id == profile_id),
        )
        .where(CardState.profile_id == profile_id)
        .order_by(Pack.key, Card.position, Card.id)
    )
    return [
        {
            "pack": pack_key,
            "card": card_key,
            "repetitions": state.repetitions,
            "easiness": state.easiness_milli / 1000,
            "interval_days": state.interval_days,
            "due_day": _plain(state.due_day),
            "lapses": state.lapses,
            "reviews": state.reviews,
            "last_review_at": _plain(state.last_review_at),
            "suspended": state.suspended,
            "buried_until": _plain(state.buried_until),
            "leech": state.leech,
            "fsrs": state.fsrs,
            "flag": colour,
        }
        for state, card_key, pack_key, colour in session.execute(query)
    ]


def review_rows(session: Session, profile: str) -> list[dict[str, Any]]:
    """Every answer the profile gave, oldest first."""
    query = (
        select(ReviewLog, Card.key, Pack.key)
        .join(Card, ReviewLog.card_id == Card.id)
        .join(Pack, Card.pack_id == Pack.id)
        .where(ReviewLog.profile_id == _profile_id(session, profile))
        .order_by(ReviewLog.reviewed_at, ReviewLog.id)
    )
    return [
        {
            "id": log.id,
            "pack": pack_key,
            "card": card_key,
            "reviewed_at": _plain(log.reviewed_at),
            "study_day": _plain(log.study_day),
            "quality": log.quality,
            "seconds": log.seconds,
            "reveal_seconds": log.reveal_seconds,
            "grade_seconds": log.grade_seconds,
            "graded_by": log.graded_by,
            "moved_schedule": log.moved_schedule,
            "typed_answer": log.typed_answer,
            "template_id": log.template_id,
            "seed": log.seed,
            "params": log.params,
            "expected": log.expected,
            "diagnosis": log.diagnosis,
            "mistake": log.mistake,
            # A multiple-choice answer's shuffle: the seed, and the pack letters in the order
            # shown ("CADB": the learner's A was the pack's C), so typed_answer can be read back.
            "choice_seed": log.choice_seed,
            "choice_order": log.choice_order,
            # The card's schedule before this answer (what undo puts back), and for an answer
            # imported from Anki its id there and the interval and easiness Anki gave after it.
            "schedule_before": log.prev_state,
            "imported_id": log.imported_id,
            "interval_after": log.interval_days,
            "easiness_after": log.easiness_milli / 1000 if log.easiness_milli else None,
            # A cram answer: practice outside the schedule, which it left as it was.
            "practice": log.practice,
        }
        for log, card_key, pack_key in session.execute(query)
    ]


def note_rows(session: Session, profile: str) -> list[dict[str, Any]]:
    """The profile's own notes on cards."""
    query = (
        select(Note, Card.key, Pack.key)
        .join(Card, Note.card_id == Card.id)
        .join(Pack, Card.pack_id == Pack.id)
        .where(Note.profile_id == _profile_id(session, profile))
        .order_by(Pack.key, Card.position, Card.id)
    )
    return [
        {
            "pack": pack_key,
            "card": card_key,
            "text": note.text,
            "updated_at": _plain(note.updated_at),
        }
        for note, card_key, pack_key in session.execute(query)
    ]


def pack_setting_rows(session: Session, profile: str) -> list[dict[str, Any]]:
    """The profile's settings of each pack's own (``kvdrill settings --pack``), by pack."""
    profile_id = _profile_id(session, profile)
    return [
        {"pack": key, **settings.to_dict()}
        for key, settings in pack_settings_by_key(session, profile_id).items()
    ]


def profile_rows(session: Session, profile: str) -> list[dict[str, Any]]:
    """The profile itself: its name, when it was made, and every setting."""
    row = get_profile(session, profile)
    if row is None:
        raise UserError(
            _("no profile {profile}: nothing studied under that name yet").format(
                profile=repr(profile)
            )
        )
    return [
        {
            "name": row.name,
            "created_at": _plain(row.created_at),
            "settings": profile_settings(row).to_dict(),
        }
    ]


def learner_cards(
    session: Session, profile: str
) -> dict[tuple[str, str], tuple[str, Schedule | None, list[PastAnswer]]]:
    """(pack, card) -> the profile's note, schedule and answers (oldest first), for every card
    it has any of; empty for a profile that does not exist (a read creates none)."""
    row = get_profile(session, profile)
    if row is None:
        return {}
    keys = {
        card_id: (pack_key, card_key)
        for card_id, card_key, pack_key in session.execute(
            select(Card.id, Card.key, Pack.key).join(Pack, Card.pack_id == Pack.id)
        )
    }
    found: dict[int, tuple[str, Schedule | None, list[PastAnswer]]] = {}

    def entry(card_id: int) -> tuple[str, Schedule | None, list[PastAnswer]]:
        return found.setdefault(card_id, ("", None, []))

    for state in session.scalars(select(CardState).where(CardState.profile_id == row.id)):
        note, _, answers = entry(state.card_id)
        found[state.card_id] = (note, Schedule.from_row(state), answers)
    for note_row in session.scalars(select(Note).where(Note.profile_id == row.id)):
        _, schedule, answers = entry(note_row.card_id)
        found[note_row.card_id] = (note_row.text, schedule, answers)
    for card_id, reviewed_at, quality, seconds, prev_state in session.execute(
        select(
            ReviewLog.card_id,
            ReviewLog.reviewed_at,
            ReviewLog.quality,
            ReviewLog.seconds,
            ReviewLog.prev_state,
        )
        # A practice answer (a cram) moved no schedule: Anki's log would count it as one.
        .where(ReviewLog.profile_id == row.id, ReviewLog.practice.is_(False))
        .order_by(ReviewLog.reviewed_at, ReviewLog.id)
    ):
        before = Schedule.from_dict(prev_state) if prev_state else None
        entry(card_id)[2].append(PastAnswer(reviewed_at, quality, seconds or 0.0, before))
    return {keys[card_id]: value for card_id, value in found.items() if card_id in keys}
