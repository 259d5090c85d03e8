"""``kvdrill restore PATH``: put a backup back, after checking it and saving what is there."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "restore",
        help=_("replace the database's contents with a backup (checked first)"),
        description=(
            _(
                "Check PATH in full (SQLite integrity_check, and a schema exactly as kvdrill "
                "writes it for its revision: every table, index, trigger and view); save the "
                "current database to backups/ beside it (or --keep-as FILE); then copy the backup "
                "in. Nothing is replaced if the check fails."
            )
        ),
    )
    parser.add_argument("path", metavar="PATH", help=_("the backup file to restore"))
    parser.add_argument(
        "--keep-as",
        metavar="FILE",
        help=_(
            "where to save the current database first (default: "
            "backups/NAME-before-restore-TIME.db beside it)"
        ),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.commands.backup import backup_contents
    from kvdrill.app.services.maintenance import restore

    info, kept = restore(args.db, args.path, args.keep_as)
    print(_("Restored {contents}.").format(contents=backup_contents(info)))
    print(_("What was there before is kept in {path}.").format(path=kept))
    return 0
