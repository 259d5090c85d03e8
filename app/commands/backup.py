"""``kvdrill backup [PATH] [--keep N]``: a checked copy of the database, now."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "backup",
        help=_("copy the database to PATH (default: backups/ beside it), checked"),
        description=(
            _(
                "Write a consistent copy of the database with SQLite's online backup API (safe "
                "while a drill runs) and check it. Without PATH the copy goes to the backups/ "
                "folder beside the database. kvdrill also keeps one automatic backup per day "
                "there, the newest 7 unless --keep says otherwise (0 turns them off)."
            )
        ),
    )
    parser.add_argument("path", nargs="?", metavar="PATH", help=_("where to write the copy"))
    parser.add_argument(
        "--keep",
        type=int,
        metavar="N",
        help=_("keep the newest N automatic daily backups from now on (0: none)"),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.services.maintenance import backup

    for line in backup(args.db, args.path, args.keep):
        print(line)
    return 0
