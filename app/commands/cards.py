"""``kvdrill cards``: the card browser on the command line. A list of cards (pack/card, title,
state, due day) narrowed by text, pack, tag and state and sorted; or one card's page with its
schedule and whole history; and the actions on a card."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kvdrill.app.shown_numbers import count
from kvdrill.engine.errors import UserError
from kvdrill.i18n import _, ngettext

if TYPE_CHECKING:
    from datetime import date

    from kvdrill.engine.study.browse import CardPage

WIDTH = 80


def _checked(check_name: str):
    def parse(text: str) -> str:
        from kvdrill.engine.study import browse

        try:
            return getattr(browse, check_name)(text)
        except UserError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def register(subparsers) -> None:
    from kvdrill.app.commands.completes import completes
    from kvdrill.engine.study.browse import SORT_KEYS, STATES

    parser = subparsers.add_parser(
        "cards",
        help=_("find cards, see one card's history, suspend/bury/flag/forget it"),
        description=_(
            "Without PACK/CARD: list the cards that match, one line each (card, title, "
            "state, due day). With PACK/CARD: that card's schedule, whole review history, "
            "mistakes and your note; with an action, do it to the card. States: {states}. "
            "Sort keys: {keys}."
        ).format(states=", ".join(STATES), keys=", ".join(SORT_KEYS)),
    )
    parser.add_argument("card", nargs="?", metavar="PACK/CARD", help=_("one card, as pack/card"))
    parser.add_argument(
        "--search", metavar="TEXT", help=_("text in the title, prompt, answer or note")
    )
    completes(
        parser.add_argument("--pack", metavar="P", help=_("only cards of the pack with this id")),
        "packs",
    )
    parser.add_argument("--tag", metavar="T", help=_("only cards with this tag"))
    parser.add_argument(
        "--state", metavar="S", type=_checked("check_state"), help=_("only cards in this state")
    )
    parser.add_argument(
        "--sort", metavar="KEY", type=_checked("check_sort"), help=_("order by this key")
    )
    parser.add_argument("--json", action="store_true", help=_("print the list or the card as JSON"))
    actions = parser.add_mutually_exclusive_group()
    for action, meaning in (
        ("suspend", _("take the card out of every drill")),
        ("unsuspend", _("bring a suspended card back")),
        ("bury", _("hide the card until tomorrow")),
        ("forget", _("make the card new again (its history is kept)")),
    ):
        actions.add_argument(f"--{action}", action="store_true", help=meaning)
    actions.add_argument("--flag", metavar="C", help=_("flag the card with colour C (none: off)"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.plain import literal
    from kvdrill.app.services.backend import Services

    action = next(
        (name for name in ("suspend", "unsuspend", "bury", "forget") if getattr(args, name)), None
    )
    colour = None
    if args.flag is not None:
        from kvdrill.engine.study.flags import flag_colour

        action, colour = "flag", flag_colour(args.flag)
    narrowing = [name for name in ("search", "pack", "tag", "state", "sort") if getattr(args, name)]
    if args.card is None and action is not None:
        raise UserError(
            _("--{action} needs a card: kvdrill cards PACK/CARD --{action}").format(action=action)
        )
    if args.card is not None and narrowing:
        raise UserError(
            _("--{option} narrows a list: give it without PACK/CARD").format(option=narrowing[0])
        )
    services = Services(args.db, args.profile, bundled=False)
    try:
        if action is not None:
            title = services.act_on_card(args.card, action, colour)
            done = {
                "suspend": _("Suspended"),
                "unsuspend": _("Unsuspended"),
                "bury": _("Buried until tomorrow"),
                "forget": _("New again (its history kept)"),
                "flag": flag_done(colour),
            }[action]
            print(f"{done}: {args.card} ({literal(title)})")
            return 0
        if args.card is not None:
            today, page = services.show_card(args.card)
            from kvdrill.app.card_page_text import page_lines

            print(_page_json(page, today) if args.json else "\n".join(page_lines(page, today)))
            return 0
        today, cards = services.list_cards(
            pack=args.pack, tag=args.tag, search=args.search, state=args.state, sort=args.sort
        )
    finally:
        services.close()
    if args.json:
        import json

        print(json.dumps([_card_json(card, today) for card in cards], indent=2))
    elif not cards:
        print(_("No card matches."))
    else:
        from kvdrill.engine.study.browse import listing

        print("\n".join(listing(cards, today, WIDTH)))
        print(ngettext("{count} card", "{count} cards", len(cards)).format(count=count(len(cards))))
    return 0


def _card_json(card: Any, today: date) -> dict[str, Any]:
    return {
        "card": card.reference,
        "title": card.title,
        "kind": card.kind,
        "state": card.main_state(today),
        "states": sorted(card.states(today)),
        "flag": card.flag,
        "due_day": card.due_day.isoformat() if card.due_day and card.reviews else None,
        "reviews": card.reviews,
        "lapses": card.lapses,
        "easiness": card.easiness_milli / 1000,
        "last_review_at": card.last_review_at.isoformat() if card.last_review_at else None,
    }


def _page_json(page: CardPage, today: date) -> str:
    import json

    return json.dumps(
        _card_json(page.card, today)
        | {
            "interval_days": page.interval_days,
            "prompt": page.prompt,
            "note": page.note,
            "mistakes": page.mistakes,
            "history": [
                {
                    "reviewed_at": entry.reviewed_at.isoformat(),
                    "grade": entry.quality,
                    "seconds": entry.seconds,
                    "graded_by": entry.graded_by,
                    "typed_answer": entry.typed_answer,
                    "expected": entry.expected,
                    "diagnosis": entry.diagnosis,
                    "mistake": entry.mistake,
                }
                for entry in page.history
            ],
        },
        indent=2,
    )


def flag_done(colour: str | None) -> str:
    """What flagging a card did: ``Flagged red``, ``Flag removed``."""
    if colour is None:
        return _("Flag removed")
    return _("Flagged {colour}").format(colour=_(colour))
