"""The proof against the real client: Anki's own library (the ``anki`` package) opens what
``kvdrill export`` writes, and makes the packages and text exports ``kvdrill convert`` reads.

``anki`` is a test-only dependency (``pip install -e '.[anki-test]'``; .ci/run installs it).
Without it these tests are reported as skipped, with the reason, never passed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

anki_collection = pytest.importorskip(
    "anki.collection",
    reason="Anki's own library is not installed: pip install -e '.[anki-test]'",
)

from kvdrill.app.cli import main  # noqa: E402
from kvdrill.app.services.pack_files import parse_pack  # noqa: E402
from kvdrill.engine.interop.card_ids import card_id_for_guid  # noqa: E402

Collection = anki_collection.Collection
PACK = """---
pack: proof
title: Proof
version: 1
---

## KV bytes {#kv-bytes} #kv

### Prompt
How many bytes does one token of Llama 3.1 8B add to a BF16 KV cache?

### Answer
**128 KiB**: 2 × 32 layers × 8 KV heads × 128 × 2 B.

### Key numbers
- 128 KiB per token

### Tip
K and V: the factor 2.

## Pool doubling {#pool}

### Prompt
What doubles the tokens a KV pool holds?

### Choices
- [ ] Raise max_num_seqs
- [x] Keep the KV cache in FP8

### Explanation
FP8 halves the bytes per token.

## Any model {#gen}

### Problem
~~~problem
ask: kv_bytes_per_token
vary:
  model: gqa
unit: KiB
~~~
"""


def _new_collection(tmp_path: Path, name: str):
    (tmp_path / name).mkdir()
    return Collection(str(tmp_path / name / "collection.anki2"))


@pytest.fixture
def anki_col(tmp_path: Path):
    col = _new_collection(tmp_path, "anki")
    yield col
    col.close()


# --- kvdrill -> Anki ----------------------------------------------------------------------------


def test_anki_imports_the_exported_package_with_every_note_and_field(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    pack = tmp_path / "proof.md"
    pack.write_text(PACK, encoding="utf-8")
    assert main(["--db", db_url, "import", str(pack)]) == 0
    package = tmp_path / "proof.apkg"
    assert main(["--db", db_url, "export", "--format", "apkg", str(package)]) == 0

    col = _new_collection(tmp_path, "fresh")
    try:
        request = anki_collection.ImportAnkiPackageRequest(
            package_path=str(package), options=anki_collection.ImportAnkiPackageOptions()
        )
        log = col.import_anki_package(request).log
        assert len(log.new) == 7
        assert col.note_count() == 7  # recall + choice + five problem variants
        (recall_id,) = col.find_notes("Source:proof/kv-bytes")
        recall = col.get_note(recall_id)
        assert recall.note_type()["name"] == "kvdrill recall"
        assert "How many bytes does one token" in recall["Prompt"]
        assert recall["Answer"].startswith("<p><strong>128 KiB</strong>")
        assert "128 KiB per token" in recall["Key numbers"]
        assert recall.tags == ["kv"]
        (choice_id,) = col.find_notes("Source:proof/pool")
        choice = col.get_note(choice_id)
        assert choice["Correct"] == "B"
        assert "Keep the KV cache in FP8" in choice["Choices"]
        card = choice.cards()[0]
        assert "Raise max_num_seqs" in card.question()
        assert "FP8 halves the bytes per token." in card.answer()
        assert len(col.find_notes('"Source:proof/gen #*"')) == 5
        deck_names = {deck.name for deck in col.decks.all_names_and_ids()}
        assert "kvdrill::Proof" in deck_names

        # Exporting again and importing again updates the notes instead of adding copies.
        assert main(["--db", db_url, "export", "--format", "apkg", str(package)]) == 0
        col.import_anki_package(request)
        assert col.note_count() == 7
    finally:
        col.close()


# --- Anki -> kvdrill ----------------------------------------------------------------------------


def _add_notes(col) -> list:
    """Two basic notes and a cloze, in a deck of their own; one refers to a media file."""
    deck_id = col.decks.id("Inference::KV")
    basic = col.models.by_name("Basic")
    notes = []
    for front, back, tags in (
        ("What is a <b>KV cache</b>?", "Keys &amp; values kept<br>per token", ["kv", "mem::kv"]),
        ("Bytes per FP8 value?", '1 <img src="chart.png">', []),
    ):
        note = col.new_note(basic)
        note["Front"], note["Back"] = front, back
        note.tags = tags
        col.add_note(note, deck_id)
        notes.append(note)
    cloze = col.new_note(col.models.by_name("Cloze"))
    cloze["Text"] = "Llama 3.1 8B needs {{c1::128 KiB}} per token."
    cloze["Back Extra"] = "In BF16."
    col.add_note(cloze, deck_id)
    notes.append(cloze)
    col.media.write_data("chart.png", b"\x89PNG not really an image")
    return notes


def _export_package(col, path: Path, *, legacy: bool) -> Path:
    options = anki_collection.ExportAnkiPackageOptions(
        with_scheduling=False, with_deck_configs=False, with_media=True, legacy=legacy
    )
    deck_id = col.decks.id("Inference::KV")
    col.export_anki_package(
        out_path=str(path), options=options, limit=anki_collection.DeckIdLimit(deck_id)
    )
    return path


def _export_text(col, path: Path, *, html: bool, deck: bool, notetype: bool, guid: bool) -> Path:
    """The deck as Anki's "Notes in Plain Text" export, with tags and the chosen columns."""
    col.export_note_csv(
        out_path=str(path),
        limit=anki_collection.DeckIdLimit(col.decks.id("Inference::KV")),
        with_html=html,
        with_tags=True,
        with_deck=deck,
        with_notetype=notetype,
        with_guid=guid,
    )
    return path


def _convert(source: Path, output: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["convert", str(source), "-o", str(output), "--force"]) == 0
    out = capsys.readouterr().out
    assert main(["check", str(output)]) == 0
    return out


@pytest.mark.parametrize("legacy", [True, False], ids=["legacy-anki21", "current-anki21b"])
def test_a_package_made_by_anki_converts_to_a_pack(
    tmp_path: Path, anki_col, legacy: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = _add_notes(anki_col)
    package = _export_package(anki_col, tmp_path / "deck.apkg", legacy=legacy)
    output = tmp_path / "deck.md"
    out = _convert(package, output, capsys)
    assert f"3 cards (1 image copied to {tmp_path / 'deck.media'})" in out
    # The image comes along beside the pack, byte for byte, and the card references it.
    assert (tmp_path / "deck.media" / "chart.png").read_bytes() == b"\x89PNG not really an image"

    pack = parse_pack(output)
    assert pack.meta.title == "Inference::KV"
    cards = {card.key: card for card in pack.cards}
    assert list(cards) == [card_id_for_guid(note.guid) for note in notes]
    kv = cards[card_id_for_guid(notes[0].guid)]
    assert kv.prompt == "What is a **KV cache**?"
    assert kv.answer == "Keys \\& values kept\\\nper token"
    assert sorted(kv.tags) == ["kv", "mem.kv"]
    cloze = cards[card_id_for_guid(notes[2].guid)]
    assert cloze.prompt == "Llama 3.1 8B needs \\[...\\] per token."
    assert cloze.answer.startswith("Llama 3.1 8B needs **128 KiB** per token.")
    assert "In BF16." in cloze.answer
    assert cards[card_id_for_guid(notes[1].guid)].answer == "1 ![](deck.media/chart.png)"


def test_legacy_current_and_text_exports_of_one_deck_give_the_same_ids(
    tmp_path: Path, anki_col, capsys: pytest.CaptureFixture[str], db_url: str
) -> None:
    _add_notes(anki_col)
    legacy = _export_package(anki_col, tmp_path / "legacy.apkg", legacy=True)
    current = _export_package(anki_col, tmp_path / "current.apkg", legacy=False)
    text = tmp_path / "notes.txt"
    _export_text(anki_col, text, html=True, deck=True, notetype=True, guid=True)
    ids = []
    for source in (legacy, current, text):
        output = tmp_path / f"{source.stem}.md"
        _convert(source, output, capsys)
        ids.append([card.key for card in parse_pack(output).cards])
    assert ids[0] == ids[1] == ids[2]
    assert len(ids[0]) == 3


def test_a_newer_anki_export_updates_the_imported_cards(
    tmp_path: Path, anki_col, capsys: pytest.CaptureFixture[str], db_url: str
) -> None:
    notes = _add_notes(anki_col)
    output = tmp_path / "kv.md"
    _convert(_export_package(anki_col, tmp_path / "v1.apkg", legacy=False), output, capsys)
    assert main(["--db", db_url, "import", str(output)]) == 0
    capsys.readouterr()

    notes[1]["Back"] = "1 byte"
    anki_col.update_note(notes[1])
    _convert(_export_package(anki_col, tmp_path / "v2.apkg", legacy=False), output, capsys)
    capsys.readouterr()
    assert main(["--db", db_url, "import", str(output)]) == 0
    assert capsys.readouterr().out.strip() == "kv: 0 added, 1 changed, 0 retired, 2 unchanged"


def test_anki_plain_text_export_without_html_converts(
    tmp_path: Path, anki_col, capsys: pytest.CaptureFixture[str]
) -> None:
    _add_notes(anki_col)
    text = tmp_path / "plain.txt"
    _export_text(anki_col, text, html=False, deck=False, notetype=False, guid=False)
    output = tmp_path / "plain.md"
    said = _convert(text, output, capsys)
    cards = list(parse_pack(output).cards)
    assert [card.key for card in cards][:2] == ["what-is-a-kv-cache", "bytes-per-fp8-value"]
    assert cards[0].prompt == "What is a KV cache?"
    # The cloze note is a card too (it was left out as "empty front or back"), its gap hidden
    # (the raw {{c1::...}} gave the answer away).
    (cloze,) = cards[2:]
    assert cloze.prompt == "Llama 3.1 8B needs \\[...\\] per token."
    assert cloze.answer.startswith("Llama 3.1 8B needs **128 KiB** per token.")
    assert "In BF16." in cloze.answer
    assert not any("{{c" in card.prompt + card.answer for card in cards)
    assert "3 cards" in said and "left out" not in said
