"""``kvdrill convert FILE -o PACK.md``: cards from Anki or a CSV file as a kvdrill pack."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "convert",
        help=_("turn an Anki package, Anki text export or CSV into a pack"),
        description=(
            _(
                "Convert FILE into a kvdrill pack: an Anki package (.apkg, legacy or current), "
                'Anki\'s "Notes in Plain Text" export, or a CSV of front, back and optional tags. '
                "Converting a newer export of the same deck gives the same card ids, so "
                "importing the new pack updates the cards and keeps their history. A package "
                "exported with scheduling also gives PACK.anki-history.json beside the pack: "
                "kvdrill import PACK.md brings Anki's schedules and review log along."
            )
        ),
    )
    parser.add_argument("file", metavar="FILE", help=_(".apkg, .txt/.tsv (Anki text) or .csv"))
    parser.add_argument("-o", "--output", required=True, metavar="PACK.md", help=_("pack to write"))
    parser.add_argument("--pack-id", help=_("the pack id (default: from the output file's name)"))
    parser.add_argument("--title", help=_("the pack title (default: the deck's or file's name)"))
    parser.add_argument(
        "--force", action="store_true", help=_("replace PACK.md (and its history) if it exists")
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from kvdrill.app.services.interop import convert
    from kvdrill.engine.errors import printable
    from kvdrill.i18n import _, ngettext

    output = Path(args.output)
    force = args.force
    if not force and output.is_file() and sys.stdin.isatty():
        # In a terminal the learner is asked; elsewhere an existing pack is refused unless
        # --force (the service says so).
        question = _("{pack} exists: replace it, with its Anki history and images? [y/N] ")
        answer = input(printable(question.format(pack=output)))
        if answer.strip().lower() not in ("y", "yes", "c", "có"):  # có: yes in Vietnamese
            print(_("Not replaced: nothing written."))
            return 1
        force = True
    result = convert(
        Path(args.file),
        output,
        pack_id=args.pack_id,
        title=args.title,
        force=force,
    )
    notes = []
    if result.media_folder is not None:
        copied = ngettext(
            "{count} image copied to {folder}", "{count} images copied to {folder}", result.images
        )
        notes.append(copied.format(count=result.images, folder=result.media_folder))
    if result.skipped:
        left_out = ngettext(
            "{count} note with an empty front or back left out",
            "{count} notes with an empty front or back left out",
            result.skipped,
        )
        notes.append(left_out.format(count=result.skipped))
    if result.media_skipped:
        not_carried = ngettext(
            "{count} media file not carried over",
            "{count} media files not carried over",
            result.media_skipped,
        )
        notes.append(not_carried.format(count=result.media_skipped))
    extra = f" ({'; '.join(notes)})" if notes else ""
    cards = ngettext("{count} card", "{count} cards", result.cards).format(count=result.cards)
    wrote = _("wrote {output}: pack {pack}, {cards}{extra}")
    print(
        printable(wrote.format(output=result.output, pack=result.pack_id, cards=cards, extra=extra))
    )
    if result.history is not None:
        started = (
            ngettext(
                "; {count} card new or learning in Anki starts new",
                "; {count} cards new or learning in Anki start new",
                result.left_new,
            ).format(count=result.left_new)
            if result.left_new
            else ""
        )
        scheduled = ngettext("{count} card", "{count} cards", result.scheduled)
        answers = ngettext("{count} answer", "{count} answers", result.reviews)
        history = _(
            "wrote {history}: Anki's schedules of {cards} and {answers}{started} "
            "(kvdrill import reads it)"
        ).format(
            history=result.history,
            cards=scheduled.format(count=result.scheduled),
            answers=answers.format(count=result.reviews),
            started=started,
        )
        print(printable(history))
    following = _("next: kvdrill check {output} && kvdrill import {output}")
    print(printable(following.format(output=result.output)))
    return 0
