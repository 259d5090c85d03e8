"""A card and its edition are one card: switching the profile's language keeps every schedule,
review, note and flag, and shows the edition's text where there is one."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.overview import load_overview
from kvdrill.store.db import open_database

pytestmark = [pytest.mark.store, pytest.mark.both_backends]

DAY1 = datetime(2026, 3, 2, 9, 0)
DAY5 = datetime(2026, 3, 6, 9, 0)


def write_packs(folder: Path) -> list[Path]:
    """``course`` (three cards, the first with a follow-up), its Vietnamese edition
    ``course-vi``, and ``solo``, an English pack with no edition."""

    def card(n: int, prompt: str, answer: str, follow: str = "") -> str:
        return f"\n## Card {n} {{#c{n}}}\n\n### Prompt\n\n{prompt} {n}?\n\n### Answer\n\n{answer} {n}.\n{follow}"

    english = "---\npack: course\ntitle: The course\nversion: 1\n---\n" + "".join(
        card(n, "What is", "It is", "\n### Follow-up\nQ: Why?\n\nA: Because.\n" if n == 0 else "")
        for n in range(3)
    )
    vietnamese = (
        "---\npack: course-vi\ntitle: Khoá học\nversion: 1\nlang: vi\nedition_of: course\n---\n"
        + "".join(
            card(
                n,
                "Đó là gì",
                "Đó là",
                "\n### Follow-up\nQ: Vì sao?\n\nA: Vì thế.\n" if n == 0 else "",
            )
            for n in range(3)
        )
    )
    solo = "---\npack: solo\ntitle: Solo\nversion: 1\n---\n" + card(9, "Alone", "Yes")
    paths = []
    for name, text in (("course", english), ("course-vi", vietnamese), ("solo", solo)):
        path = folder / f"{name}.md"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def drill_all(database, now: datetime, grade: int = 4) -> dict[int, tuple[str, str, str]]:
    """Answer every card of today's session: card id -> (pack key, card key, prompt)."""
    session = DrillSession.open(database, profile="lan", now=now)
    shown = {}
    while (view := session.current) is not None:
        shown[view.card_id] = (view.pack_key, view.key, view.prompt)
        session.grade(grade)
    return shown


def what_the_learner_sees(db_url: str, capsys, now: datetime) -> tuple[dict, list, tuple]:
    """``kvdrill due --json``, the browser's schedules and flags, the home's counts."""
    capsys.readouterr()
    assert main(["--db", db_url, "--profile", "lan", "due", "--json"]) == 0
    due = json.loads(capsys.readouterr().out)
    assert main(["--db", db_url, "--profile", "lan", "cards", "--json"]) == 0
    cards = [
        (card["card"], card["due_day"], card["reviews"], card["flag"])
        for card in json.loads(capsys.readouterr().out)
    ]
    database = open_database(db_url)
    try:
        home = load_overview(database.read, "lan", now)
    finally:
        database.close()
    counts = tuple(sorted((line.key, line.due, line.new) for line in home.packs))
    return due, cards, counts


def test_switching_language_keeps_schedules_reviews_notes_and_flags(
    db_url: str, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDRILL_NOW", DAY5.isoformat())
    assert main(["--db", db_url, "import", *map(str, write_packs(tmp_path))]) == 0
    assert main(["--db", db_url, "--profile", "lan", "settings", "language", "en"]) == 0
    database = open_database(db_url)
    try:
        english = drill_all(database, DAY1)
        assert sorted(english.values())[:2] == [
            ("course", "c0", "What is 0?"),
            ("course", "c0/follow-up", "Why?"),
        ]
        assert len(english) == 5
        session = DrillSession.open(database, profile="lan", now=DAY5, pack="course", cram=True)
        assert session.current is not None and session.current.key == "c0"
        session.set_note("nhớ K và V")
    finally:
        database.close()
    # An edition's reference names its original's card.
    assert main(["--db", db_url, "--profile", "lan", "flag", "course-vi/c1", "red"]) == 0
    before = what_the_learner_sees(db_url, capsys, DAY5)
    assert before[1][2] == ("course/c1", before[1][2][1], 1, "red")

    assert main(["--db", db_url, "--profile", "lan", "settings", "language", "vi"]) == 0
    assert what_the_learner_sees(db_url, capsys, DAY5) == before
    database = open_database(db_url)
    try:
        vietnamese = drill_all(database, DAY5)
        # The same cards, due the same days, in the edition's words where it has them.
        assert vietnamese.keys() == english.keys()
        assert sorted(vietnamese.values()) == [
            ("course", "c0", "Đó là gì 0?"),
            ("course", "c0/follow-up", "Vì sao?"),
            ("course", "c1", "Đó là gì 1?"),
            ("course", "c2", "Đó là gì 2?"),
            ("solo", "c9", "Alone 9?"),  # no edition: the English text
        ]
        session = DrillSession.open(database, profile="lan", now=DAY5, pack="course", cram=True)
        assert session.current is not None and session.current.note == "nhớ K và V"
    finally:
        database.close()
    after = what_the_learner_sees(db_url, capsys, DAY5)

    assert main(["--db", db_url, "--profile", "lan", "settings", "language", "en"]) == 0
    assert what_the_learner_sees(db_url, capsys, DAY5) == after
    assert [reviews for _, _, reviews, _ in after[1]] == [2] * 5  # one per language, one card


def test_the_history_of_the_old_vietnamese_packs_moves_onto_the_english_cards(
    tmp_path: Path,
) -> None:
    """Before editions, memory-and-capacity-vi's cards had schedules of their own; upgrading
    moves them (and the reviews, notes, flags) onto the English cards of the same ids."""
    import sqlite3

    from test_db import build_at_revision

    path = tmp_path / "old.db"
    build_at_revision(path, "0012")
    pack = (
        "INSERT INTO packs (id, key, title, version, lang, description, lessons, tags,"
        " source_path, content_hash, bundled, imported_at)"
        " VALUES (?, ?, 'P', '1', ?, '', '[]', '[]', '', '', 1, '2026-01-01 00:00:00')"
    )
    card = (
        "INSERT INTO cards (id, pack_id, key, kind, title, prompt, answer, key_numbers, tip,"
        " choices, explanation, related, source_line, position, tags, lessons, content_hash,"
        " retired) VALUES (?, ?, ?, 'recall', 'T', 'Q', 'A', '[]', '', '[]', '', '[]', 1, ?,"
        " '[]', '[]', '', 0)"
    )
    state = (
        "INSERT INTO card_states (profile_id, card_id, repetitions, easiness_milli,"
        " interval_days, due_day, lapses, reviews, last_review_at, suspended, leech)"
        " VALUES (1, ?, 1, 2500, ?, ?, 0, 1, ?, 0, 0)"
    )
    review = (
        "INSERT INTO review_log (profile_id, card_id, reviewed_at, study_day, quality, seconds,"
        " graded_by, moved_schedule) VALUES (1, ?, ?, ?, 4, 10, 'self', 1)"
    )
    with sqlite3.connect(path) as raw:
        raw.execute(
            "INSERT INTO profiles (id, name, created_at, new_per_day, reviews_per_day,"
            " rollover_hour, answer_seconds, theme, options)"
            " VALUES (1, 'ana', '2026-01-01 00:00:00', 10, 100, 4, 60, 'dark', '{}')"
        )
        raw.execute(pack, (1, "memory-and-capacity", "en"))
        raw.execute(pack, (2, "memory-and-capacity-vi", "vi"))
        for card_id, pack_id, key in ((1, 1, "a"), (2, 1, "b"), (3, 2, "a"), (4, 2, "b")):
            raw.execute(card, (card_id, pack_id, key, card_id))
            raw.execute(
                "INSERT INTO card_topics (card_id, kind, value) VALUES (?, 'pack', ?)",
                (card_id, ["memory-and-capacity", "memory-and-capacity-vi"][pack_id - 1]),
            )
        # a: studied in Vietnamese only; b: in both, last in Vietnamese.
        raw.execute(state, (3, 9, "2026-02-10", "2026-02-01 09:00:00"))
        raw.execute(state, (2, 3, "2026-01-04", "2026-01-01 09:00:00"))
        raw.execute(state, (4, 6, "2026-02-11", "2026-02-05 09:00:00"))
        raw.execute(review, (3, "2026-02-01 09:00:00", "2026-02-01"))
        raw.execute(review, (2, "2026-01-01 09:00:00", "2026-01-01"))
        raw.execute(review, (4, "2026-02-05 09:00:00", "2026-02-05"))
        note = "INSERT INTO notes VALUES (1, ?, ?, '2026-02-01 09:00:00')"
        raw.executemany(note, [(3, "nhớ K và V"), (2, "b in English"), (4, "b tiếng Việt")])
        raw.execute("INSERT INTO card_flags VALUES (1, 3, 'red')")
    raw.close()

    open_database(f"sqlite:///{path}").close()

    with sqlite3.connect(path) as raw:
        editions = raw.execute("SELECT key, edition_of FROM packs ORDER BY id").fetchall()
        states = raw.execute(
            "SELECT card_id, interval_days, due_day FROM card_states ORDER BY card_id"
        ).fetchall()
        reviews = raw.execute(
            "SELECT card_id, COUNT(*) FROM review_log GROUP BY card_id ORDER BY card_id"
        ).fetchall()
        notes = raw.execute("SELECT card_id, text FROM notes ORDER BY card_id").fetchall()
        flags = raw.execute("SELECT card_id, colour FROM card_flags").fetchall()
        topics = raw.execute("SELECT DISTINCT card_id FROM card_topics ORDER BY 1").fetchall()
        rolled = raw.execute(
            "SELECT value, SUM(reviews) FROM topic_days GROUP BY value ORDER BY value"
        ).fetchall()
    raw.close()
    assert editions == [
        ("memory-and-capacity", None),
        ("memory-and-capacity-vi", "memory-and-capacity"),
    ]
    assert states == [(1, 9, "2026-02-10"), (2, 6, "2026-02-11")]  # the later review kept
    assert reviews == [(1, 1), (2, 2)]
    assert notes == [(1, "nhớ K và V"), (2, "b in English\n\nb tiếng Việt")]
    assert flags == [(1, "red")]
    assert topics == [(1,), (2,)]
    # The stats rollups follow: every review counts for the English pack.
    assert [(value, total) for value, total in rolled if total] == [("memory-and-capacity", 3)]


def test_the_browser_shows_the_editions_titles_and_prompt_in_its_language(
    db_url: str, tmp_path: Path, capsys
) -> None:
    from kvdrill.app.services.language import use_language

    paths = write_packs(tmp_path)
    edition = paths[1]
    edition.write_text(edition.read_text(encoding="utf-8").replace("## Card", "## Thẻ"), "utf-8")
    assert main(["--db", db_url, "import", *map(str, paths)]) == 0

    def listed() -> dict[str, str]:
        capsys.readouterr()
        assert main(["--db", db_url, "--profile", "lan", "cards", "--json"]) == 0
        return {card["card"]: card["title"] for card in json.loads(capsys.readouterr().out)}

    try:
        assert listed()["course/c1"] == "Card 1"
        assert main(["--db", db_url, "--profile", "lan", "settings", "language", "vi"]) == 0
        titles = listed()
        assert titles["course/c1"] == "Thẻ 1" and titles["solo/c9"] == "Card 9"
        capsys.readouterr()
        assert main(["--db", db_url, "--profile", "lan", "cards", "course/c1"]) == 0
        page = capsys.readouterr().out
        assert "course/c1  Thẻ 1" in page and "Đó là gì 1?" in page, page
    finally:
        use_language("en")
