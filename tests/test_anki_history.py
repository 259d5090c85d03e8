"""Review history across Anki and kvdrill, proven with Anki's own library (``anki``).

A real collection is built once for the module: Basic, Basic (and reversed card), a cloze with
three gaps and a note with an image, answered with Anki's scheduler, so its review log and
schedules are Anki's own (review cards, a card relearning after a lapse, a card still learning,
a suspended and a buried one). It is exported with scheduling by Anki's exporter, before and
after a second round of answers.
"""

from __future__ import annotations

import io
import json
import sqlite3
import sys
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

anki_collection = pytest.importorskip(
    "anki.collection",
    reason="Anki's own library is not installed: pip install -e '.[anki-test]'",
)
from anki.scheduler.v3 import CardAnswer  # noqa: E402

from kvdrill.app.cli import main  # noqa: E402
from kvdrill.engine.interop.anki_history import history_path  # noqa: E402
from kvdrill.engine.interop.card_ids import card_id_for_guid, card_key_for  # noqa: E402
from kvdrill.store.db import open_database, session_sql  # noqa: E402

Collection = anki_collection.Collection
# A 1x1 PNG: a real image, so the browser shows it.
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082"
)
DECK = "Inference"
ANKI_ROLLOVER_HOURS = 4  # Anki's default "next day starts at"


@dataclass(frozen=True)
class AnkiCardSeen:
    """One Anki card as Anki's own API reports it, keyed by the card id kvdrill gives it."""

    key: str
    type: int
    queue: int
    due_day: date | None  # Anki's due as a calendar day (review and relearning cards)
    interval: int
    factor: int
    lapses: int
    answers: int  # revlog rows with an answer button
    stability: float | None
    # Those rows, oldest first: (id = epoch ms, button, interval, factor, time taken in ms).
    revlog: tuple[tuple[int, int, int, int, int], ...] = ()


@dataclass(frozen=True)
class Exported:
    first: Path
    legacy: Path
    second: Path  # after another answer to every card out of learning
    cards: dict[str, AnkiCardSeen]
    cards_after: dict[str, AnkiCardSeen]


def _answer(col, card_id: int, rating) -> None:
    card = col.get_card(card_id)
    card.start_timer()
    states = col._backend.get_scheduling_states(card.id)
    col.sched.answer_card(col.sched.build_answer(card=card, states=states, rating=rating))


def _seen(col) -> dict[str, AnkiCardSeen]:
    anki_today = (datetime.now() - timedelta(hours=ANKI_ROLLOVER_HOURS)).date()
    seen = {}
    for card_id in col.find_cards(f'"deck:{DECK}"'):
        card = col.get_card(card_id)
        if card.type in (2, 3) and card.due > 1_000_000_000:  # relearning within the day
            due_day = datetime.fromtimestamp(card.due).date()
        elif card.type in (2, 3):
            due_day = anki_today + timedelta(days=card.due - col.sched.today)
        else:
            due_day = None
        key = card_key_for(card_id_for_guid(card.note().guid), card.ord)
        seen[key] = AnkiCardSeen(
            key=key,
            type=card.type,
            queue=card.queue,
            due_day=due_day,
            interval=card.ivl,
            factor=card.factor,
            lapses=card.lapses,
            answers=col.db.scalar(
                "SELECT COUNT(*) FROM revlog WHERE cid = ? AND ease > 0", card_id
            ),
            stability=card.memory_state.stability if card.memory_state else None,
            revlog=tuple(
                tuple(row)
                for row in col.db.all(
                    "SELECT id, ease, ivl, factor, time FROM revlog WHERE cid = ? AND ease > 0 "
                    "ORDER BY id",
                    card_id,
                )
            ),
        )
    return seen


def _export(col, path: Path, *, legacy: bool = False) -> Path:
    options = anki_collection.ExportAnkiPackageOptions(
        with_scheduling=True, with_deck_configs=True, with_media=True, legacy=legacy
    )
    col.export_anki_package(
        out_path=str(path), options=options, limit=anki_collection.DeckIdLimit(col.decks.id(DECK))
    )
    return path


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    folder = tmp_path_factory.mktemp("anki-history")
    (folder / "col").mkdir()
    col = Collection(str(folder / "col" / "collection.anki2"))
    try:
        deck_id = col.decks.id(DECK)

        def add(model: str, **fields: str):
            note = col.new_note(col.models.by_name(model))
            for name, value in fields.items():
                note[name] = value
            col.add_note(note, deck_id)
            return [card.id for card in note.cards()]

        (kv,) = add("Basic", Front="What is a <b>KV cache</b>?", Back="Keys and values per token")
        (fp8,) = add("Basic", Front="Bytes per FP8 value?", Back="1")
        forward, backward = add("Basic (and reversed card)", Front="H100 HBM", Back="80 GB")
        gap1, gap2, gap3 = add(
            "Cloze", Text="{{c1::Llama 3.1 8B}} has {{c2::32}} layers and {{c3::8}} KV heads."
        )
        col.media.write_data("chart.png", TINY_PNG)
        col.media.write_data("plot.png", TINY_PNG[::-1])
        (chart,) = add(
            "Basic",
            Front='The roofline <img src="chart.png">',
            Back='compute bound <img alt="roofline plot" src="plot.png">',
        )
        chart_note = col.get_card(chart).note()
        chart_note.add_tag("roofline")
        col.update_note(chart_note)
        add("Basic", Front="Never studied", Back="still new")
        easy, good, again = CardAnswer.EASY, CardAnswer.GOOD, CardAnswer.AGAIN
        for card_id, ratings in (
            (kv, [easy, CardAnswer.HARD]),  # each of the four buttons
            (fp8, [easy]),
            (forward, [easy, good]),
            (backward, [easy]),
            (gap1, [easy, good]),
            (gap2, [easy, again]),  # a lapse: relearning
            (gap3, [again]),  # still learning: stays new in kvdrill
            (chart, [easy]),
        ):
            for rating in ratings:
                _answer(col, card_id, rating)
        col.sched.suspend_cards([fp8])
        col.sched.bury_cards([backward])
        cards = _seen(col)
        first = _export(col, folder / "v1.apkg")
        legacy = _export(col, folder / "v1-legacy.apkg", legacy=True)
        for card_id in (kv, fp8, forward, backward, gap1, gap2, chart):  # every card kvdrill has
            _answer(col, card_id, good)
        cards_after = _seen(col)
        second = _export(col, folder / "v2.apkg")
    finally:
        col.close()
    return Exported(first, legacy, second, cards, cards_after)


@pytest.fixture(autouse=True)
def no_bundled_decks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kvdrill.app.services.importing.import_bundled", lambda database, now: None)


def _states(db_url: str) -> tuple[dict[str, dict], dict[str, list[dict]]]:
    """Each card's state and log rows of the default profile, by card key."""
    database = open_database(db_url)
    try:
        with database.engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
            raw = connection.connection.dbapi_connection
            raw.row_factory = sqlite3.Row
            states = {
                row["key"]: dict(row)
                for row in raw.execute(
                    "SELECT c.key, s.* FROM card_states s JOIN cards c ON c.id = s.card_id"
                )
            }
            logs: dict[str, list[dict]] = {}
            for row in raw.execute(
                "SELECT c.key, r.* FROM review_log r JOIN cards c ON c.id = r.card_id "
                "ORDER BY r.reviewed_at"
            ):
                logs.setdefault(row["key"], []).append(dict(row))
    finally:
        database.close()
    return states, logs


def _convert_and_import(
    package: Path, pack: Path, db_url: str, capsys, *extra: str, force: bool = False
) -> str:
    argv = ["convert", str(package), "-o", str(pack)] + (["--force"] if force else [])
    assert main(argv) == 0
    assert main(["--db", db_url, "import", str(pack), *extra]) == 0
    return capsys.readouterr().out


def _check_against_anki(
    cards: dict[str, AnkiCardSeen], states: dict[str, dict], logs: dict[str, list[dict]]
) -> None:
    for key, anki in cards.items():
        if anki.type not in (2, 3):  # new and learning cards stay new
            assert key not in states and key not in logs, key
            continue
        state = states[key]
        assert date.fromisoformat(state["due_day"]) == anki.due_day, key
        assert state["interval_days"] == anki.interval, key
        assert state["easiness_milli"] == anki.factor, key
        assert state["lapses"] == anki.lapses, key
        assert state["reviews"] == anki.answers == len(logs[key]), key
        # Each answer as Anki logged it: its time, the button as a stated SM-2 quality, the
        # time taken, and the interval and ease factor Anki gave after it.
        for row, (anki_id, button, interval, factor, taken_ms) in zip(
            logs[key], anki.revlog, strict=True
        ):
            assert row["imported_id"] == f"anki:{anki_id}", key
            assert datetime.fromisoformat(row["reviewed_at"]) == datetime.fromtimestamp(
                anki_id / 1000
            ), key
            assert row["quality"] == {1: 1, 2: 3, 3: 4, 4: 5}[button], key
            assert row["seconds"] == pytest.approx(taken_ms / 1000), key
            assert row["interval_days"] == max(0, interval), key  # < 0: seconds, in learning
            assert row["easiness_milli"] == (factor or None), key
        assert bool(state["suspended"]) == (anki.queue == -1), key
        # Repetitions: the passes in a row that end its log (at least 2); none when relearning.
        passes = len(anki.revlog) - max(
            (at + 1 for at, row in enumerate(anki.revlog) if row[1] == 1), default=0
        )
        assert state["repetitions"] == (0 if anki.type == 3 else max(2, passes)), key
        assert (state["buried_until"] is not None) == (anki.queue in (-2, -3)), key


def test_convert_and_import_bring_anki_schedules_and_review_log(
    exported: Exported, tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "inference.md"
    out = _convert_and_import(exported.first, pack, db_url, capsys)
    assert Path(history_path(pack)).is_file()
    reviews = sum(card.answers for card in exported.cards.values() if card.type in (2, 3))
    learning = sum(1 for card in exported.cards.values() if card.type == 1)
    scheduled = sum(1 for card in exported.cards.values() if card.type in (2, 3))
    assert f"Anki history: {reviews} answers added to {scheduled} cards" in out
    assert learning == 1 and "1 card new or learning in Anki starts new (1 answer not" in out
    states, logs = _states(db_url)
    # Two cards from the reversed note, three from the cloze: each with its own schedule.
    assert len(exported.cards) == 9 and scheduled == 7
    _check_against_anki(exported.cards, states, logs)
    # Again, Hard, Good and Easy all came in, as qualities 1, 3, 4 and 5.
    assert {row["quality"] for rows in logs.values() for row in rows} == {1, 3, 4, 5}

    # The stats count them: the pack's reviews are Anki's answers.
    assert main(["--db", db_url, "stats", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (topic,) = [t for t in report["topics"] if t["kind"] == "pack" and t["topic"] == "inference"]
    assert topic["reviews"] == reviews

    # The log and the states agree as kvdrill's own answers would.
    assert main(["--db", db_url, "doctor"]) == 0
    assert "Nothing to repair." in capsys.readouterr().out

    # The same package again adds nothing.
    assert main(["--db", db_url, "import", str(pack)]) == 0
    assert f"0 answers added to {scheduled} cards; {reviews} imported before" in (
        capsys.readouterr().out
    )
    assert _states(db_url)[1] == logs

    # A newer export after more answers in Anki: the new answers come in, schedules follow.
    out = _convert_and_import(exported.second, pack, db_url, capsys, force=True)
    assert "7 answers added" in out
    states, logs = _states(db_url)
    _check_against_anki(exported.cards_after, states, logs)


async def test_the_stats_screen_counts_the_answers_brought_from_anki(
    exported: Exported, tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from textual.widgets import DataTable
    from tui_helpers import make_app, settle, text_of

    from kvdrill.app.tui.screens.stats import StatsScreen

    _convert_and_import(exported.first, tmp_path / "inference.md", db_url, capsys)
    reviews = sum(card.answers for card in exported.cards.values() if card.type in (2, 3))
    app = make_app(db_url, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        assert f" · {reviews} reviews · " in text_of(app, "#stats-summary")
        topics = app.screen.query_one("#topics", DataTable)
        (row,) = [topics.get_row(key) for key in topics.rows if key.value == "pack\tinference"]
        assert str(row[2]) == str(reviews)  # the pack's "revs" column


def test_a_legacy_package_brings_the_same_history(
    exported: Exported, tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _convert_and_import(exported.legacy, tmp_path / "inference.md", db_url, capsys)
    states, logs = _states(db_url)
    _check_against_anki(exported.cards, states, logs)


def test_answers_given_in_kvdrill_are_never_replaced_silently(
    exported: Exported,
    tmp_path: Path,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pack = tmp_path / "inference.md"
    _convert_and_import(exported.first, pack, db_url, capsys)
    # Weeks later every imported review card is due: answer one in kvdrill.
    later = datetime.now() + timedelta(days=60)
    monkeypatch.setenv("KVDRILL_NOW", later.strftime("%Y-%m-%dT%H:%M"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ngood\n"))
    assert main(["--db", db_url, "drill", "--plain", "--new", "0", "--limit", "1"]) == 0
    capsys.readouterr()
    states, logs = _states(db_url)
    (answered,) = [key for key, rows in logs.items() if rows[-1]["imported_id"] is None]

    assert main(["convert", str(exported.second), "-o", str(pack), "--force"]) == 0
    capsys.readouterr()
    assert main(["--db", db_url, "import", str(pack)]) == 1
    err = capsys.readouterr().err
    assert "answered 1 card in kvdrill that Anki's history would reschedule" in err
    assert answered in err and "--replace-history" in err and "Traceback" not in err
    assert _states(db_url) == (states, logs)  # nothing written

    # A dry run says the same, and what --replace-history would do, writing nothing.
    argv = ["--db", db_url, "import", str(pack), "--dry-run", "--json", "--replace-history"]
    assert main(argv) == 0
    (planned,) = json.loads(capsys.readouterr().out)["anki_history"]
    assert len(planned["schedules_replaced"]) == 1 and answered in planned["schedules_replaced"][0]
    assert _states(db_url) == (states, logs)

    assert main(["--db", db_url, "import", str(pack), "--replace-history"]) == 0
    states, logs = _states(db_url)
    anki = exported.cards_after[answered]
    assert date.fromisoformat(states[answered]["due_day"]) == anki.due_day
    assert states[answered]["interval_days"] == anki.interval
    # The kvdrill answer stays in the log beside Anki's.
    assert len(logs[answered]) == states[answered]["reviews"] == anki.answers + 1


def test_an_fsrs_collection_brings_its_memory_state(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "col").mkdir()
    col = Collection(str(tmp_path / "col" / "collection.anki2"))
    try:
        col.set_config("fsrs", True)
        note = col.new_note(col.models.by_name("Basic"))
        note["Front"], note["Back"] = "Decode is bound by?", "memory bandwidth"
        col.add_note(note, col.decks.id(DECK))
        for rating in (CardAnswer.EASY, CardAnswer.GOOD):
            _answer(col, note.cards()[0].id, rating)
        (anki,) = _seen(col).values()
        package = _export(col, tmp_path / "fsrs.apkg")
    finally:
        col.close()
    _convert_and_import(package, tmp_path / "fsrs.md", db_url, capsys)
    states, _ = _states(db_url)
    memory = json.loads(states[anki.key]["fsrs"])
    assert anki.stability is not None
    assert memory["stability"] == pytest.approx(anki.stability, rel=1e-3)
    assert memory["state"] == 2 and 1 <= memory["difficulty"] <= 10
    assert date.fromisoformat(states[anki.key]["due_day"]) == anki.due_day


# --- kvdrill -> Anki ----------------------------------------------------------------------------

KV_PACK = """---
pack: proof
title: Proof
version: 1
---

## KV bytes {#kv-bytes} #kv

### Prompt
How many bytes does one token of Llama 3.1 8B add to a BF16 KV cache?

### Answer
128 KiB.

### Follow-up
Q: And a 4,096-token conversation?

A: 512 MiB.

## Pool doubling {#pool}

### Prompt
What doubles the tokens a KV pool holds?

### Choices
- [ ] Raise max_num_seqs
- [x] Keep the KV cache in FP8

### Explanation
FP8 halves the bytes per token.

## Not studied {#later}

### Prompt
Left for later?

### Answer
Yes.
"""


def _fresh_anki_with(package: Path, folder: Path):
    """A new Anki collection in ``folder`` that has imported ``package`` with its scheduling,
    as "Import any learning progress" does."""
    folder.mkdir()
    col = Collection(str(folder / "collection.anki2"))
    request = anki_collection.ImportAnkiPackageRequest(
        package_path=str(package),
        options=anki_collection.ImportAnkiPackageOptions(with_scheduling=True),
    )
    col.import_anki_package(request)
    return col


def test_a_profile_exported_with_scheduling_imports_into_anki_with_its_schedules(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from drill_helpers import keys_until_done
    from sqlalchemy import select

    from kvdrill.app.services.drill import DrillSession
    from kvdrill.store.models import Card, Profile
    from kvdrill.store.reviews import set_note

    pack = tmp_path / "proof.md"
    pack.write_text(KV_PACK, encoding="utf-8")
    assert main(["--db", db_url, "import", str(pack)]) == 0
    database = open_database(db_url)
    start = datetime.now().replace(microsecond=0) - timedelta(days=10)
    try:
        studied = ("kv-bytes", "kv-bytes/follow-up", "pool")
        for days, grades in (
            (0, {"pool": [2, 4]}),
            (1, {}),
            (7, {"kv-bytes": [5], "pool": [2, 4]}),  # a lapse of a learned card
        ):
            keys_until_done(
                DrillSession.open(
                    database, now=start + timedelta(days=days), new_limit=3 if not days else 0
                ),
                {key: list(values) for key, values in grades.items()},
            )
        with database.session() as session:
            profile_id = session.scalar(select(Profile.id))
            card_id = session.scalar(select(Card.id).where(Card.key == "kv-bytes"))
            set_note(session_sql(session), profile_id, card_id, "Remember **the factor 2**.", start)
    finally:
        database.close()
    assert main(["--db", db_url, "cards", "proof/kv-bytes/follow-up", "--suspend"]) == 0
    states, logs = _states(db_url)
    assert set(states) == set(studied)  # "later" stays new, in Anki too
    assert states["pool"]["lapses"] == 1 and states["kv-bytes/follow-up"]["suspended"]
    capsys.readouterr()

    package = tmp_path / "proof.apkg"
    assert (
        main(["--db", db_url, "export", "--format", "apkg", str(package), "--with-scheduling"]) == 0
    )
    assert f"{len(states)} cards with your schedule and answers" in capsys.readouterr().out

    col = _fresh_anki_with(package, tmp_path / "fresh")
    try:
        anki_today = (datetime.now() - timedelta(hours=ANKI_ROLLOVER_HOURS)).date()
        for key in ("kv-bytes", "kv-bytes/follow-up", "pool", "later"):
            (note_id,) = col.find_notes(f'"Source:proof/{key}"')
            (card,) = col.get_note(note_id).cards()
            answers = col.db.scalar(
                "SELECT COUNT(*) FROM revlog WHERE cid = ? AND ease > 0", card.id
            )
            if key not in states:
                assert card.type == 0 and answers == 0
                continue
            state = states[key]
            assert card.type == 2 and card.queue == (-1 if state["suspended"] else 2), key
            assert card.lapses == state["lapses"], key
            assert card.ivl == state["interval_days"], key
            due_day = anki_today + timedelta(days=card.due - col.sched.today)
            assert due_day == date.fromisoformat(state["due_day"]), key
            assert answers == state["reviews"] == len(logs[key]), key
            assert card.factor == state["easiness_milli"], key
        (note_id,) = col.find_notes('"Source:proof/kv-bytes"')
        assert "the factor 2" in col.get_note(note_id)["Your note"]
        (follow_up,) = col.find_notes('"Source:proof/kv-bytes/follow-up"')
        assert "follow-up-of::kv-bytes" in col.get_note(follow_up).tags
    finally:
        col.close()


def test_a_newer_export_converted_to_another_file_takes_the_old_files_cards_over(
    exported: Exported, tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old, new = tmp_path / "old" / "inference.md", tmp_path / "new" / "inference.md"
    _convert_and_import(exported.first, old, db_url, capsys)
    _, logs_before = _states(db_url)

    out = _convert_and_import(exported.second, new, db_url, capsys)
    assert (
        f"inference: the same Anki deck as {old}, converted again: {new} takes over its cards "
        "by their ids, with their history"
    ) in out
    assert "inference: 0 added, 0 changed, 0 retired, 9 unchanged" in out
    states, logs = _states(db_url)
    _check_against_anki(exported.cards_after, states, logs)  # one card each, no duplicate
    assert all(logs[key][: len(rows)] == rows for key, rows in logs_before.items())

    # A different pack that happens to use the id is still refused, naming the owner.
    other = tmp_path / "other" / "inference.md"
    other.parent.mkdir()
    other.write_text(KV_PACK.replace("pack: proof", "pack: inference"), encoding="utf-8")
    assert main(["--db", db_url, "import", str(other)]) == 1
    assert f"pack id 'inference' is already used by {new}" in capsys.readouterr().err
    assert _states(db_url) == (states, logs)


def test_a_newer_export_converted_to_a_file_of_another_name_is_the_same_pack(
    tmp_path: Path,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Export, convert to a.md, import, review in kvdrill, add a note in Anki, export again,
    convert to b.md (another pack id), import: one pack, the history kept, the new card in."""
    (tmp_path / "col").mkdir()
    col = Collection(str(tmp_path / "col" / "collection.anki2"))
    try:
        deck_id = col.decks.id(DECK)

        def add(front: str, back: str) -> int:
            note = col.new_note(col.models.by_name("Basic"))
            note["Front"], note["Back"] = front, back
            col.add_note(note, deck_id)
            return note.cards()[0].id

        studied = add("Bytes per BF16 value?", "2")
        for rating in (CardAnswer.EASY, CardAnswer.GOOD):
            _answer(col, studied, rating)
        first = _export(col, tmp_path / "v1.apkg")
        added = add("Bytes per FP8 value?", "1")
        second = _export(col, tmp_path / "v2.apkg")
        studied_key, added_key = (
            card_key_for(card_id_for_guid(col.get_card(card).note().guid), 0)
            for card in (studied, added)
        )
    finally:
        col.close()
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    _convert_and_import(first, a, db_url, capsys)
    later = datetime.now() + timedelta(days=60)  # the Anki card is due: review it in kvdrill
    monkeypatch.setenv("KVDRILL_NOW", later.strftime("%Y-%m-%dT%H:%M"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ngood\n"))
    assert main(["--db", db_url, "drill", "--plain", "--new", "0", "--limit", "1"]) == 0
    _, logs_before = _states(db_url)
    assert [row["imported_id"] is None for row in logs_before[studied_key]] == [0, 0, 1]

    assert main(["convert", str(second), "-o", str(b)]) == 0
    capsys.readouterr()
    # A dry run says so and finds the history under the pack's old id, writing nothing.
    assert main(["--db", db_url, "import", str(b), "--dry-run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (planned,) = report["packs"]
    assert (planned["new_pack"], planned["took_over_pack"]) == (False, "a")
    assert [card["id"] for card in planned["added"]] == [added_key]
    (history_planned,) = report["anki_history"]
    assert history_planned["answers_imported_before"] == 2 and history_planned["cards_kept"] == 1
    assert _states(db_url)[1] == logs_before

    assert main(["--db", db_url, "import", str(b)]) == 0
    out = capsys.readouterr().out
    assert (
        f"b: the same Anki deck as {a} (pack a), converted again: {b} takes over its cards by "
        "their ids, with their history"
    ) in out
    assert "b: 1 added, 0 changed, 0 retired, 1 unchanged" in out
    states, logs = _states(db_url)
    assert logs == logs_before  # Anki's two answers and the kvdrill one, on the same card
    assert states[studied_key]["reviews"] == 3 and added_key in {
        key for key, _ in _pack_cards(db_url, "b")
    }
    assert _pack_cards(db_url, "a") == [] and len(_pack_cards(db_url, "b")) == 2

    # The older conversion imported again is refused: it would take the new card away.
    assert main(["--db", db_url, "import", str(a)]) == 1
    err = capsys.readouterr().err
    assert f"{a}:1: an older conversion of the same Anki deck as {b} (pack 'b')" in err
    assert _states(db_url) == (states, logs) and len(_pack_cards(db_url, "b")) == 2

    # A different deck converted to yet another file is a pack of its own.
    other = tmp_path / "other.md"
    other.write_text(KV_PACK.replace("pack: proof", "pack: other"), encoding="utf-8")
    assert main(["--db", db_url, "import", str(other)]) == 0
    assert "takes over" not in capsys.readouterr().out and len(_pack_cards(db_url, "other")) == 4


def _pack_cards(db_url: str, pack: str) -> list[tuple[str, bool]]:
    """The stored cards of ``pack``: (card key, retired)."""
    database = open_database(db_url)
    try:
        with database.engine.connect() as connection:
            return [
                (key, bool(retired))
                for key, retired in connection.exec_driver_sql(
                    "SELECT c.key, c.retired FROM cards c JOIN packs p ON p.id = c.pack_id "
                    "WHERE p.key = ? ORDER BY c.id",
                    (pack,),
                )
            ]
    finally:
        database.close()


def test_an_fsrs_profile_exports_its_memory_state_and_buried_cards_to_anki(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from drill_helpers import keys_until_done

    from kvdrill.app.services.drill import DrillSession

    pack = tmp_path / "proof.md"
    pack.write_text(KV_PACK, encoding="utf-8")
    assert main(["--db", db_url, "import", str(pack)]) == 0
    assert main(["--db", db_url, "settings", "scheduler", "fsrs"]) == 0
    database = open_database(db_url)
    start = datetime.now().replace(microsecond=0) - timedelta(days=10)
    try:
        keys_until_done(DrillSession.open(database, now=start, new_limit=3), {"pool": [2, 4]})
        keys_until_done(DrillSession.open(database, now=start + timedelta(days=3), new_limit=0), {})
        # A cram of one card: practice, which moves no schedule and stays out of Anki's log.
        keys_until_done(
            DrillSession.open(database, now=start + timedelta(days=4), cram=True, limit=1), {}
        )
    finally:
        database.close()
    assert main(["--db", db_url, "cards", "proof/pool", "--bury"]) == 0
    capsys.readouterr()
    states, logs = _states(db_url)
    practised = [key for key, rows in logs.items() if any(row["practice"] for row in rows)]
    assert len(practised) == 1
    memories = {key: json.loads(state["fsrs"]) for key, state in states.items()}
    assert all(memory["stability"] > 0 for memory in memories.values()) and len(memories) == 3

    # --format json carries the same: the memory state and the bury.
    assert main(["--db", db_url, "export", "--format", "json", str(tmp_path / "data")]) == 0
    rows = json.loads((tmp_path / "data" / "schedules.json").read_text(encoding="utf-8"))
    by_card = {row["card"]: row for row in rows}
    assert by_card["pool"]["buried_until"] == states["pool"]["buried_until"] is not None
    for key, memory in memories.items():
        assert by_card[key]["fsrs"]["stability"] == memory["stability"]
        assert by_card[key]["fsrs"]["difficulty"] == memory["difficulty"]

    package = tmp_path / "proof.apkg"
    argv = ["--db", db_url, "export", "--format", "apkg", str(package), "--with-scheduling"]
    assert main(argv) == 0
    col = _fresh_anki_with(package, tmp_path / "fresh")
    try:
        for key, memory in memories.items():
            (note_id,) = col.find_notes(f'"Source:proof/{key}"')
            (card,) = col.get_note(note_id).cards()
            assert card.memory_state is not None, key
            # Anki keeps a memory state to three decimals.
            assert card.memory_state.stability == pytest.approx(memory["stability"], abs=6e-4)
            assert card.memory_state.difficulty == pytest.approx(memory["difficulty"], abs=6e-4)
            assert card.queue == (-3 if key == "pool" else 2), key  # buried until Anki's next day
            answers = col.db.scalar("SELECT COUNT(*) FROM revlog WHERE cid = ?", card.id)
            assert answers == states[key]["reviews"], key
        # The practice answer is the one row kvdrill has and Anki does not.
        assert sum(map(len, logs.values())) == 1 + sum(s["reviews"] for s in states.values())
        assert [col.get_card(c).id for c in col.find_cards("is:buried")] == [
            card.id for card in col.get_note(col.find_notes('"Source:proof/pool"')[0]).cards()
        ]
    finally:
        col.close()


# --- images -------------------------------------------------------------------------------------


def test_a_packages_images_come_along_and_every_mode_shows_them(
    exported: Exported,
    tmp_path: Path,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kvdrill.app.services.pack_files import parse_pack

    pack = tmp_path / "inference.md"
    out = _convert_and_import(exported.first, pack, db_url, capsys)
    media = tmp_path / "inference.media"
    assert f"9 cards (2 images copied to {media})" in out
    assert (media / "chart.png").read_bytes() == TINY_PNG
    assert (media / "plot.png").read_bytes() == TINY_PNG[::-1]
    (card,) = [card for card in parse_pack(pack).cards if "roofline" in card.tags]
    # An image without alt text still gets a reference; one with alt text keeps it.
    assert card.prompt == "The roofline ![](inference.media/chart.png)"
    assert card.answer == "compute bound ![roofline plot](inference.media/plot.png)"

    # Plain mode prints a placeholder line with each file's path (wide: a path is long).
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ngood\n"))
    assert main(["--db", db_url, "drill", "--plain", "--cram", "--tag", "roofline"]) == 0
    out = capsys.readouterr().out
    assert f"The roofline\n\n[image: {media / 'chart.png'}]" in out
    assert f"[image: roofline plot: {media / 'plot.png'}]" in out

    # Going back, the images go into the package: Anki has them and the card shows them.
    package = tmp_path / "back.apkg"
    assert main(["--db", db_url, "export", "--format", "apkg", str(package)]) == 0
    col = _fresh_anki_with(package, tmp_path / "fresh")
    try:
        (note_id,) = col.find_notes(f'"Source:inference/{card.key}"')
        note = col.get_note(note_id)
        assert '<img src="inference-chart.png"' in note["Prompt"]
        assert '<img src="inference-plot.png" alt="roofline plot"' in note["Answer"]
        media_folder = Path(col.media.dir())
        assert (media_folder / "inference-chart.png").read_bytes() == TINY_PNG
        assert (media_folder / "inference-plot.png").read_bytes() == TINY_PNG[::-1]
    finally:
        col.close()


def test_a_hand_written_packs_images_go_to_anki_with_the_card(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "plots.md"
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "chart.png").write_bytes(TINY_PNG)
    pack.write_text(
        KV_PACK.replace("How many bytes", "![the chart](figures/chart.png) How many bytes"),
        encoding="utf-8",
    )
    assert main(["--db", db_url, "import", str(pack)]) == 0
    package = tmp_path / "plots.apkg"
    assert main(["--db", db_url, "export", "--format", "apkg", str(package)]) == 0
    capsys.readouterr()
    col = _fresh_anki_with(package, tmp_path / "anki")
    try:
        (note_id,) = col.find_notes('"Source:proof/kv-bytes"')
        prompt = col.get_note(note_id)["Prompt"]
        assert '<img src="proof-figures-chart.png" alt="the chart"' in prompt
        assert (Path(col.media.dir()) / "proof-figures-chart.png").read_bytes() == TINY_PNG
    finally:
        col.close()


async def test_the_drill_screen_shows_an_image_as_a_line_with_its_path_and_opens_it(
    exported: Exported,
    tmp_path: Path,
    db_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui_helpers import make_app, settle, text_of

    from kvdrill.app.services.media import linked_image, media_link

    pack = tmp_path / "inference.md"
    _convert_and_import(exported.first, pack, db_url, capsys)
    chart = tmp_path / "inference.media" / "chart.png"
    opened: list[str] = []
    app = make_app(db_url, cram=True, tag="roofline")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        prompt = text_of(app, "#drill-prompt")
        assert prompt.startswith("The roofline")
        assert f"[image: {chart}]" in prompt.replace("\\", "")
        assert f"]({media_link(str(pack), chart)})" in prompt
        # The placeholder is a link to the image; clicking it opens that file, nothing else.
        # The desktop's viewer is the one thing not started: webbrowser records what it gets.
        monkeypatch.setattr("webbrowser.open", lambda url, *args, **kwargs: opened.append(url))
        app.open_url(media_link(str(pack), chart))
        app.open_url(media_link(str(pack), tmp_path / "inference.md"))  # not an image
        app.open_url(media_link(str(pack), chart.parent / ".." / "inference.media" / "chart.png"))
        await pilot.press("space")
        await settle(pilot)
        reveal = text_of(app, "#drill-reveal").replace("\\", "")
        assert f"[image: roofline plot: {chart.with_name('plot.png')}]" in reveal
    assert opened == [chart.resolve().as_uri()]
    assert linked_image(media_link(str(pack), chart)) is not None


def test_the_anki_history_line_speaks_the_profiles_language(
    exported: Exported, tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from kvdrill.app.services.language import use_language

    try:
        assert main(["--db", db_url, "settings", "language", "vi"]) == 0
        capsys.readouterr()
        out = _convert_and_import(exported.first, tmp_path / "inference.md", db_url, capsys)
        scheduled = sum(1 for card in exported.cards.values() if card.type in (2, 3))
        assert "inference: lịch sử Anki: đã thêm " in out and f"vào {scheduled} thẻ" in out
        assert "1 thẻ còn mới hoặc đang học trong Anki bắt đầu lại là thẻ mới (1 câu trả lời" in out
        assert "Anki history" not in out and "added" not in out
    finally:
        use_language("en")
