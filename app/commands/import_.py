"""``kvdrill import PATH... [--dry-run]``: store packs in the database, history kept.

Every file is parsed and checked first; if any has a problem, each is printed as
``path:line: message`` and nothing is written. Then all packs are stored in one transaction.
"""

from __future__ import annotations

import sys
from typing import TextIO

from kvdrill.i18n import _, ngettext

# Below this many files the import is quick enough that a progress line is only noise.
PROGRESS_MIN_FILES = 3


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "import",
        help=_("store packs in the database (history kept on re-import)"),
        description=(
            _(
                "Parse the packs (files, or directories searched for *.md) and store them. "
                "Re-importing an edited pack keeps each card's schedule and history; a card "
                "removed from its file is retired, and comes back if it returns."
            )
        ),
    )
    # Kept as text: Path("") would quietly become the current directory.
    parser.add_argument("paths", nargs="+", metavar="PATH", help=_("pack file or dir"))
    parser.add_argument(
        "--dry-run", action="store_true", help=_("show what would change; write nothing")
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=_("per pack, the ids and titles of the cards added, changed, retired and revived"),
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help=_(
            "let a file take over a pack id that another of your pack files holds, or the "
            "place of the edition in its language that another file imported"
        ),
    )
    parser.add_argument(
        "--replace-history",
        action="store_true",
        help=_(
            "let the Anki history beside a pack (from kvdrill convert) replace the schedules "
            "of cards you have answered in kvdrill"
        ),
    )
    parser.set_defaults(func=run)


class ProgressLine:
    """A one-line progress bar on a terminal, redrawn in place; silent when not a terminal."""

    def __init__(self, stream: TextIO, files: int, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.enabled = files >= PROGRESS_MIN_FILES and stream.isatty()
        self.drawn = False

    def callback(self, label: str):
        def report(done: int, total: int) -> None:
            if not self.enabled or total == 0:
                return
            filled = self.width * done // total
            bar = "#" * filled + "-" * (self.width - filled)
            self.stream.write(f"\r{label:<9} [{bar}] {done}/{total}")
            self.stream.flush()
            self.drawn = True

        return report

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * (self.width + 30) + "\r")
            self.stream.flush()
            self.drawn = False


def run(args) -> int:
    from kvdrill.app.services import environment
    from kvdrill.app.services.importing import (
        ReadPacks,
        database_file_missing,
        find_pack_files,
        open_import_database,
        plan_packs,
        read_files,
        store_packs,
        unchanged_files,
    )
    from kvdrill.app.services.interop import HistoryStep, pack_histories
    from kvdrill.app.services.pack_files import paths_from_arguments
    from kvdrill.engine.errors import PackErrors
    from kvdrill.engine.interop.card_ids import converted_from_anki

    paths = paths_from_arguments(args.paths, _("nothing imported"))
    files, missing = find_pack_files(paths)
    histories = pack_histories(files)
    url = environment.database_url(args.db)
    source = environment.url_source(args.db)
    not_created = database_file_missing(url)
    database = None
    unchanged: dict = {}

    def open_for_import(url: str, source: str, create_folder: bool):
        return open_import_database(url, source, create_folder, sqlite_fast_path=not histories)

    if not args.dry_run and not not_created:
        # Files stored before, byte for byte, are not parsed again.
        database = open_for_import(url, source, environment.is_own_folder(args.db))
        unchanged = unchanged_files(database, files)
    progress = ProgressLine(sys.stderr, len(files) - len(unchanged))
    to_read = [file for file in files if str(file) not in unchanged]
    read = (
        read_files(to_read, missing, progress=progress.callback(_("parsing")))
        if to_read or missing
        else ReadPacks(files, [], [], 0)  # every file stored before: nothing to parse
    )
    skipped = {plan.pack_key for plan in unchanged.values()}
    if unchanged and (
        {pack.meta.pack for pack in read.packs} & skipped
        or any(pack.meta.edition_of in skipped for pack in read.packs)
        or any(converted_from_anki(pack) for pack in read.packs)
    ):
        # A changed file claims the id of a skipped one, is an edition of a skipped one (checked
        # against it), or may be an Anki deck converted again that takes over a skipped one's
        # pack: check them all together.
        unchanged = {}
        read = read_files(files, missing, progress=progress.callback(_("parsing")))
    if read.problems:
        progress.clear()
        if database is not None:
            database.close()
        return _nothing_imported(PackErrors(read.problems))

    if args.dry_run:
        # A database that does not exist yet is not created by a dry run: plan against an empty one.
        url = "sqlite://" if not_created else url
    if database is None:
        database = open_for_import(url, source, environment.is_own_folder(args.db))
    history = HistoryStep(
        list(histories.values()),
        args.profile,
        environment.now(),
        replace_history=args.replace_history,
        dry_run=args.dry_run,
    )
    try:
        if args.dry_run:
            plan = plan_packs(
                database, read.packs, replace=args.replace, then=history if histories else None
            )
        else:
            plan = store_packs(
                database,
                read.packs,
                environment.now(),
                progress.callback(_("importing")),
                list(unchanged.values()),
                replace=args.replace,
                then=history if histories else None,
            )
    except PackErrors as exc:  # packs the database refuses, such as a bundled pack's id
        return _nothing_imported(exc)
    finally:
        progress.clear()
        database.close()

    in_file_order = {item.path: item for item in plan.packs}
    plan.packs[:] = [in_file_order[str(file)] for file in files if str(file) in in_file_order]
    if args.json:
        import json

        report = {"dry_run": args.dry_run, "packs": [pack.to_dict() for pack in plan.packs]}
        if history.plans:
            report["anki_history"] = [item.to_dict() for item in history.plans]
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    from kvdrill.app.shown_numbers import count

    by_summary = {pack.summary(count): pack for pack in plan.packs} if args.dry_run else {}
    for line in plan.summary_lines(count):
        print(line)
        if line in by_summary:
            for title_line in _changed_titles(by_summary[line]):
                print(title_line)
    for history_plan in history.plans:
        print(history_plan.summary(count))
    if args.dry_run:
        print(_("dry run: nothing written"))
    return 0


def _changed_titles(pack) -> list[str]:
    """Under a dry run's pack line, the cards it would change, retire or bring back, by title
    (the ones added are counted only: a new pack's would be all of them), within 80 columns."""
    from kvdrill.app.text_table import table_lines
    from kvdrill.engine.errors import printable

    rows = [
        [word, printable(pack.titles.get(key) or key)]
        for word, keys in (
            (_("changed"), pack.changed),
            (_("retired"), pack.retired),
            (_("revived"), pack.revived),
        )
        for key in keys
    ]
    return table_lines(rows, wrap=1, indent="  ")


def _nothing_imported(exc) -> int:
    """Every problem as ``path:line: message`` on stderr, then how many; exit status 1."""

    for problem in exc.problems:
        print(problem, file=sys.stderr)
    where = len({problem.path for problem in exc.problems})
    problems = ngettext("{count} problem", "{count} problems", len(exc.problems))
    files = ngettext("{count} file", "{count} files", where)
    print(
        "kvdrill: "
        + _("nothing imported: {problems} in {files}").format(
            problems=problems.format(count=len(exc.problems)), files=files.format(count=where)
        ),
        file=sys.stderr,
    )
    return 1
