"""``kvdrill due [--json]``: today's due and new cards, "12 due · 5 new", for a shell prompt or
a tmux status line."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "due",
        help=_("print today's due and new cards: 12 due · 5 new"),
        description=(
            _(
                "Print how many cards today's session holds for the profile, due (reviews and "
                "today's repeats) and new, as kvdrill drill would bring them now. Fast enough for "
                "a shell prompt; reads only."
            )
        ),
    )
    parser.add_argument("--json", action="store_true", help=_("print the counts as JSON"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.services.due import due_count

    count = due_count(args.db, args.profile)
    if args.json:
        import json

        print(json.dumps({"profile": count.profile, "due": count.due, "new": count.new}))
    else:
        print(_("{due} due · {new} new").format(due=count.due, new=count.new))
    return 0
