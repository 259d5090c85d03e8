"""``kvdrill backup [PATH] [--keep N]``: a checked copy of the database, now."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from kvdrill.app.shown_numbers import count
from kvdrill.i18n import _, ngettext

if TYPE_CHECKING:
    from kvdrill.app.services.maintenance import BackupInfo


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

    lines, info = backup(args.db, args.path, args.keep)
    for line in lines:
        print(line)
    if info is not None:
        print(_("Backed up to {contents}.").format(contents=backup_contents(info)))
    return 0


def backup_contents(info: BackupInfo) -> str:
    """A backup file and what it holds, its counts read in the learner's language:
    ``PATH: 12 answers, 7 cards, 1 profile``."""
    return _("{path}: {answers}, {cards}, {profiles}").format(
        path=info.path,
        answers=ngettext("{count} answer", "{count} answers", info.answers).format(
            count=count(info.answers)
        ),
        cards=ngettext("{count} card", "{count} cards", info.cards).format(count=count(info.cards)),
        profiles=ngettext("{count} profile", "{count} profiles", info.profiles).format(
            count=count(info.profiles)
        ),
    )
