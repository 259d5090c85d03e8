"""``kvdrill export --format apkg|json|csv TARGET``: packs to Anki, or study data to files."""

from __future__ import annotations

import argparse
import sys

from kvdrill.i18n import _


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "export",
        help=_("write packs as an Anki package, or all your study data as JSON/CSV"),
        description=(
            _(
                "--format apkg FILE writes the stored packs (or those given with --pack) as an "
                "Anki package; problem templates become a few fixed variants. --format json or "
                "csv DIR writes cards, the profile's schedules, its full review log (with the "
                "schedule before each answer), its notes and its settings into DIR."
            )
        ),
    )
    parser.add_argument("--format", required=True, choices=("apkg", "json", "csv"))
    parser.add_argument("target", metavar="FILE|DIR", help=_("the .apkg file, or the directory"))
    parser.add_argument(
        "--pack", action="append", default=[], metavar="P", help=_("a pack id (repeatable; apkg)")
    )
    parser.add_argument(
        "--with-scheduling",
        action="store_true",
        help=_(
            "apkg: the profile's schedules and review log too (Anki imports them as review "
            "cards with kvdrill's intervals and due days; tick Anki's 'Import any learning "
            "progress')"
        ),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kvdrill.app.services.interop import export_apkg, export_data
    from kvdrill.engine.errors import UserError, printable
    from kvdrill.engine.wording import plural

    if not args.target.strip():
        raise UserError(_("an empty path was given (an unset shell variable?); nothing written"))
    target = Path(args.target)
    if args.format == "apkg":
        result = export_apkg(
            args.db, target, args.pack, args.profile, with_scheduling=args.with_scheduling
        )
        for line in result.not_exported:
            print(printable(line), file=sys.stderr)
        scheduled = (
            f", {plural(result.scheduled, 'card')} with your schedule and answers"
            if args.with_scheduling
            else ""
        )
        print(
            printable(
                f"wrote {target}: {plural(result.notes, 'Anki note')} "
                f"from {plural(result.packs, 'pack')}{scheduled}"
            )
        )
        return 0
    if args.with_scheduling:
        raise UserError(_("--with-scheduling applies to --format apkg; json and csv have it all"))
    if args.pack:
        raise UserError(_("--pack applies to --format apkg; json and csv export everything"))
    data = export_data(args.db, args.profile, args.format, target)
    print(
        printable(
            f"wrote {', '.join(str(path) for path in data.files)}: "
            f"{plural(data.cards, 'card')}, {plural(data.schedules, 'schedule')}, "
            f"{plural(data.reviews, 'review')}, {plural(data.notes, 'note')}"
        )
    )
    return 0
