"""``kvdrill doctor [--json]``: check the database in full and repair what can be repaired."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help=_("check the database in full, repair what it can explain, report the rest"),
        description=(
            _(
                "Check every page of the database (integrity_check). Report, and leave as they "
                "are, values kvdrill never writes and card states that disagree with the review "
                "log. Repair the rest after writing a checked copy to backups/: recreate a "
                "profile, card or pack that a learner's rows point at (no review is ever deleted), "
                "remove derived rows pointing at nothing, rebuild a missing card state from its "
                "log, recompute the stats rollups. A damaged file is reported and left alone, with "
                "the newest backup that passes the full check. Exits 0 when the database is sound "
                "(after any repairs), 1 when not."
            )
        ),
    )
    parser.add_argument("--json", action="store_true", help=_("print the report as JSON"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from kvdrill.app.services.maintenance import doctor
    from kvdrill.app.shown_numbers import count
    from kvdrill.engine.errors import printable

    report = doctor(args.db)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        for line in report.lines(count):
            print(printable(line))
    return 0 if report.sound else 1
