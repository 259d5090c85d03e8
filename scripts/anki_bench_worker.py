"""The Anki half of scripts/bench_vs_anki.py, run by that script with the benchmark's own Anki
environment (never kvdrill's): it imports only the standard library and the ``anki`` package.

    anki-python scripts/anki_bench_worker.py answer COLLECTION_DIR CARDS ANSWERS [NORMAL]
    anki-python scripts/anki_bench_worker.py import COLLECTION_DIR TSV...

Prints one JSON object on stdout. ``answer`` builds the collection the same shape as kvdrill's
(60 % of the cards in review, due from 20 days overdue to 40 days ahead), then times each
``answerCard`` plus the ``getCard`` that brings the next card; Anki runs with its own
``synchronous`` (FULL) unless NORMAL is asked for. ``import`` is the whole process
from start: open a new collection, read the tab-separated packs, ``Collection.add_notes`` (one
batch per pack, the fastest public way in, faster than ``import_csv``), close.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

STARTED = time.perf_counter()

from anki.collection import AddNoteRequest, Collection  # noqa: E402

# kvdrill's self-grades 1, 3, 4, 5 are Anki's Again, Hard, Good, Easy.
ANKI_EASE = {1: 1, 3: 2, 4: 3, 5: 4}


def pragmas(col: Collection) -> dict[str, object]:
    return {
        "synchronous": {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[
            col.db.scalar("pragma synchronous")
        ],
        "journal_mode": col.db.scalar("pragma journal_mode"),
    }


def add_pack(col: Collection, rows: list[tuple[str, str]], deck_id: int) -> None:
    notetype = col.models.by_name("Basic")
    requests = []
    for front, back in rows:
        note = col.new_note(notetype)
        note["Front"] = front
        note["Back"] = back
        requests.append(AddNoteRequest(note=note, deck_id=deck_id))
    col.add_notes(requests)


def answer(folder: Path, cards: int, answers: int, synchronous: str) -> dict[str, object]:
    col = Collection(str(folder / "answer.anki2"))
    if synchronous != "anki":  # the benchmark's one change to Anki: kvdrill's level, to match it
        col.db.execute(f"pragma synchronous = {synchronous}")
    config = col.decks.config_dict_for_deck_id(1)
    config["new"]["perDay"] = 1000  # the same room in today's limits as kvdrill's benchmark
    config["rev"]["perDay"] = 9999  # Anki's maximum
    col.decks.update_config(config)
    add_pack(
        col, [(f"Question {i}: how many bytes per token?", f"Answer {i}.") for i in range(cards)], 1
    )
    rng = random.Random(7)
    ids = col.find_cards("")
    today = col.sched.today
    reviewed = rng.sample(list(ids), cards * 6 // 10)
    col.db.executemany(
        "update cards set type=2, queue=2, ivl=?, due=?, factor=?, reps=?, lapses=? where id=?",
        [
            (
                rng.randint(1, 60),
                today + rng.randint(-20, 40),
                rng.choice(range(1300, 2800, 20)),
                rng.randint(1, 12),
                rng.randint(0, 3),
                card_id,
            )
            for card_id in reviewed
        ],
    )
    os.sync()  # a collection at rest, as kvdrill's worker leaves its own: no writeback pending
    grades = random.Random(11)
    timings = []
    cpu = time.process_time()
    card = col.sched.getCard()
    for _ in range(answers):
        if card is None:
            break
        ease = ANKI_EASE[grades.choice((1, 3, 4, 4, 4, 5))]
        started = time.perf_counter()
        col.sched.answerCard(card, ease)
        card = col.sched.getCard()
        timings.append((time.perf_counter() - started) * 1000)
    cpu_ms = (time.process_time() - cpu) * 1000 / max(1, len(timings))
    result = {"timings_ms": timings, "cpu_ms": cpu_ms, **pragmas(col)}
    col.close()
    return result


def import_packs(folder: Path, packs: list[Path]) -> dict[str, object]:
    col = Collection(str(folder / "import.anki2"))
    for number, pack in enumerate(packs):
        deck_id = col.decks.id(f"bench-{number}")
        rows = [line.split("\t") for line in pack.read_text(encoding="utf-8").splitlines()]
        add_pack(col, [(front, back) for front, back in rows], deck_id)
    cards = col.card_count()
    result = {"cards": cards, **pragmas(col)}
    col.close()
    result["seconds"] = time.perf_counter() - STARTED
    return result


def main() -> int:
    action, folder = sys.argv[1], Path(sys.argv[2])
    if action == "answer":
        synchronous = sys.argv[5] if len(sys.argv) > 5 else "anki"
        result = answer(folder, int(sys.argv[3]), int(sys.argv[4]), synchronous)
    else:
        result = import_packs(folder, [Path(arg) for arg in sys.argv[3:]])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
