"""Convert foreign cards into a pack, and export packs and study data.

``convert``: read an Anki package (store/anki_package.py) or a text file (Anki's "Notes in
Plain Text" export, plain CSV), build the pack's Markdown (engine/interop), check that the pack
parses, and only then write it, atomically: bad input leaves nothing behind.
``export_apkg``: stored packs -> an Anki package. ``export_data``: cards, the profile's
schedules and its full review log as JSON or CSV files in a directory.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from kvdrill.app.services import environment
from kvdrill.engine.errors import PackErrors, UserError
from kvdrill.engine.interop.notes import ConvertError, ForeignDeck
from kvdrill.i18n import _

# Text files bigger than this are refused before reading: a pack holds 4 MB at most anyway.
MAX_TEXT_INPUT_BYTES = 64 * 1024 * 1024
ZIP_MAGIC = b"PK\x03\x04"
DATA_FORMATS = ("json", "csv")
EXPORT_FORMATS = ("apkg", *DATA_FORMATS)


@dataclass(frozen=True)
class ConvertResult:
    output: Path
    pack_id: str
    title: str
    cards: int
    skipped: int
    media_skipped: int
    history: Path | None = None  # the Anki history written beside the pack
    images: int = 0  # image files copied into ``media_folder`` beside the pack
    media_folder: Path | None = None
    reviews: int = 0  # answers in it
    scheduled: int = 0  # cards with Anki's schedule in it
    left_new: int = 0  # cards new or learning in Anki, starting new


def _read_start(path: Path) -> bytes:
    try:
        if not path.is_file():
            raise ConvertError(str(path), 1, "no such file" if not path.exists() else "not a file")
        if path.stat().st_size > MAX_TEXT_INPUT_BYTES and path.suffix.lower() != ".apkg":
            raise ConvertError(
                str(path), 1, f"file is over {MAX_TEXT_INPUT_BYTES >> 20} MB; too big to convert"
            )
        with path.open("rb") as handle:
            return handle.read(len(ZIP_MAGIC))
    except OSError as exc:
        raise ConvertError(str(path), 1, f"cannot read the file: {exc.strerror or exc}") from None


def read_foreign_deck(source: Path) -> ForeignDeck:
    """The notes of ``source``, whatever supported format it is in."""
    from kvdrill.engine.interop.delimited import read_delimited
    from kvdrill.engine.packs.source import decode_pack_bytes

    start = _read_start(source)
    if start == ZIP_MAGIC or source.suffix.lower() in (".apkg", ".colpkg"):
        from kvdrill.store.anki_package import read_anki_package

        return read_anki_package(source, source.stem)
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise ConvertError(str(source), 1, f"cannot read the file: {exc.strerror}") from None
    text = decode_pack_bytes(data, str(source))
    return read_delimited(text, str(source), source.stem, source.suffix.lower())


def convert(
    source: Path,
    output: Path,
    *,
    pack_id: str | None = None,
    title: str | None = None,
    force: bool = False,
) -> ConvertResult:
    """Convert ``source`` into the pack file ``output``; ``UserError`` and nothing written on
    bad input. An existing ``output`` is replaced only with ``force``. A package's scheduling
    and review log go into the history file beside the pack (engine/interop/anki_history.py),
    which ``kvdrill import`` reads; a conversion without any removes an older one."""
    from kvdrill.app.services.pack_files import write_atomically
    from kvdrill.engine.interop.anki_history import anki_history, history_path, history_text
    from kvdrill.engine.interop.pack_text import NothingToConvert, build_pack_text
    from kvdrill.engine.packs.headings import id_problem, slugify
    from kvdrill.engine.packs.media import media_folder_name
    from kvdrill.engine.packs.parser import parse_pack_text

    pack_id = pack_id if pack_id is not None else slugify(output.stem)
    if problem := id_problem(pack_id, _("pack id")):
        raise UserError(_("{problem} (choose one with --pack-id)").format(problem=problem))
    if output.exists() and output.resolve() == source.resolve():
        raise UserError(
            _("{output} is the file being converted; write the pack elsewhere").format(
                output=output
            )
        )
    if not output.parent.is_dir():
        raise UserError(
            _("cannot write {output}: no directory {parent}").format(
                output=output, parent=output.parent
            )
        )
    if output.exists() and not force:
        raise UserError(
            _(
                "{output} exists; converting would replace it. Give --force to replace it (a newer export of the same deck keeps the card ids, so importing it keeps your history), or write the pack elsewhere"
            ).format(output=output)
        )
    media_folder = output.with_name(media_folder_name(output))
    if media_folder.exists() and not media_folder.is_dir():
        raise UserError(
            _("{media_folder} is a file; the pack's images go in a folder of that name").format(
                media_folder=media_folder
            )
        )
    deck = read_foreign_deck(source)
    try:
        converted = build_pack_text(
            deck, pack_id, source_name=source.name, title=title, media_folder=media_folder.name
        )
    except NothingToConvert as exc:
        raise ConvertError(str(source), 1, str(exc)) from None
    try:
        pack = parse_pack_text(converted.text, str(output))
    except PackErrors as exc:
        raise UserError(
            _(
                "the converted pack does not pass kvdrill check, so nothing was written: {problems}"
            ).format(problems=exc.problems[0])
        ) from None
    history = anki_history(
        pack_id,
        source.name,
        converted.anki_cards,
        deck.created,
        deck.modified,
        datetime.fromtimestamp,
    )
    history_file = Path(history_path(output))
    images = _MediaCopy(source, converted.images, media_folder)
    try:
        images.copy()
        if history is not None:
            write_atomically(history_file, history_text(history).encode("utf-8"))
        else:
            history_file.unlink(missing_ok=True)  # an older conversion's: no longer true
        write_atomically(output, converted.text.encode("utf-8"))
        images.put_in_place()
    except OSError as exc:
        raise UserError(
            _("cannot write {output}: {strerror}").format(
                output=output, strerror=exc.strerror or exc
            )
        ) from None
    finally:
        images.clean_up()
    return ConvertResult(
        output=output,
        pack_id=pack_id,
        title=pack.meta.title,
        cards=converted.cards,
        skipped=converted.skipped,
        media_skipped=converted.media_skipped,
        history=history_file if history is not None else None,
        images=len(converted.images),
        media_folder=media_folder if converted.images else None,
        reviews=history.review_count if history else 0,
        scheduled=len(history.cards) if history else 0,
        left_new=history.left_new if history else 0,
    )


class _MediaCopy:
    """The images a converted pack shows, copied out of the package into a temporary folder
    first, then put in place of an older conversion's folder once the pack is written (a
    conversion that shows none removes an older folder: its images are no longer the pack's)."""

    def __init__(self, source: Path, names: frozenset[str], folder: Path) -> None:
        self.source, self.names, self.folder = source, names, folder
        self.staged: Path | None = None

    def copy(self) -> None:
        if not self.names:
            return
        from kvdrill.store.anki_package import copy_media

        self.staged = Path(tempfile.mkdtemp(dir=self.folder.parent, prefix=f".{self.folder.name}."))
        copy_media(self.source, self.names, self.staged)

    def put_in_place(self) -> None:
        if self.folder.is_dir():
            old = Path(tempfile.mkdtemp(dir=self.folder.parent, prefix=f".{self.folder.name}."))
            os.replace(self.folder, old / "old")
            shutil.rmtree(old, ignore_errors=True)
        if self.staged is not None:
            os.replace(self.staged, self.folder)
            self.staged = None

    def clean_up(self) -> None:
        if self.staged is not None:
            shutil.rmtree(self.staged, ignore_errors=True)


# --- history in ---------------------------------------------------------------------------------


def pack_histories(files: list[Path]) -> dict[Path, Any]:
    """The Anki history file beside each pack file that has one: pack file -> its
    ``PackHistory``. ``UserError`` for a history file that cannot be read."""
    from kvdrill.engine.interop.anki_history import history_path, read_history

    found = {}
    for file in files:
        sidecar = Path(history_path(file))
        if not sidecar.is_file():
            continue
        try:
            text = sidecar.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(
                _("{sidecar}:1: cannot read the history file: {error}").format(
                    sidecar=sidecar, error=exc
                )
            ) from None
        found[file] = read_history(text, str(sidecar))
    return found


class HistoryStep:
    """Importing the Anki histories of the packs, in the pack import's transaction: call it
    with the session and the import's plan (``store_packs(..., then=step)``); ``plans`` says
    what it did. Conflicts
    without ``replace_history`` raise a ``UserError`` naming each card, and nothing is written."""

    def __init__(
        self,
        histories: list[Any],
        profile: str,
        now: datetime,
        replace_history: bool,
        dry_run: bool,
    ) -> None:
        self.histories = histories
        self.profile = profile
        self.now = now
        self.replace_history = replace_history
        self.dry_run = dry_run
        self.plans: list[Any] = []

    def __call__(self, session: Any, import_plan: Any) -> None:
        from kvdrill.store.anki_history import apply_history, plan_history
        from kvdrill.store.profiles import get_or_create_profile, get_profile

        if self.dry_run:
            profile = get_profile(session, self.profile)
        else:
            profile = get_or_create_profile(session, self.profile, self.now)
        # A dry run stores no pack: one taking over a pack of another id finds it by that id.
        stored_as = {
            pack.pack_key: pack.took_over_key for pack in import_plan.packs if pack.took_over_key
        }
        for history in self.histories:
            if self.dry_run:
                plan = plan_history(
                    session,
                    profile.id if profile else None,
                    history,
                    self.replace_history,
                    stored_as.get(history.pack, history.pack),
                )
            else:
                assert profile is not None  # created above
                plan = apply_history(
                    session, profile.id, history, profile.rollover_hour, self.replace_history
                )
            self.plans.append(plan)
        conflicts = [item for plan in self.plans for item in plan.replaced]
        if conflicts and not self.replace_history:
            raise UserError(self._conflict_message(conflicts))

    def _conflict_message(self, conflicts: list[Any]) -> str:
        from kvdrill.engine.wording import plural

        shown = "\n".join(f"  {item.line()}" for item in conflicts[:10])
        more = f"\n  and {len(conflicts) - 10} more" if len(conflicts) > 10 else ""
        return (
            f"nothing imported: profile {self.profile!r} has answered "
            f"{plural(len(conflicts), 'card')} in kvdrill that Anki's history would "
            f"reschedule:\n{shown}{more}\nrun again with --replace-history to take Anki's "
            "schedules (your kvdrill answers stay in the log)"
        )


# --- export ---------------------------------------------------------------------------------


def _open(db: str | None):
    from kvdrill.store.db import open_database

    return open_database(
        environment.database_url(db),
        environment.url_source(db),
        create_folder=environment.is_own_folder(db),
    )


@dataclass(frozen=True)
class ApkgResult:
    output: Path
    packs: int
    notes: int
    not_exported: list[str]  # one line per card left out (a template that cannot draw)
    scheduled: int = 0  # cards written as Anki review cards, with their answers


def export_apkg(
    db: str | None,
    output: Path,
    pack_keys: list[str],
    profile: str | None = None,
    with_scheduling: bool = False,
) -> ApkgResult:
    """Write the stored packs named (all, when none is) as an Anki package at ``output``, with
    ``profile``'s notes on the cards; ``with_scheduling``: its schedules and review log too."""
    from kvdrill.app.services.importing import import_bundled
    from kvdrill.app.services.media import linked_image, media_link
    from kvdrill.engine.interop.anki_cards import NOTE_TYPES, LearnerCard, anki_notes
    from kvdrill.engine.interop.anki_history import anki_scheduling
    from kvdrill.engine.study.clock import study_day
    from kvdrill.store.anki_package import write_anki_package
    from kvdrill.store.export_rows import learner_cards, packs_for_export
    from kvdrill.store.profiles import get_profile

    if not output.parent.is_dir():
        raise UserError(
            _("cannot write {output}: no directory {parent}").format(
                output=output, parent=output.parent
            )
        )
    if output.exists() and not output.is_file():  # a device or a pipe is never replaced
        raise UserError(
            _("{output} is not a regular file: export writes a file of its own").format(
                output=output
            )
        )
    now = environment.now()
    database = _open(db)
    try:
        # As a drill would: the bundled packs are there to export too.
        import_bundled(database, now)
        with database.session() as session:
            packs = packs_for_export(session, pack_keys)
            learner = learner_cards(session, profile) if profile else {}
            row = get_profile(session, profile) if profile else None
            rollover = row.rollover_hour if row is not None else 4
    finally:
        database.close()
    if not packs:
        raise UserError(_("no packs to export; run kvdrill import first"))
    # The collection is created today (at the profile's rollover): Anki counts review dues
    # in days from its creation day, and moves them to its own calendar on import.
    day_zero = study_day(now, rollover)
    created = datetime.combine(day_zero, datetime.min.time()).replace(hour=rollover)

    def epoch_ms(moment: datetime) -> int:
        return round(moment.timestamp() * 1000)

    notes, left_out = [], []
    media: dict[str, Path] = {}
    scheduled = 0
    for meta, cards, pack_path in packs:
        own = {}
        for card in cards:
            note, schedule, answers = learner.get((meta.pack, card.key), ("", None, []))
            plan = None
            if with_scheduling and schedule is not None and card.kind != "problem":
                plan = anki_scheduling(schedule, answers, day_zero, epoch_ms)
            scheduled += plan is not None
            own[card.key] = LearnerCard(note, plan)
        pack_notes, pack_left_out, pack_media = anki_notes(meta, cards, own, pack_path)
        for name, file in pack_media.items():
            # Only an image in the pack's own folder goes into the package.
            if (image := linked_image(media_link(pack_path, file))) is not None:
                media[name] = image.path
        notes.extend(pack_notes)
        left_out.extend(pack_left_out)
    try:
        write_anki_package(output, notes, NOTE_TYPES, int(created.timestamp()), media)
    except OSError as exc:
        raise UserError(
            _("cannot write {output}: {strerror}").format(
                output=output, strerror=exc.strerror or exc
            )
        ) from None
    return ApkgResult(
        output=output,
        packs=len(packs),
        notes=len(notes),
        not_exported=left_out,
        scheduled=scheduled,
    )


@dataclass(frozen=True)
class DataResult:
    files: list[Path]
    cards: int
    schedules: int
    reviews: int
    notes: int = 0


def _csv_cell(value: Any) -> Any:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return " ".join(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return "" if value is None else value


def _table_bytes(rows: list[dict[str, Any]], columns: tuple[str, ...], fmt: str) -> bytes:
    if fmt == "json":
        return (json.dumps(rows, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows({key: _csv_cell(value) for key, value in row.items()} for row in rows)
    return buffer.getvalue().encode("utf-8")


def _missing_folders(directory: Path) -> list[Path]:
    """The folders of ``directory`` that do not exist yet, outermost first."""
    missing = [folder for folder in (directory, *directory.parents) if not folder.exists()]
    return missing[-1:]  # removing the outermost removes the rest


def export_data(db: str | None, profile: str, fmt: str, directory: Path) -> DataResult:
    """Everything the database holds about ``profile``, as files in ``directory``: cards,
    schedules, reviews (each with the schedule before it), notes, the profile's settings and
    its settings of each pack's own."""
    from kvdrill.app.services import pack_files
    from kvdrill.store.export_rows import (
        CARD_COLUMNS,
        NOTE_COLUMNS,
        PACK_SETTING_COLUMNS,
        PROFILE_COLUMNS,
        REVIEW_COLUMNS,
        SCHEDULE_COLUMNS,
        card_rows,
        note_rows,
        pack_setting_rows,
        profile_rows,
        review_rows,
        schedule_rows,
    )

    if directory.exists() and not directory.is_dir():
        raise UserError(
            _("{directory} is a file; export writes a directory of files").format(
                directory=directory
            )
        )
    database = _open(db)
    try:
        with database.session() as session:
            tables = {
                "cards": (card_rows(session), CARD_COLUMNS),
                "schedules": (schedule_rows(session, profile), SCHEDULE_COLUMNS),
                "reviews": (review_rows(session, profile), REVIEW_COLUMNS),
                "notes": (note_rows(session, profile), NOTE_COLUMNS),
                "profile": (profile_rows(session, profile), PROFILE_COLUMNS),
                "pack_settings": (pack_setting_rows(session, profile), PACK_SETTING_COLUMNS),
            }
    finally:
        database.close()
    contents = {
        directory / f"{name}.{fmt}": _table_bytes(rows, columns, fmt)
        for name, (rows, columns) in tables.items()
    }
    created = _missing_folders(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path, data in contents.items():
            pack_files.write_atomically(path, data)
    except OSError as exc:
        for folder in created:  # what this export made goes with it: no half-written folder
            shutil.rmtree(folder, ignore_errors=True)
        raise UserError(
            _("cannot write to {directory}: {strerror}").format(
                directory=directory, strerror=exc.strerror or exc
            )
        ) from None
    return DataResult(
        files=list(contents),
        cards=len(tables["cards"][0]),
        schedules=len(tables["schedules"][0]),
        reviews=len(tables["reviews"][0]),
        notes=len(tables["notes"][0]),
    )
