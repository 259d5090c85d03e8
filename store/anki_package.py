"""Anki packages (.apkg) on disk: reading one into a ``ForeignDeck``, writing one with genanki.

An .apkg is a zip. Inside is the collection, an SQLite database: ``collection.anki21b``
(zstandard-compressed, schema 18: note types in their own tables) in packages from current
Anki, ``collection.anki21`` or ``collection.anki2`` (schema 11: note types as JSON in ``col``)
in legacy ones. Current Anki also puts a stub ``collection.anki2`` next to the real
collection, so the newest name present wins. Media files are the zip members with numeric
names; they are counted, not carried over. The collection is unpacked into a temporary folder,
read with sqlite3 in read-only mode, and deleted.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import zipfile
import zlib
from collections import Counter
from pathlib import Path

import zstandard

from kvdrill.engine.interop.anki_cards import AnkiNote, AnkiNoteType
from kvdrill.engine.interop.notes import (
    ConvertError,
    ForeignDeck,
    ForeignField,
    ForeignNote,
    check_field_size,
)

# Newest first: current Anki writes a stub collection.anki2 beside the real one.
COLLECTION_NAMES = ("collection.anki21b", "collection.anki21", "collection.anki2")
# A collection bigger than this unpacked is refused: a zip bomb must not fill the disk.
MAX_COLLECTION_BYTES = 1024 * 1024 * 1024
_CHUNK = 1024 * 1024
_FIELD_SEPARATOR = "\x1f"


def _unpack(archive: zipfile.ZipFile, name: str, target: Path, path: str) -> None:
    """Copy the collection out of the zip, decompressing zstd, with a size cap."""
    written = 0
    with archive.open(name) as member, target.open("wb") as out:
        source = member
        if name.endswith("21b"):
            source = zstandard.ZstdDecompressor().stream_reader(member)
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > MAX_COLLECTION_BYTES:
                raise ConvertError(
                    path, 1, f"the collection inside is over {MAX_COLLECTION_BYTES >> 30} GiB"
                )
            out.write(chunk)


def read_anki_package(file: Path, title: str) -> ForeignDeck:
    """The notes of an .apkg. ``ConvertError`` when it is not one or is damaged."""
    path = str(file)
    folder = Path(tempfile.mkdtemp(prefix="kvdrill-apkg-"))
    try:
        try:
            with zipfile.ZipFile(file) as archive:
                names = set(archive.namelist())
                name = next((n for n in COLLECTION_NAMES if n in names), None)
                if name is None:
                    raise ConvertError(
                        path,
                        1,
                        "not an Anki package: the zip holds no collection.anki2 or "
                        "collection.anki21b",
                    )
                media = sum(1 for n in names if n.isdigit())
                collection = folder / "collection.sqlite"
                _unpack(archive, name, collection, path)
        except zipfile.BadZipFile as exc:
            raise ConvertError(path, 1, f"not an Anki package: not a zip file ({exc})") from None
        except (EOFError, zlib.error, zstandard.ZstdError, OSError, ValueError) as exc:
            raise ConvertError(path, 1, f"damaged Anki package: {_reason(exc)}") from None
        return _read_collection(collection, path, title, media)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _reason(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _read_collection(collection: Path, path: str, title: str, media: int) -> ForeignDeck:
    try:
        connection = sqlite3.connect(f"file:{collection}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise ConvertError(path, 1, f"damaged Anki collection: {_reason(exc)}") from None
    try:
        field_names = _field_names(connection)
        decks = _deck_names(connection)
        notes = []
        for note_id, guid, type_id, tags, fields in connection.execute(
            "SELECT id, guid, mid, tags, flds FROM notes ORDER BY id"
        ):
            texts = str(fields).split(_FIELD_SEPARATOR)
            for text in texts:
                check_field_size(text, path, 1)
            names = field_names.get(int(type_id), [])
            notes.append(
                ForeignNote(
                    fields=tuple(
                        ForeignField(names[i] if i < len(names) else None, text)
                        for i, text in enumerate(texts)
                    ),
                    tags=tuple(str(tags).split()),
                    html=True,
                    source_id=str(guid) if guid else str(note_id),
                )
            )
        used = Counter(
            deck for (deck,) in connection.execute("SELECT did FROM cards") if deck in decks
        )
    except sqlite3.Error as exc:
        raise ConvertError(path, 1, f"damaged Anki collection: {_reason(exc)}") from None
    finally:
        connection.close()
    if not notes:
        raise ConvertError(path, 1, "the Anki package holds no notes")
    deck_title = decks[next(iter(used))] if len(used) == 1 else title
    return ForeignDeck(notes=tuple(notes), title=deck_title, media_skipped=media)


def _has_table(connection: sqlite3.Connection, name: str) -> bool:
    found = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return found is not None


def _col_json(connection: sqlite3.Connection, column: str) -> dict:
    row = connection.execute(f"SELECT {column} FROM col").fetchone()  # noqa: S608 (a constant)
    try:
        value = json.loads(row[0]) if row and row[0] else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _field_names(connection: sqlite3.Connection) -> dict[int, list[str]]:
    """Note type id -> its field names in order."""
    names: dict[int, list[str]] = {}
    if _has_table(connection, "fields"):  # schema 18
        for type_id, _order, name in connection.execute(
            "SELECT ntid, ord, name FROM fields ORDER BY ntid, ord"
        ):
            names.setdefault(int(type_id), []).append(str(name))
        return names
    for type_id, model in _col_json(connection, "models").items():
        fields = model.get("flds", []) if isinstance(model, dict) else []
        ordered = sorted((f for f in fields if isinstance(f, dict)), key=lambda f: f.get("ord", 0))
        if str(type_id).lstrip("-").isdigit():
            names[int(type_id)] = [str(f.get("name", "")) for f in ordered]
    return names


def _deck_names(connection: sqlite3.Connection) -> dict[int, str]:
    if _has_table(connection, "decks"):  # schema 18: levels joined by \x1f
        return {
            int(deck_id): str(name).replace(_FIELD_SEPARATOR, "::")
            for deck_id, name in connection.execute("SELECT id, name FROM decks")
        }
    return {
        int(deck_id): str(deck.get("name", ""))
        for deck_id, deck in _col_json(connection, "decks").items()
        if isinstance(deck, dict) and str(deck_id).lstrip("-").isdigit()
    }


# --- writing --------------------------------------------------------------------------------


def write_anki_package(
    file: Path, notes: list[AnkiNote], note_types: tuple[AnkiNoteType, ...]
) -> None:
    """Write ``notes`` as an .apkg (one Anki deck per deck name), replacing ``file`` atomically."""
    import genanki

    models = {
        note_type.name: genanki.Model(
            note_type.model_id,
            note_type.name,
            fields=[{"name": name} for name in note_type.fields],
            templates=[
                {"name": "Card", "qfmt": note_type.front_template, "afmt": note_type.back_template}
            ],
            css=note_type.css,
        )
        for note_type in note_types
    }
    decks: dict[str, genanki.Deck] = {}
    for note in notes:
        deck = decks.get(note.deck)
        if deck is None:
            deck = decks[note.deck] = genanki.Deck(note.deck_id, note.deck)
        deck.add_note(
            genanki.Note(
                model=models[note.note_type],
                fields=list(note.fields),
                tags=list(note.tags),
                guid=note.guid,
            )
        )
    handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    os.close(handle)
    try:
        genanki.Package(list(decks.values())).write_to_file(temporary)
        os.replace(temporary, file)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
