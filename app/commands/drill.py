"""``kvdrill drill``: today's session, in the full-screen UI or, with ``--plain``, line by line.

Plain ``kvdrill`` (no command) opens the UI's home screen through ``run_home``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from kvdrill.engine.errors import UserError
from kvdrill.engine.study.settings import DEFAULT_NEW_PER_DAY
from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.app.app_options import AppOptions


def _count(text: str, least: int = 0) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} is below {least}")
    return value


def _flag(text: str) -> str:
    from kvdrill.engine.study.flags import flag_colour

    try:
        return str(flag_colour(text, allow_none=False))
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _session_limit(text: str) -> int:
    """--limit: a session of 0 cards is no session (--new 0 is the way to skip new cards)."""
    return _count(text, least=1)


def register(subparsers) -> None:
    from kvdrill.app.commands.completes import completes

    parser = subparsers.add_parser(
        "drill",
        help=_("today's session: due reviews, then new cards"),
        description=_(
            "Drill today's cards: due reviews first, then new cards. Cards you miss "
            "come back later in the session and on the days SM-2 picks."
        ),
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help=_("line-by-line mode on stdin/stdout (ssh, scripts, screen readers)"),
    )
    completes(
        parser.add_argument("--pack", metavar="P", help=_("only cards of the pack with this id")),
        "packs",
    )
    parser.add_argument("--tag", metavar="T", help=_("only cards with this tag"))
    parser.add_argument(
        "--lesson", metavar="N", help=_("only cards that draw on lesson N (5 and 05 are the same)")
    )
    parser.add_argument(
        "--flag",
        metavar="COLOUR",
        type=_flag,
        help=_("only the cards you flagged with this colour (kvdrill flag)"),
    )
    parser.add_argument(
        "--cram",
        action="store_true",
        help=_(
            "practise outside the schedule: every card the filters leave (--pack, --tag, "
            "--lesson, --flag), seen or new; answers are logged as practice and move no schedule"
        ),
    )
    parser.add_argument(
        "--ahead",
        metavar="N",
        type=_session_limit,
        help=_(
            "review the cards due in the next N days too, as early reviews (their schedules move)"
        ),
    )
    parser.add_argument(
        "--new",
        metavar="N",
        type=_count,
        help=_(
            "up to N new cards this session; 0 for reviews only (default: the profile's daily "
            "limit, {count} by default, minus those already started today)"
        ).format(count=DEFAULT_NEW_PER_DAY),
    )
    parser.add_argument(
        "--limit",
        metavar="N",
        type=_session_limit,
        help=_("at most N cards in this session (1 or more)"),
    )
    parser.add_argument(
        "--mistake",
        metavar="CODE",
        help=_(
            "practise one diagnosed mistake (a code from kvdrill stats, e.g. kv_factor_2): "
            "fresh problems whose numbers make it show, answered and logged as usual"
        ),
    )
    parser.add_argument(
        "--count",
        metavar="N",
        type=_session_limit,
        help=_("with --mistake: N problems (default 10)"),
    )
    parser.add_argument(
        "--suspended", action="store_true", help=_("list your suspended cards, then exit")
    )
    parser.add_argument("--json", action="store_true", help=_("with --suspended: the list as JSON"))
    parser.add_argument(
        "--unsuspend",
        metavar="PACK/CARD",
        action="append",
        help=_("bring a suspended card back into your drills (repeatable), then exit"),
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    if args.json and not args.suspended:
        raise UserError(_("--json goes with --suspended (the list of suspended cards)"))
    if args.suspended or args.unsuspend:
        return manage_suspended(args)
    if args.mistake is not None or args.count is not None:
        unknown = check_mistake_options(args)
        if unknown is not None:
            # A code that does not exist is a usage error, as a wrong option is: exit 2.
            from kvdrill.app.error_line import error_line

            print(f"kvdrill: {error_line(unknown)}", file=sys.stderr)
            return 2
    if args.plain:
        from kvdrill.app.plain import run_plain

        return run_plain(args, sys.stdin, sys.stdout)
    from kvdrill.app.app_options import AppOptions, drill_filters_of

    return launch_tui(args, "drill", AppOptions(**drill_filters_of(args)))


def check_mistake_options(args) -> str | None:
    """``--mistake CODE [--count N]``: a UserError for options that do not go with it; the
    one-line error for a code the checker never gives (listing those that can be practised)."""
    if args.mistake is None:
        raise UserError(_("--count goes with --mistake (the number of problems to practise on)"))
    narrowing = [
        name
        for name in ("pack", "tag", "lesson", "flag", "cram", "ahead", "new", "limit")
        if getattr(args, name)
    ]
    if narrowing:
        raise UserError(
            _(
                "--{option} does not go with --mistake: a mistake session picks its own "
                "problems (--count N sets how many)"
            ).format(option=narrowing[0])
        )
    from kvdrill.engine.problems.mistakes import is_known

    if is_known(args.mistake):
        return None
    from kvdrill.app.services.backend import Services
    from kvdrill.engine.problems.mistakes import unknown_mistake

    services = Services(args.db, args.profile)
    try:
        return str(unknown_mistake(args.mistake, services.offered_mistakes()))
    finally:
        services.close()


def manage_suspended(args) -> int:
    """``--unsuspend PACK/CARD`` and ``--suspended``: no session, just the cards set aside."""
    from kvdrill.app.plain import literal
    from kvdrill.app.services.backend import Services

    services = Services(args.db, args.profile, bundled=False)
    try:
        for reference in args.unsuspend or []:
            title = services.unsuspend(reference)
            print(_("Unsuspended: {card} ({title})").format(card=reference, title=literal(title)))
        if args.suspended:
            listed = services.suspended_cards()
            if args.json:
                import json

                cards = [{"card": reference, "title": title} for reference, title in listed]
                print(json.dumps(cards, indent=2, ensure_ascii=False))
                return 0
            if not listed:
                print(_("No suspended cards."))
            for reference, title in listed:
                print(f"{reference}  {literal(title)}")
    finally:
        services.close()
    return 0


def run_home(args) -> int:
    """Plain ``kvdrill``: the UI's home screen."""
    from kvdrill.app.app_options import AppOptions

    return launch_tui(args, "home", AppOptions())


def launch_tui(args, start: str, options: AppOptions) -> int:
    # textual-serve (``kvdrill serve``) runs the app with its web driver, a browser for terminal.
    from kvdrill.app.services.environment import served_in_a_browser

    served = served_in_a_browser()
    if not served and not (sys.stdin.isatty() and sys.stdout.isatty()):
        # Without a terminal the full-screen app would wait forever for keys.
        raise UserError(
            _(
                "the full-screen app needs a terminal; for pipes and scripts use `kvdrill drill --plain`"
            )
        )
    # Sessions the first-card helper cannot plan start without it.
    special = (options.mistake, options.flag, options.cram, options.ahead)
    if start == "drill" and not any(special):
        # Before Textual is imported: a helper process reads the first card meanwhile.
        from kvdrill.app.services.first_card import start as start_first_card

        helper = start_first_card(args.db, args.profile, options.drill_filters())
        options = replace(options, first_card=helper)
    from kvdrill.app.tui import create_app

    create_app(args.db, args.profile, start=start, options=options).run()
    return 0
