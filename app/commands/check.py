"""``kvdrill check PATH... [--add-ids]``: validate packs without touching the database."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "check",
        help=_("validate packs (files or directories); print every error as path:line: message"),
        description=(
            _(
                "Validate Markdown packs: syntax, ids, problem templates and claims. Prints every "
                "error as path:line: message and a summary; exits 0 when clean, 1 otherwise. "
                "Never touches the database."
            )
        ),
    )
    # Kept as text: Path("") would quietly become the current directory.
    parser.add_argument("paths", nargs="+", metavar="PATH", help=_("pack file or folder"))
    parser.add_argument(
        "--add-ids",
        action="store_true",
        help=_("first write generated ids into card headings that lack one (nothing else changes)"),
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=_("print the errors and counts (packs, cards by kind, problem templates, claims)"),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.services.importing import (
        check_report,
        find_pack_files,
        read_files,
        with_bundled_id_clashes,
    )
    from kvdrill.app.services.pack_files import add_ids_to_file, paths_from_arguments
    from kvdrill.engine.errors import PackErrors, printable

    paths = paths_from_arguments(args.paths, _("nothing checked"))
    files, missing = find_pack_files(paths)
    if args.add_ids:
        for file in files:
            try:
                added = add_ids_to_file(file)
            except PackErrors:
                continue  # the check below reports why the file cannot be read
            for line, card_id in added:
                print(printable(f"{file}:{line}: added id {{#{card_id}}}"))

    read = with_bundled_id_clashes(read_files(files, missing))
    if args.json:
        import json

        report = check_report(read)
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0 if report["ok"] else 1
    for problem in sorted(read.problems):
        print(problem)
    print_editions(read.packs)
    from kvdrill.app.shown_numbers import count
    from kvdrill.i18n import ngettext

    packs = ngettext("{count} pack", "{count} packs", len(files))
    cards = ngettext("{count} card", "{count} cards", read.cards)
    errors = ngettext("{count} error", "{count} errors", len(read.problems))
    print(
        ", ".join(
            text.format(count=count(number))
            for text, number in (
                (packs, len(files)),
                (cards, read.cards),
                (errors, len(read.problems)),
            )
        )
    )
    return 1 if read.problems else 0


def print_editions(packs: list) -> None:
    """For each pack that is no edition, its edition in each language, or that it has none
    (shown when an edition is among ``packs``)."""
    from kvdrill.app.services.importing import editions_of
    from kvdrill.engine.errors import printable
    from kvdrill.engine.study.settings import COURSE_LANGUAGE, LANGUAGES
    from kvdrill.i18n import _

    lines = editions_of(packs)
    if not lines:
        return
    print(_("Editions:"))
    for pack, editions in lines:
        wanted = [lang for lang in LANGUAGES if lang not in (COURSE_LANGUAGE, pack.meta.lang)]
        found = [
            _("{lang}: {edition}").format(lang=lang, edition=edition.meta.pack)
            for lang, edition in sorted(editions.items())
        ] + [_("{lang}: no edition").format(lang=lang) for lang in wanted if lang not in editions]
        shown = "; ".join(found) or _("no edition")
        print(printable(f"  {pack.meta.pack} ({pack.path}): {shown}"))
