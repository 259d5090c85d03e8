"""Flags: the colours a learner marks cards with, as Anki's seven. Pure."""

from __future__ import annotations

from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.i18n import N_

# The names the flag command takes; shown translated (a card's state: ``due,red``).
FLAG_COLOURS = (
    N_("red"),
    N_("orange"),
    N_("green"),
    N_("blue"),
    N_("pink"),
    N_("turquoise"),
    N_("purple"),
)
NO_FLAG = "none"


def flag_colour(text: str, *, allow_none: bool = True) -> str | None:
    """The colour named by ``text`` (any case), None for ``none``; else a UserError naming the
    colours."""
    colour = text.strip().lower()
    if colour in FLAG_COLOURS:
        return colour
    if allow_none and colour == NO_FLAG:
        return None
    choices = [*FLAG_COLOURS, *([NO_FLAG] if allow_none else [])]
    hint = did_you_mean(colour, choices) or ""
    raise UserError(f"'{text}' is not a flag colour{hint}: use one of {', '.join(choices)}")
