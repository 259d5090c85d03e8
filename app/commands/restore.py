"""``kvdrill restore PATH``: put a backup back, after checking it and saving what is there."""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "restore",
        help="replace the database's contents with a backup (checked first)",
        description=(
            "Check PATH in full (SQLite integrity_check, a kvdrill schema this version can "
            "open); save the current database to backups/ beside it; then copy the backup in. "
            "Nothing is replaced if the check fails."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="the backup file to restore")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.services.maintenance import restore

    for line in restore(args.db, args.path):
        print(line)
    return 0
