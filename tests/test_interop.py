"""``kvdrill convert`` and ``kvdrill export``: foreign cards in, packs and study data out.

The files here are written by hand in the formats Anki documents, for the cases a real client
does not produce (damaged, hostile, ambiguous files); tests/test_interop_anki.py checks the
same paths against files made by Anki's own library.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import zipfile
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from kvdrill.app.cli import main
from kvdrill.app.services.pack_files import parse_pack
from kvdrill.engine.interop.card_ids import card_id_for_guid
from kvdrill.engine.interop.notes import ForeignDeck, ForeignField, ForeignNote
from kvdrill.engine.interop.pack_text import build_pack_text, pack_tag
from kvdrill.engine.packs.parser import parse_pack_text
from kvdrill.store.db import open_database
from kvdrill.store.export_rows import card_rows

ANKI_TEXT = (
    "#separator:tab\n"
    "#html:true\n"
    "#guid column:1\n"
    "#tags column:4\n"
    "g1\tWhat is <b>KV</b> cache?\tKeys &amp; values<br>per token\tkv-cache memory::kv\n"
    "g2\tWhat is <i>paged</i> attention?\t<ul><li>blocks</li><li>of tokens</li></ul>\tvllm\n"
)


def convert(source: Path, output: Path, *extra: str) -> int:
    return main(["convert", str(source), "-o", str(output), *extra])


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="")
    return path


def cards_of(path: Path) -> dict[str, object]:
    return {card.key: card for card in parse_pack(path).cards}


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# --- Anki text export and CSV -----------------------------------------------------------------


def test_an_anki_text_export_becomes_a_pack_that_check_and_import_accept(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "deck.txt", ANKI_TEXT)
    output = tmp_path / "kv.md"
    assert convert(source, output) == 0
    assert "2 cards" in capsys.readouterr().out

    cards = cards_of(output)
    first = cards[card_id_for_guid("g1")]
    assert first.prompt == "What is **KV** cache?"
    assert first.answer == "Keys \\& values\\\nper token"
    assert sorted(first.tags) == ["kv-cache", "memory.kv"]
    assert cards[card_id_for_guid("g2")].answer == "- blocks\n- of tokens"
    assert main(["check", str(output)]) == 0
    assert main(["--db", db_url, "import", str(output)]) == 0


def test_converting_a_newer_export_updates_the_same_cards(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "kv.md"
    assert convert(write(tmp_path / "v1.txt", ANKI_TEXT), output) == 0
    assert main(["--db", db_url, "import", str(output)]) == 0
    edited = ANKI_TEXT.replace("Keys &amp; values", "Key and value vectors")
    before = output.read_bytes()
    # An existing pack is never replaced without being asked to.
    assert convert(write(tmp_path / "v2.txt", edited), output) == 1
    assert "exists; converting would replace it. Give --force" in one_line_error(capsys)
    assert output.read_bytes() == before
    assert convert(tmp_path / "v2.txt", output, "--force") == 0
    capsys.readouterr()
    assert main(["--db", db_url, "import", str(output)]) == 0
    assert "1 changed" in capsys.readouterr().out

    database = open_database(db_url)
    with database.session() as session:
        rows = [row for row in card_rows(session) if row["pack"] == "kv"]
    database.close()
    assert len(rows) == 2
    assert {row["card"] for row in rows} == {card_id_for_guid("g1"), card_id_for_guid("g2")}
    assert any("Key and value vectors" in row["answer"] for row in rows)


def test_a_folder_holding_both_conversions_of_a_deck_is_refused_not_doubled(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # kvdrill import decks/ after a newer export was converted to decks/b.md beside a.md: the
    # unchanged a.md is checked with b.md, and the import says which to keep.
    decks = tmp_path / "decks"
    decks.mkdir()
    assert convert(write(tmp_path / "v1.txt", ANKI_TEXT), decks / "a.md") == 0
    assert main(["--db", db_url, "import", str(decks)]) == 0
    newer = ANKI_TEXT + "g3\tWhat is prefill?\tthe prompt's pass\t\n"
    assert convert(write(tmp_path / "v2.txt", newer), decks / "b.md") == 0
    capsys.readouterr()
    assert main(["--db", db_url, "import", str(decks)]) == 1
    err = capsys.readouterr().err
    assert f"{decks / 'b.md'}:1: the same Anki deck as {decks / 'a.md'} (pack 'a'), which " in err
    (decks / "a.md").unlink()
    assert main(["--db", db_url, "import", str(decks)]) == 0
    out = capsys.readouterr().out
    assert "b: 1 added, 0 changed, 0 retired, 2 unchanged" in out and "(pack a)" in out


class Terminal(io.StringIO):
    """Lines typed on a terminal: convert asks before it replaces a pack."""

    def isatty(self) -> bool:
        return True


def test_in_a_terminal_convert_asks_before_replacing_a_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    output = tmp_path / "kv.md"
    assert convert(write(tmp_path / "v1.txt", ANKI_TEXT), output) == 0
    before = output.read_bytes()
    edited = write(tmp_path / "v2.txt", ANKI_TEXT.replace("Keys &amp; values", "Key vectors"))
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", Terminal("\n"))  # Enter: no
    assert convert(edited, output) == 1
    out = capsys.readouterr().out
    assert f"{output} exists: replace it, with its Anki history and images? [y/N]" in out
    assert "Not replaced: nothing written." in out and output.read_bytes() == before
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    assert convert(edited, output) == 0
    assert "Key vectors" in output.read_text(encoding="utf-8")


def test_a_plain_csv_with_a_header_row_quotes_and_tags(tmp_path: Path) -> None:
    source = write(
        tmp_path / "cards.csv",
        'front,back,tags\n"Bytes per BF16 value?",2,dtype\n'
        '"Two lines\nof front","A, with comma",\n',
    )
    output = tmp_path / "plain.md"
    assert convert(source, output) == 0
    cards = list(parse_pack(output).cards)
    assert [card.key for card in cards] == ["bytes-per-bf16-value", "two-lines-of-front"]
    assert cards[0].answer == "2" and cards[0].tags == ["dtype"]
    assert cards[1].prompt == "Two lines\\\nof front"
    assert cards[1].answer == "A, with comma"
    # Same file, same ids: a second conversion gives the same pack byte for byte.
    first = output.read_bytes()
    assert convert(source, output, "--force") == 0
    assert output.read_bytes() == first


def test_a_spreadsheet_csv_with_bom_crlf_and_semicolons(tmp_path: Path) -> None:
    source = tmp_path / "excel.csv"
    source.write_bytes(
        "\ufeffFront;Back\r\nHBM of an H100?;80 GB\r\nTP=2 halves?;weights per GPU\r\n".encode()
    )
    output = tmp_path / "excel.md"
    assert convert(source, output) == 0
    cards = list(parse_pack(output).cards)
    assert [(card.prompt, card.answer) for card in cards] == [
        ("HBM of an H100?", "80 GB"),
        ("TP\\=2 halves?", "weights per GPU"),
    ]


@pytest.mark.parametrize("html", ["true", "false"])
def test_a_cloze_note_makes_one_card_per_cloze_number(tmp_path: Path, html: str) -> None:
    # As in Anki: card N hides gap N (its hint shown) and shows the other gaps' text.
    source = write(
        tmp_path / "cloze.txt",
        f"#separator:tab\n#html:{html}\n#guid column:1\n"
        "g1\tA token of Llama 3.1 8B takes {{c1::128 KiB}} of {{c2::KV cache::memory}}.\t\n",
    )
    output = tmp_path / "cloze.md"
    assert convert(source, output) == 0
    first, second = parse_pack(output).cards
    assert first.key == card_id_for_guid("g1") and second.key == card_id_for_guid("g1") + "-2"
    assert first.prompt == "A token of Llama 3.1 8B takes \\[...\\] of KV cache."
    assert first.answer == "A token of Llama 3.1 8B takes **128 KiB** of KV cache."
    assert second.prompt == "A token of Llama 3.1 8B takes 128 KiB of \\[memory\\]."
    assert second.answer == "A token of Llama 3.1 8B takes 128 KiB of **KV cache**."


def test_markdown_in_plain_text_fields_cannot_make_cards_or_swallow_the_pack(
    tmp_path: Path,
) -> None:
    nasty = "## Not a card {#x}\n```\n<!-- open\n---\n~~~problem\nask: x"
    source = write(
        tmp_path / "nasty.csv",
        f'"{nasty}","[bold red]back[/] {{#y}}"\n"second","card"\n',
    )
    output = tmp_path / "nasty.md"
    assert convert(source, output) == 0
    cards = list(parse_pack(output).cards)
    assert len(cards) == 2 and all(card.kind == "recall" for card in cards)
    assert "\\## Not a card" in cards[0].prompt
    assert cards[0].answer == "\\[bold red\\]back\\[/\\] {#y}"


@pytest.mark.parametrize(
    ("html_flag", "field"),
    [
        ("true", "<script>alert('x')</script><b>ok</b><style>b{}</style>"),
        ("false", "<script>alert('x')</script><b>ok</b>"),
        ("true", "&lt;script&gt;alert('x')&lt;/script&gt;<img src=x onerror=alert(1)>ok"),
    ],
)
def test_html_with_scripts_comes_out_as_inert_text(
    tmp_path: Path, html_flag: str, field: str
) -> None:
    source = write(tmp_path / "s.txt", f"#separator:tab\n#html:{html_flag}\n{field}\tback\n")
    output = tmp_path / "s.md"
    assert convert(source, output) == 0
    (card,) = parse_pack(output).cards
    # Even a renderer that passes raw HTML through finds no tag to run.
    rendered = MarkdownIt("commonmark", {"html": True}).render(card.prompt)
    assert "<script" not in rendered and "<img" not in rendered and "<style" not in rendered
    assert "ok" in card.prompt


def test_a_hostile_deck_title_is_written_as_one_plain_line(tmp_path: Path) -> None:
    deck = ForeignDeck(
        notes=(
            ForeignNote(
                fields=(ForeignField(None, "q"), ForeignField(None, "a")), tags=(), html=False
            ),
        ),
        title='Evil\x1b[2J "deck"\u2028---\nlessons: [1]',
    )
    converted = build_pack_text(deck, "evil", source_name="x\x07.apkg")
    pack = parse_pack_text(converted.text, "evil.md")
    assert pack.meta.title == 'Evil[2J "deck" --- lessons: [1]'
    assert (
        pack.meta.lessons == []
        and pack.meta.description == "Converted from x.apkg by kvdrill convert."
    )


def test_more_notes_than_a_pack_holds_is_one_line(tmp_path, capsys) -> None:
    # The refusal comes before the rest of the file is read: the bad row at the end of a
    # 200,000-row file is never reached.
    rows = "".join(f"front {n},back {n}\n" for n in range(200_000)) + "a,b,c,d,e\n"
    source = write(tmp_path / "many.csv", rows)
    output = tmp_path / "many.md"
    assert convert(source, output) == 1
    line = one_line_error(capsys)
    assert "many.csv:2001: more than 2,000 notes; a pack holds at most 2,000" in line
    assert not output.exists()


def test_tags_become_pack_tags() -> None:
    assert pack_tag("Memory::KV") == "memory.kv"
    assert pack_tag("odd tag/with*stuff") == "odd-tag-with-stuff"
    assert pack_tag("::") is None


# --- bad input: one line, nothing written ---------------------------------------------------


def refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: Path, *expected: str
) -> str:
    output = tmp_path / "out.md"
    assert convert(source, output) == 1
    line = one_line_error(capsys)
    for text in expected:
        assert text in line, line
    assert not output.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.md")] == []
    return line


def test_an_empty_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, tmp_path, write(tmp_path / "empty.csv", "\n  \n"), "empty.csv:1:", "empty")


def test_a_file_of_headers_only_is_refused(tmp_path, capsys) -> None:
    source = write(tmp_path / "h.txt", "#separator:tab\n#html:false\n")
    refused(capsys, tmp_path, source, "h.txt:3:", "no notes")


def test_the_wrong_separator_names_the_line_and_the_separator(tmp_path, capsys) -> None:
    source = write(tmp_path / "w.txt", "#separator:tab\n#html:false\nfront,back\n")
    refused(capsys, tmp_path, source, "w.txt:3:", "front and a back", "tab")


def test_an_unknown_separator_is_refused(tmp_path, capsys) -> None:
    source = write(tmp_path / "u.txt", "#separator:double-comma\nx\ty\n")
    refused(capsys, tmp_path, source, "u.txt:1:", "unknown separator")


def test_a_csv_with_too_many_columns_is_refused(tmp_path, capsys) -> None:
    source = write(tmp_path / "wide.csv", "a,b,t\nc,d,e,f\n")
    refused(capsys, tmp_path, source, "wide.csv:2:", "4 columns")


def test_a_huge_field_is_refused(tmp_path, capsys) -> None:
    source = write(tmp_path / "big.csv", "front," + "x" * 100_000 + "\n")
    refused(capsys, tmp_path, source, "big.csv:1:", "100,000 characters")
    bigger = write(tmp_path / "bigger.csv", 'front,"' + "y" * 300_000 + '"\n')
    refused(capsys, tmp_path, bigger, "bigger.csv:1:", "characters")


def test_an_unclosed_quote_is_refused(tmp_path, capsys) -> None:
    source = write(tmp_path / "q.txt", '#separator:tab\n#html:false\n"open\tback\n')
    refused(capsys, tmp_path, source, "q.txt:")


def test_a_binary_file_is_refused(tmp_path, capsys) -> None:
    source = tmp_path / "blob.csv"
    source.write_bytes(b"front,back\n\x00\x01\x02")
    refused(capsys, tmp_path, source, "blob.csv:2:", "binary")


def test_notes_with_an_empty_side_are_left_out_and_counted(tmp_path, capsys) -> None:
    source = write(tmp_path / "gaps.csv", "a,b\nc,\n,d\ne,f\n")
    output = tmp_path / "gaps.md"
    assert convert(source, output) == 0
    assert "2 notes with an empty front or back left out" in capsys.readouterr().out
    assert len(parse_pack(output).cards) == 2
    only_gaps = write(tmp_path / "only.csv", "a,\n,b\n")
    refused(capsys, tmp_path, only_gaps, "only.csv:1:", "no note has both")


def test_a_zip_that_is_not_an_anki_package_is_refused(tmp_path, capsys) -> None:
    source = tmp_path / "photos.apkg"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr("holiday.jpg", b"\xff\xd8 not really")
    refused(capsys, tmp_path, source, "photos.apkg:1:", "not an Anki package")


def test_a_file_named_apkg_that_is_not_a_zip_is_refused(tmp_path, capsys) -> None:
    source = write(tmp_path / "fake.apkg", "front,back\n")
    refused(capsys, tmp_path, source, "fake.apkg:1:", "not a zip file")


def test_a_truncated_package_is_refused(tmp_path, capsys, exported_apkg: Path) -> None:
    data = exported_apkg.read_bytes()
    source = tmp_path / "cut.apkg"
    source.write_bytes(data[: len(data) // 2])
    refused(capsys, tmp_path, source, "cut.apkg:1:")


def test_a_package_with_a_corrupt_collection_is_refused(tmp_path, capsys) -> None:
    source = tmp_path / "junk.apkg"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr("collection.anki21b", b"not zstd at all")
    refused(capsys, tmp_path, source, "junk.apkg:1:", "damaged")
    plain = tmp_path / "junk2.apkg"
    with zipfile.ZipFile(plain, "w") as archive:
        archive.writestr("collection.anki2", b"not sqlite either" * 100)
    refused(capsys, tmp_path, plain, "junk2.apkg:1:", "damaged")


def test_a_missing_file_and_a_bad_pack_id_are_one_line(tmp_path, capsys) -> None:
    refused(capsys, tmp_path, tmp_path / "nope.csv", "no such file")
    source = write(tmp_path / "ok.csv", "a,b\n")
    assert main(["convert", str(source), "-o", str(tmp_path / "x.md"), "--pack-id", "Bad Id"]) == 1
    assert "pack id" in one_line_error(capsys)


def test_converting_a_file_onto_itself_is_refused(tmp_path, capsys) -> None:
    source = write(tmp_path / "self.md", "a,b\n")
    assert convert(source, source) == 1
    assert "being converted" in one_line_error(capsys)
    assert source.read_text(encoding="utf-8") == "a,b\n"


# --- export -----------------------------------------------------------------------------------

PACK = """---
pack: export-me
title: Export me
version: 1
tags: [kv]
---

## KV bytes {#kv-bytes}

### Prompt
How many bytes per token?

### Answer
**128 KiB** for Llama 3.1 8B.

### Key numbers
- 128 KiB per token

### Tip
Count K and V.

## Pool doubling {#pool}

### Prompt
What doubles the pool?

### Choices
- [ ] More layers
- [x] FP8 KV cache

### Explanation
Half the bytes per token.

## Any model {#gen}

### Problem
~~~problem
ask: kv_bytes_per_token
vary:
  model: gqa
prompt: |
  {model} keeps its KV cache in BF16. How many bytes does one token add?
unit: KiB
~~~
"""


@pytest.fixture
def stored_pack(tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    # Export is about the packs given here; the bundled decks would only add notes.
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    pack = write(tmp_path / "export-me.md", PACK)
    assert main(["--db", db_url, "import", str(pack)]) == 0
    return db_url


@pytest.fixture
def exported_apkg(tmp_path: Path, stored_pack: str) -> Path:
    target = tmp_path / "export.apkg"
    assert main(["--db", stored_pack, "export", "--format", "apkg", str(target)]) == 0
    return target


def test_export_apkg_writes_recall_choice_and_five_problem_variants(
    exported_apkg: Path, tmp_path: Path
) -> None:
    # Converting our own package back gives every note as a card: genanki's output is a
    # package our reader (and, in test_interop_anki.py, Anki) opens.
    back = tmp_path / "back.md"
    assert convert(exported_apkg, back) == 0
    cards = list(parse_pack(back).cards)
    assert len(cards) == 7
    assert parse_pack(back).meta.title == "kvdrill::Export me"
    recall = next(card for card in cards if card.prompt == "How many bytes per token?")
    assert "**128 KiB** for Llama 3.1 8B." in recall.answer
    assert "128 KiB per token" in recall.answer and "Count K and V." in recall.answer
    choice = next(card for card in cards if card.prompt.startswith("What doubles"))
    assert "**B.** FP8 KV cache" in choice.answer or "FP8 KV cache" in choice.prompt
    variants = [card for card in cards if "How many bytes does one token add?" in card.prompt]
    assert len(variants) == 5
    assert len({card.prompt for card in variants}) > 1  # different seeds, different models


def test_export_apkg_is_the_same_on_a_second_run(stored_pack: str, tmp_path: Path) -> None:
    first, second = tmp_path / "1.apkg", tmp_path / "2.apkg"
    for target in (first, second):
        assert main(["--db", stored_pack, "export", "--format", "apkg", str(target)]) == 0
    back = [tmp_path / "1.md", tmp_path / "2.md"]
    for source, output in zip((first, second), back, strict=True):
        assert convert(source, output, "--pack-id", "again") == 0
    # Same guids (hence ids) and the same text: re-importing into Anki updates in place.
    assert back[0].read_text(encoding="utf-8").replace("1.apkg", "2.apkg") == back[1].read_text(
        encoding="utf-8"
    )


def test_export_of_an_unknown_pack_is_one_line(stored_pack: str, tmp_path, capsys) -> None:
    target = tmp_path / "x.apkg"
    assert (
        main(["--db", stored_pack, "export", "--format", "apkg", str(target), "--pack", "no"]) == 1
    )
    assert "no pack 'no'" in one_line_error(capsys)
    assert not target.exists()


def add_note(db_url: str, card_key: str, text: str) -> None:
    from datetime import datetime

    from sqlalchemy import select

    from kvdrill.store.db import session_sql
    from kvdrill.store.models import Card, Profile
    from kvdrill.store.reviews import set_note

    database = open_database(db_url)
    with database.session() as session:
        card_id = session.scalar(select(Card.id).where(Card.key == card_key))
        profile_id = session.scalar(select(Profile.id).where(Profile.name == "default"))
        set_note(session_sql(session), profile_id, card_id, text, datetime(2026, 3, 2, 9, 30))
    database.close()


def study(monkeypatch: pytest.MonkeyPatch, db_url: str, lines: list[str]) -> None:
    monkeypatch.setenv("KVDRILL_NOW", "2026-03-02T09:00:00")
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    assert main(["--db", db_url, "drill", "--plain", "--pack", "export-me", "--limit", "2"]) == 0


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_data_writes_cards_schedules_and_the_review_log(
    stored_pack: str, tmp_path: Path, monkeypatch, capsys, fmt: str
) -> None:
    study(monkeypatch, stored_pack, ["", "again", "B", "", "good"])
    add_note(stored_pack, "kv-bytes", "my own words")
    settings = ["--db", stored_pack, "settings", "--pack", "export-me"]
    assert main([*settings, "new_per_day", "3"]) == 0
    capsys.readouterr()
    target = tmp_path / "out"
    assert main(["--db", stored_pack, "export", "--format", fmt, str(target)]) == 0
    out = capsys.readouterr().out
    assert "3 cards" in out and "1 note" in out

    def table(name: str) -> list[dict]:
        text = (target / f"{name}.{fmt}").read_text(encoding="utf-8")
        return json.loads(text) if fmt == "json" else list(csv.DictReader(io.StringIO(text)))

    cards = table("cards")
    assert [row["card"] for row in cards] == ["kv-bytes", "pool", "gen"]
    reviews = table("reviews")
    # Every answer, in order: the miss, the choice, and the miss asked again the same day.
    assert [(row["card"], row["graded_by"]) for row in reviews] == [
        ("kv-bytes", "self"),
        ("pool", "auto"),
        ("kv-bytes", "self"),
    ]
    assert reviews[1]["typed_answer"] == "B"
    assert all(row["study_day"] == "2026-03-02" for row in reviews)
    schedules = {row["card"]: row for row in table("schedules")}
    assert set(schedules) == {"kv-bytes", "pool"}  # the problem card was never seen
    assert str(schedules["kv-bytes"]["reviews"]) == "2"
    assert schedules["pool"]["due_day"] > "2026-03-02"

    # Everything the database holds about the learner: the schedule before each answer, the
    # reveal and grade seconds, the note and the profile's settings.
    first, _, again = reviews
    before = json.loads(again["schedule_before"]) if fmt == "csv" else again["schedule_before"]
    assert first["schedule_before"] in (None, "") and before["reviews"] == 1
    # The reveal and grade seconds as the answer logged them (a self-graded recall answer
    # logs both).
    database = open_database(stored_pack)
    try:
        with database.engine.connect() as connection:
            logged = connection.exec_driver_sql(
                "SELECT reveal_seconds, grade_seconds FROM review_log ORDER BY reviewed_at, id"
            ).all()
    finally:
        database.close()

    def seconds(value: object) -> float | None:
        return None if value in (None, "") else float(value)  # CSV cells are text

    assert [(seconds(r["reveal_seconds"]), seconds(r["grade_seconds"])) for r in reviews] == [
        tuple(row) for row in logged
    ]
    assert first["reveal_seconds"] not in (None, "") and first["grade_seconds"] not in (None, "")
    assert first["imported_id"] in (None, "")
    (note,) = table("notes")
    assert note["card"] == "kv-bytes" and note["text"] == "my own words"
    (profile,) = table("profile")
    assert profile["name"] == "default" and "rollover_hour" in str(profile["settings"])
    (pack,) = table("pack_settings")  # the pack's own settings, as `settings --pack` set them
    assert (pack["pack"], str(pack["new_per_day"]), pack["new_order"] or None) == (
        "export-me",
        "3",
        None,
    )


def test_every_column_kept_about_a_learner_has_its_export_column() -> None:
    # "Everything the database holds about the learner is in --format json": a column added
    # to one of the learner's tables without its export column fails here.
    from kvdrill.engine.study.settings import ProfileSettings
    from kvdrill.store.export_rows import (
        NOTE_COLUMNS,
        PACK_SETTING_COLUMNS,
        PROFILE_COLUMNS,
        REVIEW_COLUMNS,
        SCHEDULE_COLUMNS,
    )
    from kvdrill.store.models import CardFlag, CardState, Note, PackSetting, Profile, ReviewLog

    rows = {"profile_id", "card_id", "id"}  # the profile and the card: the rows' pack and card
    exported_as = {
        ReviewLog: (REVIEW_COLUMNS, {"prev_state": "schedule_before",
                                     "interval_days": "interval_after",
                                     "easiness_milli": "easiness_after"}),
        CardState: (SCHEDULE_COLUMNS, {"easiness_milli": "easiness"}),
        CardFlag: (SCHEDULE_COLUMNS, {"colour": "flag"}),
        Note: (NOTE_COLUMNS, {}),
        PackSetting: (PACK_SETTING_COLUMNS, {"pack_id": "pack"}),
    }  # fmt: skip
    for model, (columns, renamed) in exported_as.items():
        kept = {column.name for column in model.__table__.columns} - rows
        assert {renamed.get(name, name) for name in kept} <= set(columns), model
    settings = set(ProfileSettings.__dataclass_fields__) | {"options"}
    kept = {column.name for column in Profile.__table__.columns} - rows - {"name", "created_at"}
    assert kept <= settings and "settings" in PROFILE_COLUMNS


def test_export_data_for_an_unknown_profile_is_one_line(stored_pack, tmp_path, capsys) -> None:
    target = tmp_path / "out"
    code = main(
        ["--db", stored_pack, "--profile", "ghost", "export", "--format", "csv", str(target)]
    )
    assert code == 1
    assert "no profile 'ghost'" in one_line_error(capsys)
    assert not target.exists()


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_data_keeps_a_shuffled_choice_answer_s_seed_and_order(
    stored_pack: str, tmp_path: Path, monkeypatch, capsys, fmt: str
) -> None:
    from datetime import date

    from sqlalchemy import select

    from kvdrill.engine.packs.card_view import choice_views
    from kvdrill.engine.study.seeds import presentation_seed
    from kvdrill.store.models import Card, Profile

    study(monkeypatch, stored_pack, ["", "again", "B", "", "good"])
    target = tmp_path / "out"
    assert main(["--db", stored_pack, "export", "--format", fmt, str(target)]) == 0
    text = (target / f"reviews.{fmt}").read_text(encoding="utf-8")
    reviews = json.loads(text) if fmt == "json" else list(csv.DictReader(io.StringIO(text)))
    choice = next(row for row in reviews if row["card"] == "pool")
    # The seed is the one the session shuffled with; the order is what that seed shows.
    database = open_database(stored_pack)
    with database.session() as session:
        card = session.scalar(select(Card).where(Card.key == "pool"))
        profile_id = session.scalar(select(Profile.id).where(Profile.name == "default"))
        stored = card.choices
    database.close()
    seed = presentation_seed(profile_id, card.id, date(2026, 3, 2), 0)
    order = "".join(view.pack_letter for view in choice_views(stored, seed))
    assert str(choice["choice_seed"]) == str(seed)
    assert choice["choice_order"] == order
    assert sorted(order) == sorted("ABCD"[: len(order)])
    assert choice["typed_answer"] == "B"  # the letter shown; the pack's own is order[1]
    # A self-graded card has no shuffle.
    recall = next(row for row in reviews if row["card"] == "kv-bytes")
    assert recall["choice_seed"] in (None, "") and recall["choice_order"] in (None, "")


def test_html_structure_survives_as_markdown(tmp_path: Path) -> None:
    # Issue 24's fidelity gaps: x² was "x2", underline and the header row of a headless table
    # were lost, a table's text ran into the card title, a CSV kept its HTML literally and
    # &nbsp; came out as U+00A0.
    source = write(
        tmp_path / "cards.csv",
        '"Sizes<table><tr><td>GPU</td><td>HBM</td></tr><tr><td>H100</td><td>80 GB</td></tr>'
        '</table>","x<sup>2</sup> + H<sub>2</sub>O, <u>always</u> 80&nbsp;GB, e<sup>i pi</sup>"\n'
        '"a < b and c > d","<b>bold</b> &amp; more"\n',
    )
    output = tmp_path / "html.md"
    assert convert(source, output) == 0
    first, second = parse_pack(output).cards
    assert first.title == "Sizes"
    assert "| GPU | HBM |\n| --- | --- |\n| H100 | 80 GB |" in first.prompt
    assert first.answer == "x² \\+ H₂O, *always* 80 GB, e^(i pi)"
    assert second.prompt == "a \\< b and c \\> d"  # shown as "a < b and c > d"
    assert second.answer == "**bold** \\& more"


def test_notes_from_two_anki_decks_are_tagged_with_their_deck() -> None:
    def note(text: str, deck: str) -> ForeignNote:
        return ForeignNote(
            fields=(ForeignField("Front", text), ForeignField("Back", "yes")),
            tags=("kv",),
            html=True,
            source_id=text,
            deck=deck,
        )

    deck = ForeignDeck(notes=(note("one", "Inference::KV"), note("two", "Serving")), title="mixed")
    pack = parse_pack_text(build_pack_text(deck, "mixed", source_name="m.apkg").text, "m.md")
    assert [sorted(card.tags) for card in pack.cards] == [
        ["deck.inference.kv", "kv"],
        ["deck.serving", "kv"],
    ]
    one_deck = ForeignDeck(notes=(note("one", "Serving"),), title="Serving")
    (card,) = parse_pack_text(
        build_pack_text(one_deck, "s", source_name="s.apkg").text, "s.md"
    ).cards
    assert card.tags == ["kv"]


def test_a_converted_title_and_plain_mode_show_no_markdown_escapes(tmp_path: Path) -> None:
    from kvdrill.app.plain_text import markdown_to_plain

    source = write(
        tmp_path / "deck.txt",
        "#separator:tab\n#html:true\n"
        "Keys &amp; values of {{c1::128 KiB}} &lt;tags&gt;&nbsp;here\tper token\n",
    )
    output = tmp_path / "deck.md"
    assert convert(source, output) == 0
    (card,) = parse_pack(output).cards
    assert card.title == "Keys & values of [...] <tags> here"
    assert card.prompt == "Keys \\& values of \\[...\\] \\<tags\\> here"  # Markdown, escaped
    assert markdown_to_plain(card.prompt) == "Keys & values of [...] <tags> here"


async def test_plain_mode_and_the_drill_screens_header_show_no_escapes_nor_no_break_spaces(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    # Markdown escapes in the card text (as convert writes them; a title is text, never
    # escaped) and a literal U+00A0 (pasted from Anki): the learner reads neither the
    # backslashes nor "\xa0".
    from tui_helpers import make_app, settle, text_of

    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)
    pack = write(
        tmp_path / "deck.md",
        "---\npack: deck\ntitle: Deck\nversion: 1\n---\n\n"
        "## Keys & values: 80\u00a0GB [x] <tags> {#kv}\n\n"
        "### Prompt\nKeys \\& values: 80\u00a0GB \\[x\\] \\<tags\\>\n\n"
        "### Answer\nper\u00a0token\n",
    )
    assert main(["--db", db_url, "import", str(pack)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ngood\n"))
    assert main(["--db", db_url, "drill", "--plain", "--cram"]) == 0
    out = capsys.readouterr().out
    shown = "Keys & values: 80 GB [x] <tags>"
    assert f"Deck · {shown}" in out and f"\n{shown}\n" in out and "\nper token\n" in out
    assert "\\" not in out

    app = make_app(db_url, cram=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = text_of(app, "#drill-where")
    assert header.endswith(shown) and "\\" not in header


def test_a_pack_is_the_same_anki_deck_converted_again_when_it_holds_half_its_notes() -> None:
    from kvdrill.engine.interop.card_ids import converted_again

    notes = [card_id_for_guid(f"guid-{n}") for n in range(4)]
    stored = [notes[0], notes[0] + "-2", *notes[1:]]  # a reversed note's second card too
    assert converted_again(stored, [notes[0], notes[1] + "-3"])  # 2 of its 4 notes
    assert not converted_again(stored, [notes[0]])  # 1 of 4: another deck sharing a note
    assert not converted_again(stored, [card_id_for_guid("another deck")])
    assert not converted_again(["kv-bytes", "pool"], ["kv-bytes", "pool"])  # written by hand
