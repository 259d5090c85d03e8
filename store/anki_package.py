"""Anki packages (.apkg) on disk: reading one into a ``ForeignDeck``, writing one with genanki.

An .apkg is a zip. Inside is the collection, an SQLite database: ``collection.anki21b``
(zstandard-compressed, schema 18: note types in their own tables) in packages from current
Anki, ``collection.anki21`` or ``collection.anki2`` (schema 11: note types as JSON in ``col``)
in legacy ones. Current Anki also puts a stub ``collection.anki2`` next to the real
collection, so the newest name present wins. Media files are the zip members with numeric
names, listed by the ``media`` member; ``copy_media`` copies those the cards show. The collection is unpacked into a temporary folder,
read with sqlite3 in read-only mode, and deleted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import tempfile
import zipfile
import zlib
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zstandard

from kvdrill.engine.interop.anki_cards import AnkiNote, AnkiNoteType
from kvdrill.engine.interop.notes import (
    AnkiCard,
    AnkiReview,
    ConvertError,
    ForeignDeck,
    ForeignField,
    ForeignNote,
    check_field_size,
    too_many_notes,
)
from kvdrill.engine.packs.model import MAX_CARDS_PER_PACK

# Newest first: current Anki writes a stub collection.anki2 beside the real one.
COLLECTION_NAMES = ("collection.anki21b", "collection.anki21", "collection.anki2")
# A collection bigger than this unpacked is refused: a zip bomb must not fill the disk.
MAX_COLLECTION_BYTES = 1024 * 1024 * 1024
_CHUNK = 1024 * 1024
_FIELD_SEPARATOR = "\x1f"


def _copy_out(
    archive: zipfile.ZipFile,
    name: str,
    target: Path,
    *,
    compressed: bool,
    room: int,
    too_big: tuple[str, str],
) -> int:
    """Copy the zip member ``name`` to ``target``, zstd-decompressed if ``compressed``; the
    bytes written. ``ConvertError`` (``too_big``: the package's path and why) once more than
    ``room`` bytes would be."""
    written = 0
    with archive.open(name) as member, target.open("wb") as out:
        source: Any = zstandard.ZstdDecompressor().stream_reader(member) if compressed else member
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > room:
                raise ConvertError(too_big[0], 1, too_big[1])
            out.write(chunk)
    return written


def _unpack(archive: zipfile.ZipFile, name: str, target: Path, path: str) -> None:
    """Copy the collection out of the zip, decompressing zstd, with a size cap."""
    too_big = f"the collection inside is over {MAX_COLLECTION_BYTES >> 30} GiB"
    _copy_out(
        archive,
        name,
        target,
        compressed=name.endswith("21b"),
        room=MAX_COLLECTION_BYTES,
        too_big=(path, too_big),
    )


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
                media = _media_members(archive, names)
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


# --- media ----------------------------------------------------------------------------------

# What a media file's name may be to be copied: one plain file name (no folder, no dot file).
_MEDIA_NAME_RE = re.compile(r"[^/\\\x00-\x1f\x7f]{1,200}")
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# The media files copied out of one package, in all: a zip bomb must not fill the disk.
MAX_MEDIA_BYTES = 1024 * 1024 * 1024
_MAX_MEDIA_LIST_BYTES = 64 * 1024 * 1024  # the list of names: far above 100,000 files


def _media_members(archive: zipfile.ZipFile, names: set[str]) -> dict[str, str]:
    """Media file name -> its zip member. The ``media`` member maps them: JSON in legacy
    packages (``{"0": "chart.png"}``), a zstd-compressed protobuf list in current ones (entry
    N is member N, unless the entry names another). A name that is no plain file name is left
    out: it could point outside the folder it is copied to."""
    if "media" not in names or archive.getinfo("media").file_size > _MAX_MEDIA_LIST_BYTES:
        return {}
    raw = archive.read("media")
    found: dict[str, str] = {}
    if raw.startswith(_ZSTD_MAGIC):
        reader = zstandard.ZstdDecompressor().stream_reader(raw)
        listing = reader.read(_MAX_MEDIA_LIST_BYTES)
        for index, (number, entry) in enumerate(_proto_items(listing)):
            if number != 1 or not isinstance(entry, bytes):
                continue
            fields = dict(_proto_items(entry))
            name, member = fields.get(1), fields.get(255, index)
            if isinstance(name, bytes) and isinstance(member, int):
                found[name.decode("utf-8", "replace")] = str(member)
    else:
        try:
            mapping = json.loads(raw)
        except (ValueError, RecursionError):
            mapping = {}
        if isinstance(mapping, dict):
            found = {str(name): str(member) for member, name in mapping.items()}
    return {
        name: member
        for name, member in found.items()
        if member in names and _MEDIA_NAME_RE.fullmatch(name) and not name.startswith(".")
    }


def copy_media(file: Path, wanted: Collection[str], folder: Path) -> int:
    """Copy the media files ``wanted`` (by name) out of the package ``file`` into ``folder``
    (made by the caller), decompressed; how many were copied. ``ConvertError`` on a damaged
    package or more than ``MAX_MEDIA_BYTES`` in all."""
    path = str(file)
    written = copied = 0
    try:
        with zipfile.ZipFile(file) as archive:
            members = _media_members(archive, set(archive.namelist()))
            for name in sorted(set(wanted) & set(members)):
                with archive.open(members[name]) as member:
                    compressed = member.read(len(_ZSTD_MAGIC)) == _ZSTD_MAGIC
                # Current packages compress each file; legacy ones do not.
                written += _copy_out(
                    archive,
                    members[name],
                    folder / name,
                    compressed=compressed,
                    room=MAX_MEDIA_BYTES - written,
                    too_big=(path, f"its media files are over {MAX_MEDIA_BYTES >> 30} GiB"),
                )
                copied += 1
    except (zipfile.BadZipFile, EOFError, zlib.error, zstandard.ZstdError, ValueError) as exc:
        raise ConvertError(path, 1, f"damaged Anki package: {_reason(exc)}") from None
    return copied


def _read_collection(collection: Path, path: str, title: str, media: dict[str, str]) -> ForeignDeck:
    try:
        connection = sqlite3.connect(f"file:{collection}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise ConvertError(path, 1, f"damaged Anki collection: {_reason(exc)}") from None
    # A hostile collection can make a read run forever (a recursive view named ``cards``):
    # every statement is cut off after a budget far above what a real collection needs.
    steps = [0]

    def budget() -> int:
        steps[0] += 1
        return 1 if steps[0] > _STEP_BUDGET else 0

    connection.set_progress_handler(budget, _STEPS_PER_CALL)
    try:
        return _read_tables(connection, path, title, media)
    except sqlite3.Error as exc:
        if steps[0] > _STEP_BUDGET:
            raise ConvertError(
                path, 1, "damaged Anki collection: reading it does not end"
            ) from None
        raise ConvertError(path, 1, f"damaged Anki collection: {_reason(exc)}") from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise ConvertError(path, 1, f"damaged Anki collection: {_reason(exc)}") from None
    finally:
        connection.close()


# Progress-handler calls (each after this many SQLite steps) before a read is cut off: about a
# minute of work, hundreds of times what a 100,000-card collection takes.
_STEPS_PER_CALL = 10_000
_STEP_BUDGET = 200_000


def _read_tables(
    connection: sqlite3.Connection, path: str, title: str, media: dict[str, str]
) -> ForeignDeck:
    for table in ("notes", "cards", "col"):
        kind = _object_type(connection, table)
        if kind != "table":
            what = f"is a {kind}, not a table" if kind else "is missing"
            raise ConvertError(path, 1, f"damaged Anki collection: its {table} table {what}")
    (count,) = connection.execute("SELECT COUNT(*) FROM notes").fetchone()
    if count > MAX_CARDS_PER_PACK:
        raise ConvertError(path, 1, too_many_notes(count))
    note_types = _note_types(connection)
    decks = _deck_names(connection)
    cards = _cards(connection, note_types)
    used: Counter[str] = Counter()
    notes = []
    rows = connection.execute("SELECT id, guid, mid, tags, flds FROM notes ORDER BY id")
    for note_id, guid, type_id, tags, fields in rows:
        texts = str(fields if fields is not None else "").split(_FIELD_SEPARATOR)
        for text in texts:
            check_field_size(text, path, 1)
        note_type = note_types.get(_int_or(type_id, _NO_ID))
        names = note_type.fields if note_type else []
        note_cards = cards.get(_int_or(note_id, _NO_ID), [])
        deck = decks.get(_int_or(note_cards[0][0], _NO_ID)) if note_cards else None
        if deck is not None:
            used[deck] += 1
        notes.append(
            ForeignNote(
                fields=tuple(
                    ForeignField(names[i] if i < len(names) else None, text)
                    for i, text in enumerate(texts)
                ),
                tags=tuple(str(tags or "").split()),
                html=True,
                source_id=str(guid) if guid else str(note_id),
                cards=tuple(card for _deck, card in note_cards),
                deck=deck,
            )
        )
    if not notes:
        raise ConvertError(path, 1, "the Anki package holds no notes")
    created, modified = _collection_times(connection)
    deck_title = next(iter(used)) if len(used) == 1 else title
    return ForeignDeck(
        notes=tuple(notes),
        title=deck_title,
        media=tuple(media),
        created=created,
        modified=modified,
    )


def _int(value: object) -> int | None:
    """A stored integer; None for NULL, text that is no integer, or a float."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 20:
        return int(value)
    return None


# Looked up where a stored id is missing or no integer: no row has it (Anki's ids are positive).
_NO_ID = -(1 << 63)


def _int_or(value: object, default: int) -> int:
    """A stored integer, or ``default`` where ``_int`` finds none."""
    found = _int(value)
    return default if found is None else found


def _object_type(connection: sqlite3.Connection, name: str) -> str | None:
    found = connection.execute(
        "SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE", (name,)
    ).fetchone()
    return str(found[0]) if found else None


def _has_table(connection: sqlite3.Connection, name: str) -> bool:
    return _object_type(connection, name) == "table"


def _col_json(connection: sqlite3.Connection, column: str) -> dict:
    row = connection.execute(f"SELECT {column} FROM col").fetchone()  # noqa: S608 (a constant)
    try:
        value = json.loads(row[0]) if row and isinstance(row[0], str | bytes) else {}
    except (TypeError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _collection_times(connection: sqlite3.Connection) -> tuple[int | None, int | None]:
    row = connection.execute("SELECT crt, mod FROM col").fetchone()
    if row is None:
        return None, None
    created, modified = _int(row[0]), _int(row[1])
    if modified is not None and modified > 10**11:  # milliseconds since schema 11
        modified //= 1000
    return created, modified


@dataclass(frozen=True)
class _NoteType:
    fields: list[str]
    cloze: bool
    fronts: dict[int, tuple[str, ...]]  # template ord -> the fields its question shows


_TEMPLATE_FIELD_RE = re.compile(r"\{\{([^#/^!{}][^{}]*)\}\}")


def _front_fields(question: str) -> tuple[str, ...]:
    """The fields a question template shows, in order (``{{type:Back}}`` is ``Back``)."""
    names = (
        match.strip().rsplit(":", 1)[-1].strip() for match in _TEMPLATE_FIELD_RE.findall(question)
    )
    return tuple(dict.fromkeys(name for name in names if name and name != "FrontSide"))


def _dicts(value: object) -> list[dict[str, Any]]:
    """The objects in a JSON list (nothing, when it is no list)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _ordered(entries: list[tuple[object, Any]]) -> list[Any]:
    """Values in the order of their integer ``ord``; an ord that is no integer goes last."""
    indexed = [(_int(order), index, value) for index, (order, value) in enumerate(entries)]
    return [
        value for _o, _i, value in sorted(indexed, key=lambda e: (e[0] is None, e[0] or 0, e[1]))
    ]


def _note_types(connection: sqlite3.Connection) -> dict[int, _NoteType]:
    """Note type id -> its fields, whether it is a cloze type, and its templates' questions."""
    types: dict[int, _NoteType] = {}
    if _has_table(connection, "fields"):  # schema 18
        fields: dict[int, list[tuple[object, object]]] = {}
        for type_id, order, name in connection.execute("SELECT ntid, ord, name FROM fields"):
            if (key := _int(type_id)) is not None:
                fields.setdefault(key, []).append((order, str(name)))
        kinds: dict[int, bool] = {}
        if _has_table(connection, "notetypes"):
            for type_id, config in connection.execute("SELECT id, config FROM notetypes"):
                kinds[_int_or(type_id, _NO_ID)] = _proto_varint(config, 1) == 1
        fronts: dict[int, dict[int, tuple[str, ...]]] = {}
        if _has_table(connection, "templates"):
            for type_id, order, config in connection.execute(
                "SELECT ntid, ord, config FROM templates"
            ):
                question = _proto_text(config, 1)
                type_key, template = _int(type_id), _int(order)
                if type_key is not None and template is not None and question:
                    fronts.setdefault(type_key, {})[template] = _front_fields(question)
        for key, entries in fields.items():
            types[key] = _NoteType(
                [str(name) for name in _ordered(entries)],
                kinds.get(key, False),
                fronts.get(key, {}),
            )
        return types
    for type_id, model in _col_json(connection, "models").items():
        key = _int(type_id)
        if key is None or not isinstance(model, dict):
            continue
        listed = _dicts(model.get("flds"))
        names = [str(f.get("name", "")) for f in _ordered([(f.get("ord"), f) for f in listed])]
        questions = {
            template: _front_fields(str(t.get("qfmt") or ""))
            for t in _dicts(model.get("tmpls"))
            if (template := _int(t.get("ord"))) is not None
        }
        types[key] = _NoteType(names, model.get("type") == 1, questions)
    return types


def _proto_fields(data: object) -> dict[int, object]:
    """The top-level fields of a protobuf message: number -> int (varint) or bytes (length-
    delimited), the first of each; enough to read a template's question and a note type's
    kind from schema 18."""
    found: dict[int, object] = {}
    for number, value in _proto_items(data):
        found.setdefault(number, value)
    return found


def _proto_items(data: object) -> list[tuple[int, object]]:
    """Every top-level field of a protobuf message in order, repeated ones each time:
    (number, int for a varint or bytes for a length-delimited field)."""
    found: list[tuple[int, object]] = []
    if not isinstance(data, bytes):
        return found
    position = 0

    def varint() -> int:
        nonlocal position
        value = shift = 0
        while position < len(data) and shift < 64:
            byte = data[position]
            position += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value
        raise ValueError("a truncated protobuf varint")

    try:
        while position < len(data):
            key = varint()
            number, wire = key >> 3, key & 7
            if wire == 0:
                found.append((number, varint()))
            elif wire == 2:
                size = varint()
                found.append((number, data[position : position + size]))
                position += size
            elif wire in (1, 5):
                position += 8 if wire == 1 else 4
            else:
                break
    except ValueError:
        pass
    return found


def _proto_varint(data: object, number: int) -> int | None:
    value = _proto_fields(data).get(number)
    return value if isinstance(value, int) else None


def _proto_text(data: object, number: int) -> str:
    value = _proto_fields(data).get(number)
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else ""


def _memory(data: object) -> tuple[float | None, float | None]:
    """FSRS stability and difficulty from a card's ``data`` JSON, when the collection used FSRS."""
    try:
        value = json.loads(data) if isinstance(data, str) and data else {}
    except (ValueError, RecursionError):
        return None, None
    if not isinstance(value, dict):
        return None, None
    stability, difficulty = value.get("s"), value.get("d")
    if isinstance(stability, int | float) and isinstance(difficulty, int | float):
        return float(stability), float(difficulty)
    return None, None


def _reviews(connection: sqlite3.Connection) -> dict[int, list[AnkiReview]]:
    reviews: dict[int, list[AnkiReview]] = {}
    if not _has_table(connection, "revlog"):
        return reviews
    rows = connection.execute(
        "SELECT id, cid, ease, ivl, factor, time, type FROM revlog ORDER BY id"
    )
    for row in rows:
        review_id, card_id = _int(row[0]), _int(row[1])
        if review_id is None or card_id is None:
            continue
        reviews.setdefault(card_id, []).append(
            AnkiReview(
                id=review_id,
                ease=_int_or(row[2], 0),
                interval=_int_or(row[3], 0),
                factor=_int_or(row[4], 0),
                taken_ms=_int_or(row[5], 0),
                kind=_int_or(row[6], 0),
            )
        )
    return reviews


def _cards(
    connection: sqlite3.Connection, note_types: dict[int, _NoteType]
) -> dict[int, list[tuple[int | None, AnkiCard]]]:
    """Note id -> (deck id, card) for each of its cards, in template order."""
    reviews = _reviews(connection)
    types_of_notes = {
        _int(note_id): note_types.get(_int_or(type_id, _NO_ID))
        for note_id, type_id in connection.execute("SELECT id, mid FROM notes")
    }
    cards: dict[int, list[tuple[int | None, AnkiCard]]] = {}
    rows = connection.execute(
        "SELECT id, nid, did, ord, type, queue, due, ivl, factor, lapses, odue, odid, data "
        "FROM cards ORDER BY nid, ord"
    )
    for row in rows:
        card_id, note_id, order = _int(row[0]), _int(row[1]), _int(row[3])
        if note_id is None or order is None:
            continue
        in_filtered = bool(_int_or(row[11], 0))
        note_type = types_of_notes.get(note_id)
        stability, difficulty = _memory(row[12])
        card = AnkiCard(
            ord=order,
            type=_int_or(row[4], 0),
            queue=_int_or(row[5], 0),
            due=_int_or(row[10] if in_filtered else row[6], 0),
            interval=_int_or(row[7], 0),
            factor=_int_or(row[8], 0),
            lapses=_int_or(row[9], 0),
            stability=stability,
            difficulty=difficulty,
            reviews=tuple(reviews.get(card_id, ())) if card_id is not None else (),
            front_fields=note_type.fronts.get(order) if note_type and not note_type.cloze else None,
        )
        deck = _int(row[11]) if in_filtered else _int(row[2])
        cards.setdefault(note_id, []).append((deck, card))
    return cards


def _deck_names(connection: sqlite3.Connection) -> dict[int, str]:
    if _has_table(connection, "decks"):  # schema 18: levels joined by \x1f
        return {
            key: str(name).replace(_FIELD_SEPARATOR, "::")
            for deck_id, name in connection.execute("SELECT id, name FROM decks")
            if (key := _int(deck_id)) is not None
        }
    return {
        key: str(deck.get("name", ""))
        for deck_id, deck in _col_json(connection, "decks").items()
        if isinstance(deck, dict) and (key := _int(deck_id)) is not None
    }


# --- writing --------------------------------------------------------------------------------


def write_anki_package(
    file: Path,
    notes: list[AnkiNote],
    note_types: tuple[AnkiNoteType, ...],
    created: int | None = None,
    media: Mapping[str, Path] | None = None,
) -> None:
    """Write ``notes`` as an .apkg (one Anki deck per deck name), replacing ``file`` atomically.

    genanki writes the notes and new cards of a schema-11 collection; a note's ``scheduling``
    then turns its card into a review card (type and queue, due, interval, factor, repetitions,
    lapses; its FSRS memory state in ``data`` as Anki keeps it) and adds its answers to
    ``revlog``, in the columns Anki documents for schema 11.
    ``created`` (epoch seconds) is the collection's creation, day 0 of review dues; ``media``:
    the files the notes show, by the name they use (copied under it: genanki names a media
    file by its file name)."""
    import genanki

    class ScheduledPackage(genanki.Package):
        def write_to_db(self, cursor: sqlite3.Cursor, timestamp: float, id_gen: Any) -> None:
            super().write_to_db(cursor, timestamp, id_gen)
            _write_scheduling(cursor, notes, created)

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
    staged = Path(tempfile.mkdtemp(prefix="kvdrill-apkg-media-"))
    try:
        files = []
        for name, source in (media or {}).items():
            shutil.copyfile(source, staged / name)
            files.append(str(staged / name))
        ScheduledPackage(list(decks.values()), media_files=files).write_to_file(temporary)
        os.replace(temporary, file)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        shutil.rmtree(staged, ignore_errors=True)


_REVIEW_CARD_SQL = (
    "UPDATE cards SET type = 2, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, lapses = ?, "
    "data = ? WHERE ord = 0 AND nid = (SELECT id FROM notes WHERE guid = ?)"
)
_REVLOG_SQL = (
    "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
    "SELECT ?, id, -1, ?, ?, ?, ?, ?, ? FROM cards "
    "WHERE ord = 0 AND nid = (SELECT id FROM notes WHERE guid = ?)"
)


def _write_scheduling(cursor: sqlite3.Cursor, notes: list[AnkiNote], created: int | None) -> None:
    scheduled = [(note, note.scheduling) for note in notes if note.scheduling is not None]
    if not scheduled:
        return
    if created is not None:
        cursor.execute("UPDATE col SET crt = ?", (created,))
    used: set[int] = set()
    for note, plan in scheduled:
        cursor.execute(
            _REVIEW_CARD_SQL,
            (
                plan.queue,
                plan.due,
                plan.interval,
                plan.factor,
                plan.reps,
                plan.lapses,
                json.dumps(plan.memory) if plan.memory else "",
                note.guid,
            ),
        )
        for answer in plan.answers:
            moment = answer.id
            while moment in used:  # revlog ids are unique across the collection
                moment += 1
            used.add(moment)
            cursor.execute(
                _REVLOG_SQL,
                (
                    moment,
                    answer.ease,
                    answer.interval,
                    answer.last_interval,
                    answer.factor,
                    answer.taken_ms,
                    answer.kind,
                    note.guid,
                ),
            )
