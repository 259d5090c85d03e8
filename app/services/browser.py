"""The card browser's use cases (``kvdrill cards``): list cards by pack, tag, text and state;
show one card with its whole history; suspend, unsuspend, bury, flag or forget it. Listing
and showing read only: no profile is created by them."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvdrill.engine.errors import UserError
from kvdrill.engine.study.browse import BrowsedCard, CardPage, browse
from kvdrill.engine.study.clock import study_day
from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.app.services.importing import ImportScan
    from kvdrill.store.db import Database
    from kvdrill.store.models import Profile

ACTIONS = ("suspend", "unsuspend", "bury", "forget", "flag")


def edition_language(profile: Profile) -> str | None:
    """The language whose editions the profile reads the course in; None for the course's own
    (its cards as they are)."""
    from kvdrill.engine.study.settings import COURSE_LANGUAGE
    from kvdrill.store.profiles import profile_settings

    language = profile_settings(profile).language
    return None if language == COURSE_LANGUAGE else language


def list_cards(
    database: Database,
    profile_name: str,
    now: datetime,
    *,
    pack: str | None = None,
    tag: str | None = None,
    lesson: str | None = None,
    kind: str | None = None,
    search: str | None = None,
    state: str | None = None,
    sort: str | None = None,
) -> tuple[date, list[BrowsedCard]]:
    """The study day and the cards that match, in ``sort`` order (engine/study/browse.py)."""
    filters: dict[str, Any] = {
        "pack": pack, "tag": tag, "lesson": lesson, "kind": kind, "search": search
    }  # fmt: skip
    today, cards, _total = list_cards_page(
        database, profile_name, now, None, state=state, sort=sort, **filters
    )
    return today, cards


def list_cards_page(
    database: Database,
    profile_name: str,
    now: datetime,
    limit: int | None,
    offset: int = 0,
    *,
    pack: str | None = None,
    tag: str | None = None,
    lesson: str | None = None,
    kind: str | None = None,
    search: str | None = None,
    state: str | None = None,
    sort: str | None = None,
) -> tuple[date, list[BrowsedCard], int]:
    """The study day, the matching cards from ``offset`` on, and how many match.

    In pack order with no ``state`` (the listing's own order, no rule to apply) the database
    reads only ``limit`` cards from ``offset``; a ``state`` or a ``sort`` (the engine's rules,
    engine/study/browse.py) reads every match, and then every one from ``offset`` comes back,
    so a screen pages through them without asking again."""
    from kvdrill.store.browser import browsed_cards, count_cards
    from kvdrill.store.day_queue import check_filters
    from kvdrill.store.profiles import profile_for_reading

    filters = {"pack": pack, "tag": tag, "lesson": lesson, "kind": kind, "search": search}
    paged = limit is not None and state is None and sort is None
    with database.session() as session:
        check_filters(session, pack, tag, lesson)
        profile = profile_for_reading(session, profile_name, now)
        today = study_day(now, profile.rollover_hour)
        cards = browsed_cards(
            session,
            profile.id,
            language=edition_language(profile),
            page=(offset, limit) if paged and limit is not None else None,
            **filters,
        )
        if paged:
            return today, cards, count_cards(session, profile.id, **filters)
    chosen = browse(cards, today, state, sort)
    return today, chosen[offset:], len(chosen)


def show_card(
    database: Database, profile_name: str, now: datetime, reference: str
) -> tuple[date, CardPage]:
    """The study day and the page of the card ``pack/card``."""
    from kvdrill.store.browser import card_page
    from kvdrill.store.profiles import profile_for_reading
    from kvdrill.store.reviews import find_card

    with database.session() as session:
        profile = profile_for_reading(session, profile_name, now)
        card = find_card(session, reference)
        page = card_page(session, profile.id, card, edition_language(profile))
        return study_day(now, profile.rollover_hour), page


def act_on_card(
    database: Database,
    profile_name: str,
    now: datetime,
    reference: str,
    action: str,
    colour: str | None = None,
) -> str:
    """Do ``action`` (one of ``ACTIONS``) to the card ``pack/card``; its title. ``forget``
    makes it new again (suspension kept) while its review log stays; ``bury`` hides it for the
    rest of today."""
    from kvdrill.engine.study.schedule import Schedule
    from kvdrill.store import reviews
    from kvdrill.store.db import begin_write, session_sql
    from kvdrill.store.profiles import get_or_create_profile

    if action not in ACTIONS:
        raise UserError(
            _("'{action}' is not a card action: use one of {actions}").format(
                action=action, actions=", ".join(ACTIONS)
            )
        )
    with database.session() as session:
        begin_write(session)
        profile = get_or_create_profile(session, profile_name, now)
        card = reviews.find_card(session, reference)
        sql = session_sql(session)
        if action in ("suspend", "unsuspend"):
            reviews.set_suspended(sql, profile.id, card.id, suspended=action == "suspend")
        elif action == "bury":
            reviews.bury(sql, profile.id, card.id, study_day(now, profile.rollover_hour))
        elif action == "flag":
            reviews.set_flag(sql, profile.id, card.id, colour)
        else:
            before = reviews.load_schedule(sql, profile.id, card.id)
            kept = before.suspended if before is not None else False
            reviews.restore_schedule(sql, profile.id, card.id, Schedule(suspended=kept))
        return card.title


def filter_choices(database: Database) -> dict[str, list[str]]:
    """What each browser filter (pack, tag, lesson, kind) can be set to."""
    from kvdrill.store.browser import filter_choices as stored_choices

    with database.session() as session:
        return stored_choices(session)


def card_file(database: Database, reference: str) -> tuple[Path, int]:
    """The pack file the card ``pack/card`` is written in, and the card's line there; a
    UserError when that file cannot be edited (a bundled deck, a file gone since its import)."""
    from kvdrill.store.browser import card_source
    from kvdrill.store.reviews import find_card

    with database.session() as session:
        path_text, line, bundled = card_source(session, find_card(session, reference))
    if bundled:
        raise UserError(
            _(
                "{card} is in a bundled deck, which kvdrill updates itself: copy its file, "
                "give the copy a pack id of its own and import that to edit it"
            ).format(card=reference)
        )
    path = Path(path_text)
    if not path_text or not path.is_file():
        raise UserError(
            _("The pack file of {card} is not there any more: {path}").format(
                card=reference, path=path_text or "?"
            )
        )
    return path, max(line, 1)


def import_edited(database: Database, path: Path, now: datetime) -> ImportScan:
    """Check the file ``path`` the learner just edited and import it, all or nothing (the
    import of ``kvdrill import``: schedules and history kept). The scan: with ``errors``
    (``file:line: message``) nothing was written."""
    from kvdrill.app.services.importing import scan, store_packs

    checked = scan(database, str(path))
    if not checked.errors:
        store_packs(database, checked.packs, now)
    return checked
