"""Practising one diagnosed mistake (``kvdrill drill --mistake CODE``, Enter on a mistake in stats).

A ``MistakeSession`` is a ``DrillSession`` (app/services/drill.py) whose cards are problem templates
and whose variants are the ones engine/problems/mistakes.py picked because their numbers make the
mistake show. Answers go through the same checker and ``_record``, into the same review log and
card states, so stats and schedules count them like any other answer. A card missed in the session
comes back (SM-2 step 7) with another variant that exercises the same mistake.

The session's seed comes from the profile, the code and the clock, so each session brings fresh
variants, and a session opened at the same ``KVDRILL_NOW`` is the same session (tests peek at it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kvdrill.app.services.drill import DrillSession, make_clock
from kvdrill.engine.study.clock import study_day
from kvdrill.engine.study.queue import Plan, SessionQueue
from kvdrill.engine.study.seeds import SEED_RANGE
from kvdrill.engine.study.stats_report import mistake_words
from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.engine.problems.mistakes import Exercise
    from kvdrill.engine.problems.types import Variant
    from kvdrill.store.db import Database


def _templates(database: Database, profile: str, now: datetime) -> list[tuple[str, Any]]:
    """The profile's problem templates as (id, spec), as ``kvdrill problem`` lists them."""
    from kvdrill.app.services.problems import list_templates

    return [(template.id, template.spec) for template in list_templates(database.read, profile)]


def session_seed(profile_id: int, code: str, started: datetime) -> int:
    """The seed a mistake session picks its variants with (fresh each session)."""
    return random.Random(f"{profile_id}:{code}:{started.isoformat()}").randrange(SEED_RANGE)


class MistakeSession(DrillSession):
    """A drill of problem variants chosen to exercise one mistake code."""

    def __init__(
        self,
        *args: Any,
        code: str,
        exercises: Sequence[Exercise],
        card_ids: Mapping[str, int],
        seed: int,
        **kw: Any,
    ):
        """``card_ids``: the card id of each exercise's template id."""
        super().__init__(*args, **kw)
        self.code = code
        self.seed = seed
        self.exercises = list(exercises)
        # Per card, the variants its showings use, in session order; more are drawn on demand.
        self._variants: dict[int, list[Variant]] = {}
        self._template_ids: dict[int, str] = {}
        for exercise in self.exercises:
            card_id = card_ids[exercise.template_id]
            self._variants.setdefault(card_id, []).append(exercise.variant)
            self._template_ids[card_id] = exercise.template_id

    @classmethod
    def open_for(
        cls,
        database: Database,
        code: str,
        profile: str = "default",
        now: datetime | Callable[[], datetime] | None = None,
        count: int | None = None,
    ) -> MistakeSession:
        """A session of up to ``count`` variants exercising ``code`` (UnknownMistake or
        NothingToPractise, both UserErrors, when there is none)."""
        from kvdrill.engine.problems.mistakes import DEFAULT_COUNT, exercises
        from kvdrill.store.profiles import get_or_create_profile, profile_settings
        from kvdrill.store.reviews import find_card

        clock = make_clock(now)
        # The time given, not the clock's first reading (a few microseconds on): the seed.
        started = now if isinstance(now, datetime) else clock()
        with database.session() as session:
            row = get_or_create_profile(session, profile, started)
            profile_id, rollover, seconds = row.id, row.rollover_hour, row.answer_seconds
            settings = profile_settings(row)
        seed = session_seed(profile_id, code, started)
        chosen = exercises(
            code, _templates(database, profile, started), seed, count or DEFAULT_COUNT
        )
        with database.session() as session:
            card_ids = {e.template_id: find_card(session, e.template_id).id for e in chosen}
        return cls(
            database,
            profile_id,
            rollover,
            seconds,
            clock,
            study_day(started, rollover),
            SessionQueue(Plan(cards=tuple(card_ids[e.template_id] for e in chosen))),
            settings.scheduler,
            settings.desired_retention,
            settings.fsrs_parameters,
            settings.language,
            code=code,
            exercises=chosen,
            card_ids=card_ids,
            seed=seed,
        )

    @property
    def practised(self) -> str:  # type: ignore[override]
        """The mistake in words, with its code: what the summary says was practised."""
        return f"{_(mistake_words(self.code))} ({self.code})"

    def _make_variant(self, row: Any, seed: int) -> Variant | None:
        """The variant of this showing of the card: the chosen one, or for a card shown more
        often than chosen (a missed card comes back) another that exercises the mistake."""
        card_id = row["id"]
        variants = self._variants.setdefault(card_id, [])
        showing = self._shown[card_id] - 1
        if showing >= len(variants):
            variants.append(self._another_variant(row, showing, variants))
        return variants[showing]

    def _another_variant(self, row: Any, showing: int, shown: list[Variant]) -> Variant:
        from kvdrill.engine.errors import UserError
        from kvdrill.engine.problems.mistakes import exercises
        from kvdrill.store.card_rows import problem_spec

        template = [(f"{row['pack_key']}/{row['key']}", problem_spec(row))]
        try:
            found = exercises(self.code, template, self.seed + showing, len(shown) + 1)
        except UserError:
            return shown[showing % len(shown)]
        fresh = [e.variant for e in found if e.variant.prompt not in {v.prompt for v in shown}]
        return (fresh or [found[0].variant])[0]


def open_mistake_session(
    database: Database, profile: str, now: datetime, code: str, count: int | None = None
) -> MistakeSession:
    return MistakeSession.open_for(database, code, profile=profile, now=now, count=count)


def offered_mistakes(database: Database, profile: str, now: datetime) -> list[str]:
    """The mistake codes the profile's templates can exercise."""
    from kvdrill.engine.problems.mistakes import offered_codes

    return offered_codes(_templates(database, profile, now))


def first_practisable(
    database: Database, profile: str, now: datetime, codes: Sequence[str]
) -> str | None:
    """The first of ``codes`` some template of the profile can exercise, else None."""
    from kvdrill.engine.problems.mistakes import PRACTISED_CODES, can_practise

    wanted = [code for code in codes if code in PRACTISED_CODES]
    if not wanted:
        return None  # no template loaded (and no sympy) for codes no session is built for
    templates = _templates(database, profile, now)
    return next((code for code in wanted if can_practise(code, templates)), None)
