"""Fitting FSRS's parameters to a profile's own review log, and keeping them when asked
(``kvdrill optimize``). Measuring writes nothing; keeping them under FSRS replays every card
schedule with the new weights, in the same transaction."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from kvdrill.engine.errors import UserError
from kvdrill.engine.study.fsrs_fit import MIN_TRAINING_REVIEWS, Fit
from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.store.db import Database


def fit_profile(database: Database, profile_name: str, now: datetime) -> Fit:
    """FSRS fitted to the profile's log, beside the parameters it uses now. Reads only: a
    profile never seen has an empty log."""
    from kvdrill.engine.study.fsrs_fit import fit_parameters
    from kvdrill.store.profiles import profile_for_reading, profile_settings
    from kvdrill.store.scheduler_switch import answer_histories

    with database.session() as session:
        profile = profile_for_reading(session, profile_name, now)
        histories = answer_histories(session, profile.id)
        current = profile_settings(profile).fsrs_parameters
    return fit_parameters(histories, current)


def keep_fit(database: Database, profile_name: str, now: datetime, fit: Fit) -> None:
    """Keep ``fit``'s parameters for the profile; a fit that is too short or predicts the log
    no better than the current parameters is refused in one sentence, and nothing changes."""
    from kvdrill.app.services.settings import store_settings
    from kvdrill.store.db import begin_write
    from kvdrill.store.profiles import get_or_create_profile

    if fit.fitted is None:
        raise UserError(too_short(fit))
    if not fit.improves:
        raise UserError(
            _(
                "the fitted parameters predict your log no better than the ones you use now, "
                "so they were not kept"
            )
        )
    with database.session() as session:
        begin_write(session)
        profile = get_or_create_profile(session, profile_name, now)
        store_settings(session, profile, {"fsrs_parameters": list(fit.fitted)})


def too_short(fit: Fit) -> str:
    """The plain sentence for a log too short to fit."""
    return (
        f"Your log is too short to fit FSRS: {fit.training_reviews} of its {fit.reviews} "
        f"reviews come a day or more after the card's previous one, and fitting needs "
        f"{MIN_TRAINING_REVIEWS}; keep studying with the parameters you have."
    )
