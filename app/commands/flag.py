"""``kvdrill flag PACK/CARD COLOUR|none``: mark a card with a colour, as in Anki, or unmark it;
``kvdrill drill --flag COLOUR`` drills the cards of one colour."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    from kvdrill.engine.study.flags import FLAG_COLOURS, NO_FLAG

    parser = subparsers.add_parser(
        "flag",
        help=_("flag a card with a colour (or none); drill them with drill --flag COLOUR"),
        description=(
            _(
                "Mark a card with one of Anki's colours, or take its flag off with 'none'. "
                "kvdrill cards --state flagged lists them; kvdrill drill --flag COLOUR drills them."
            )
        ),
    )
    parser.add_argument("card", metavar="PACK/CARD", help=_("the card, as pack-id/card-id"))
    parser.add_argument(
        "colour",
        metavar="COLOUR",
        help=_("one of {colours}, or {none}").format(colours=", ".join(FLAG_COLOURS), none=NO_FLAG),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.plain import literal
    from kvdrill.app.services.backend import Services
    from kvdrill.engine.study.flags import flag_colour

    colour = flag_colour(args.colour)  # a wrong colour fails before the database opens
    services = Services(args.db, args.profile, bundled=False)
    try:
        title = services.flag(args.card, colour)
    finally:
        services.close()
    from kvdrill.app.commands.cards import flag_done

    print(f"{flag_done(colour)}: {args.card} ({literal(title)})")
    return 0
