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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kvdrill.app.services import environment
from kvdrill.engine.errors import PackErrors, UserError
from kvdrill.engine.interop.notes import ConvertError, ForeignDeck

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
    source: Path, output: Path, *, pack_id: str | None = None, title: str | None = None
) -> ConvertResult:
    """Convert ``source`` into the pack file ``output``; ``UserError`` and nothing written on
    bad input."""
    from kvdrill.app.services.pack_files import write_atomically
    from kvdrill.engine.interop.pack_text import NothingToConvert, build_pack_text
    from kvdrill.engine.packs.headings import id_problem, slugify
    from kvdrill.engine.packs.parser import parse_pack_text

    pack_id = pack_id if pack_id is not None else slugify(output.stem)
    if problem := id_problem(pack_id, "pack id"):
        raise UserError(f"{problem} (choose one with --pack-id)")
    if output.exists() and output.resolve() == source.resolve():
        raise UserError(f"{output} is the file being converted; write the pack elsewhere")
    if not output.parent.is_dir():
        raise UserError(f"cannot write {output}: no directory {output.parent}")
    deck = read_foreign_deck(source)
    try:
        converted = build_pack_text(deck, pack_id, source_name=source.name, title=title)
    except NothingToConvert as exc:
        raise ConvertError(str(source), 1, str(exc)) from None
    try:
        pack = parse_pack_text(converted.text, str(output))
    except PackErrors as exc:
        raise UserError(
            f"the converted pack does not pass kvdrill check, so nothing was written: "
            f"{exc.problems[0]}"
        ) from None
    try:
        write_atomically(output, converted.text.encode("utf-8"))
    except OSError as exc:
        raise UserError(f"cannot write {output}: {exc.strerror or exc}") from None
    return ConvertResult(
        output=output,
        pack_id=pack_id,
        title=pack.meta.title,
        cards=converted.cards,
        skipped=converted.skipped,
        media_skipped=converted.media_skipped,
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


def export_apkg(db: str | None, output: Path, pack_keys: list[str]) -> ApkgResult:
    """Write the stored packs named (all, when none is) as an Anki package at ``output``."""
    from kvdrill.app.services.importing import import_bundled
    from kvdrill.engine.interop.anki_cards import NOTE_TYPES, anki_notes
    from kvdrill.store.anki_package import write_anki_package
    from kvdrill.store.export_rows import packs_for_export

    if not output.parent.is_dir():
        raise UserError(f"cannot write {output}: no directory {output.parent}")
    database = _open(db)
    try:
        # As a drill would: the bundled packs are there to export too.
        import_bundled(database, environment.now())
        with database.session() as session:
            packs = packs_for_export(session, pack_keys)
    finally:
        database.close()
    if not packs:
        raise UserError("no packs to export; run kvdrill import first")
    notes, left_out = [], []
    for meta, cards in packs:
        pack_notes, pack_left_out = anki_notes(meta, cards)
        notes.extend(pack_notes)
        left_out.extend(pack_left_out)
    try:
        write_anki_package(output, notes, NOTE_TYPES)
    except OSError as exc:
        raise UserError(f"cannot write {output}: {exc.strerror or exc}") from None
    return ApkgResult(output=output, packs=len(packs), notes=len(notes), not_exported=left_out)


@dataclass(frozen=True)
class DataResult:
    files: list[Path]
    cards: int
    schedules: int
    reviews: int


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


def export_data(db: str | None, profile: str, fmt: str, directory: Path) -> DataResult:
    """cards, schedules and reviews of ``profile`` as three files in ``directory``."""
    from kvdrill.app.services.pack_files import write_atomically
    from kvdrill.store.export_rows import (
        CARD_COLUMNS,
        REVIEW_COLUMNS,
        SCHEDULE_COLUMNS,
        card_rows,
        review_rows,
        schedule_rows,
    )

    if directory.exists() and not directory.is_dir():
        raise UserError(f"{directory} is a file; export writes a directory of files")
    database = _open(db)
    try:
        with database.session() as session:
            tables = {
                "cards": (card_rows(session), CARD_COLUMNS),
                "schedules": (schedule_rows(session, profile), SCHEDULE_COLUMNS),
                "reviews": (review_rows(session, profile), REVIEW_COLUMNS),
            }
    finally:
        database.close()
    contents = {
        directory / f"{name}.{fmt}": _table_bytes(rows, columns, fmt)
        for name, (rows, columns) in tables.items()
    }
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path, data in contents.items():
            write_atomically(path, data)
    except OSError as exc:
        raise UserError(f"cannot write to {directory}: {exc.strerror or exc}") from None
    return DataResult(
        files=list(contents),
        cards=len(tables["cards"][0]),
        schedules=len(tables["schedules"][0]),
        reviews=len(tables["reviews"][0]),
    )
