"""``kvdrill import`` end to end: real pack files, the summary lines, dry runs, atomicity."""

from __future__ import annotations

import io
import os
import shutil
from datetime import date, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from kvdrill.app.cli import main
from kvdrill.app.commands.import_ import ProgressLine
from kvdrill.app.services.importing import BUNDLED_DECKS, bundled_pack_files, import_bundled
from kvdrill.app.services.pack_files import file_pack_id, parse_pack
from kvdrill.engine.errors import PackErrors
from kvdrill.store.db import open_database
from kvdrill.store.models import Card, CardState, Pack, ReviewLog, Setting
from kvdrill.store.profiles import get_or_create_profile

DECKS = Path(__file__).resolve().parent.parent / "decks"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def card_text(key: str, answer: str = "Two times layers times heads.") -> str:
    return f"## Card {key} {{#{key}}}\n\n### Prompt\n\nWhat is {key}?\n\n### Answer\n\n{answer}\n\n"


def write_pack(path: Path, pack: str, cards: dict[str, str]) -> Path:
    header = f"---\npack: {pack}\ntitle: {pack.title()}\nversion: 1\n---\n\n"
    body = "".join(card_text(key, answer) for key, answer in cards.items())
    path.write_text(header + body, encoding="utf-8")
    return path


def run(*argv: str) -> int:
    return main([*argv])


@pytest.fixture
def pack_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "packs"
    folder.mkdir()
    write_pack(folder / "alpha.md", "alpha", {"a1": "One.", "a2": "Two."})
    write_pack(folder / "beta.md", "beta", {"b1": "Three."})
    return folder


def counts(db_url: str) -> tuple[int, int]:
    database = open_database(db_url)
    with database.session() as session:
        packs = session.scalar(select(func.count()).select_from(Pack))
        cards = session.scalar(select(func.count()).select_from(Card))
    database.close()
    return packs, cards


def test_import_prints_one_line_per_pack(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--db", db_url, "import", str(pack_dir)) == 0
    assert capsys.readouterr().out.splitlines() == [
        "alpha: 2 added, 0 changed, 0 retired, 0 unchanged",
        "beta: 1 added, 0 changed, 0 retired, 0 unchanged",
    ]
    assert counts(db_url) == (2, 3)


def test_reimport_of_an_edited_file_keeps_history_and_retires_the_removed_card(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run("--db", db_url, "import", str(pack_dir / "alpha.md"))
    database = open_database(db_url)
    with database.session() as session:
        profile = get_or_create_profile(session, "default", datetime.now())
        card = session.scalars(select(Card).where(Card.key == "a1")).one()
        session.add(CardState(profile_id=profile.id, card_id=card.id, due_day=date(2026, 3, 2)))
        session.add(
            ReviewLog(
                profile_id=profile.id,
                card_id=card.id,
                reviewed_at=datetime(2026, 3, 1, 9),
                study_day=date(2026, 3, 1),
                quality=3,
                graded_by="self",
            )
        )
    capsys.readouterr()

    write_pack(pack_dir / "alpha.md", "alpha", {"a1": "One, said better."})
    assert run("--db", db_url, "import", str(pack_dir / "alpha.md")) == 0

    assert capsys.readouterr().out.splitlines() == [
        "alpha: 0 added, 1 changed, 1 retired, 0 unchanged"
    ]
    with database.session() as session:
        a1 = session.scalars(select(Card).where(Card.key == "a1")).one()
        a2 = session.scalars(select(Card).where(Card.key == "a2")).one()
        assert (a1.id, a1.answer.strip()) == (card.id, "One, said better.")
        assert session.get(CardState, (profile.id, card.id)) is not None
        assert session.scalar(select(func.count()).select_from(ReviewLog)) == 1
        assert a2.retired


def test_dry_run_shows_the_diff_and_writes_nothing(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run("--db", db_url, "import", str(pack_dir))
    write_pack(pack_dir / "alpha.md", "alpha", {"a1": "Changed.", "a3": "New."})
    db_file = Path(db_url.removeprefix("sqlite:///"))
    capsys.readouterr()

    assert run("--db", db_url, "import", "--dry-run", str(pack_dir)) == 0

    assert capsys.readouterr().out.splitlines() == [
        "alpha: 1 added, 1 changed, 1 retired, 0 unchanged",
        "  changed  Card a1",
        "  retired  Card a2",
        "beta: 0 added, 0 changed, 0 retired, 1 unchanged",
        "dry run: nothing written",
    ]
    database = open_database(db_url)
    with database.session() as session:
        keys = session.scalars(select(Card.key).where(~Card.retired).order_by(Card.key)).all()
        assert keys == ["a1", "a2", "b1"]
        assert "Changed." not in session.scalars(select(Card.answer)).all()
    assert db_file.exists()


def test_a_dry_run_names_long_changed_titles_within_80_columns(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    long_title = "Card a1, " + "the one whose title goes on and on " * 4
    text = card_text("a1", "One.").replace("## Card a1", f"## {long_title}")
    (pack_dir / "alpha.md").write_text(
        "---\npack: alpha\ntitle: Alpha\nversion: 1\n---\n\n" + text, encoding="utf-8"
    )
    run("--db", db_url, "import", str(pack_dir))
    (pack_dir / "alpha.md").write_text(
        "---\npack: alpha\ntitle: Alpha\nversion: 1\n---\n\n" + text.replace("One.", "1."),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert run("--db", db_url, "import", "--dry-run", str(pack_dir)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[1].startswith("  changed  Card a1, the one whose title")
    assert " ".join(" ".join(lines[1:-2]).split()).endswith(" ".join(long_title.split()))


def test_dry_run_does_not_create_a_missing_database(
    pack_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("import", "--dry-run", str(pack_dir)) == 0
    assert "alpha: 2 added" in capsys.readouterr().out
    assert not (tmp_path / "data").exists()


def test_one_bad_file_among_several_writes_nothing_and_says_where(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run("--db", db_url, "import", str(pack_dir))
    write_pack(pack_dir / "alpha.md", "alpha", {"a1": "Edited."})
    bad = pack_dir / "gamma.md"
    bad.write_text(
        "---\npack: gamma\ntitle: G\nversion: 1\n---\n\n## No id here\n\n### Prompt\n\nq\n",
        encoding="utf-8",
    )
    capsys.readouterr()

    assert run("--db", db_url, "import", str(pack_dir)) == 1

    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{bad}:7: " in captured.err
    assert "nothing imported" in captured.err
    database = open_database(db_url)
    with database.session() as session:
        a1 = session.scalars(select(Card).where(Card.key == "a1")).one()
        assert a1.answer.strip() == "One."
        assert session.scalar(select(func.count()).select_from(Card).where(Card.retired)) == 0
        assert session.scalars(select(Pack.key).order_by(Pack.key)).all() == ["alpha", "beta"]


def test_a_missing_path_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("import", str(tmp_path / "nope.md")) == 1
    assert "nope.md:1: no such file or directory" in capsys.readouterr().err


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_draws_on_a_terminal_for_several_files_only() -> None:
    terminal = FakeTerminal()
    progress = ProgressLine(terminal, files=5)
    progress.callback("importing")(2, 5)
    assert "2/5" in terminal.getvalue()
    progress.clear()
    assert terminal.getvalue().endswith("\r")

    quiet = FakeTerminal()
    ProgressLine(quiet, files=1).callback("importing")(1, 1)
    piped = io.StringIO()
    ProgressLine(piped, files=5).callback("importing")(1, 5)
    assert quiet.getvalue() == piped.getvalue() == ""


def test_bundled_decks_import_once_then_only_when_they_change(db_url: str, tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    shutil.copytree(DECKS, decks)
    database = open_database(db_url)

    first = import_bundled(database, datetime.now(), decks)
    assert first is not None and first.count("added") > 0
    assert import_bundled(database, datetime.now(), decks) is None

    with database.session() as session:
        card = session.scalars(select(Card).order_by(Card.id)).first()
        profile = get_or_create_profile(session, "default", datetime.now())
        session.add(CardState(profile_id=profile.id, card_id=card.id, due_day=date(2026, 3, 2)))
        total = session.scalar(select(func.count()).select_from(Card))
        assert all(session.scalars(select(Pack.bundled)))
        assert session.get(Setting, "bundled_decks_hash") is not None

    # A later release edits a deck: picked up, the rest unchanged, history kept.
    pack_file = next(path for path in sorted(decks.glob("*.md")) if path.name != "README.md")
    pack_file.write_text(pack_file.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    again = import_bundled(database, datetime.now(), decks)
    assert again is not None
    assert again.count("added") == again.count("retired") == 0
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Card)) == total
        assert session.get(CardState, (profile.id, card.id)) is not None


def test_bundled_decks_parse_cleanly() -> None:
    from kvdrill.app.services.importing import bundled_pack_files, load_packs

    files = bundled_pack_files()
    assert files, "no bundled decks found"
    assert len(load_packs(files)) == len(files)


def test_a_bundled_pack_dropped_by_a_release_is_retired(db_url: str, tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    shutil.copytree(DECKS, decks)
    database = open_database(db_url)
    import_bundled(database, datetime.now(), decks)
    dropped = sorted(path for path in decks.glob("*.md") if path.name != "README.md")[0]
    with database.session() as session:
        before = session.scalar(select(func.count()).select_from(Card).where(~Card.retired))
    dropped_cards = len(dropped.read_text(encoding="utf-8").split("\n## ")) - 1
    dropped.unlink()

    plan = import_bundled(database, datetime.now(), decks)

    assert plan is not None and plan.count("retired") >= dropped_cards
    with database.session() as session:
        after = session.scalar(select(func.count()).select_from(Card).where(~Card.retired))
    assert after == before - plan.count("retired")


def test_two_processes_starting_at_once_import_the_bundled_decks_once(db_url: str) -> None:
    import threading

    databases = [open_database(db_url), open_database(db_url)]
    results: list[object] = []
    errors: list[BaseException] = []

    def start(database) -> None:
        try:
            results.append(import_bundled(database, datetime.now()))
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(database,)) for database in databases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert sum(result is not None for result in results) == 1


def test_a_pack_with_a_bundled_packs_id_is_refused_and_nothing_is_written(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    write_pack(decks / "shipped.md", "memory-and-capacity", {"s1": "Shipped.", "s2": "Too."})
    database = open_database(db_url)
    import_bundled(database, datetime.now(), decks)
    database.close()
    mine = write_pack(tmp_path / "mine.md", "memory-and-capacity", {"m1": "Mine."})
    other = write_pack(tmp_path / "other.md", "other", {"o1": "Fine."})

    for dry_run in ([], ["--dry-run"]):
        assert run("--db", db_url, "import", *dry_run, str(mine), str(other)) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.splitlines() == [
            f"{mine}:1: pack id 'memory-and-capacity' belongs to a bundled pack; "
            "give your pack its own id",
            "kvdrill: nothing imported: 1 problem in 1 file",
        ]
    assert counts(db_url) == (1, 2)  # neither the bundled cards retired nor "other" stored
    database = open_database(db_url)
    with database.session() as session:
        assert not any(session.scalars(select(Card.retired)))
    database.close()


def test_a_learners_import_parses_no_bundled_deck_once_the_database_stored_them(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kvdrill.app.services.importing import unstored_bundled_keys

    decks = tmp_path / "decks"
    decks.mkdir()
    write_pack(decks / "shipped.md", "shipped-pack", {"s1": "Shipped."})
    database = open_database(db_url)
    # The files say:
    assert database.read(lambda sql: unstored_bundled_keys(sql, decks)) == {"shipped-pack"}
    import_bundled(database, datetime.now(), decks)

    def parse_pack(path):
        raise AssertionError(f"{path} was parsed again")

    monkeypatch.setattr("kvdrill.app.services.pack_files.parse_pack", parse_pack)
    # The packs table says:
    assert database.read(lambda sql: unstored_bundled_keys(sql, decks)) == frozenset()
    database.close()


# --- re-importing files stored before, byte for byte --------------------------------------------
# ``kvdrill import`` skips parsing a file whose sha256 and path match what the database stored;
# these pin that the skip never hides a change.


def imported(capsys: pytest.CaptureFixture[str], db_url: str, *paths: Path) -> list[str]:
    capsys.readouterr()
    assert main(["--db", db_url, "import", *map(str, paths)]) == 0
    return capsys.readouterr().out.splitlines()


def stored_cards(db_url: str) -> dict[str, tuple[int, str, bool]]:
    database = open_database(db_url)
    with database.session() as session:
        rows = session.execute(select(Card.key, Card.id, Card.answer, Card.retired)).all()
    database.close()
    return {key: (card_id, answer.strip(), retired) for key, card_id, answer, retired in rows}


def test_an_untouched_or_touched_file_reports_every_card_unchanged(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    imported(capsys, db_url, pack_dir)
    before = stored_cards(db_url)
    assert imported(capsys, db_url, pack_dir) == [
        "alpha: 0 added, 0 changed, 0 retired, 2 unchanged",
        "beta: 0 added, 0 changed, 0 retired, 1 unchanged",
    ]
    later = (pack_dir / "alpha.md").stat().st_mtime + 3600
    os.utime(pack_dir / "alpha.md", (later, later))  # touched, same bytes
    assert (
        imported(capsys, db_url, pack_dir)[0] == "alpha: 0 added, 0 changed, 0 retired, 2 unchanged"
    )
    assert stored_cards(db_url) == before


def test_an_edit_that_keeps_size_and_time_is_noticed(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    imported(capsys, db_url, pack_dir)
    pack = pack_dir / "alpha.md"
    times = (pack.stat().st_atime, pack.stat().st_mtime)
    size = pack.stat().st_size
    write_pack(pack, "alpha", {"a1": "Uno.", "a2": "Two."})  # same length as "One."
    os.utime(pack, times)
    assert pack.stat().st_size == size
    assert imported(capsys, db_url, pack) == ["alpha: 0 added, 1 changed, 0 retired, 1 unchanged"]
    assert stored_cards(db_url)["a1"][1] == "Uno."


def test_a_renamed_file_is_read_and_its_new_path_stored(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    imported(capsys, db_url, pack_dir)
    ids = stored_cards(db_url)
    (pack_dir / "alpha.md").rename(pack_dir / "gamma.md")
    assert imported(capsys, db_url, pack_dir) == [
        "beta: 0 added, 0 changed, 0 retired, 1 unchanged",
        "alpha: 0 added, 0 changed, 0 retired, 2 unchanged",
    ]
    database = open_database(db_url)
    with database.session() as session:
        path = session.scalar(select(Pack.source_path).where(Pack.key == "alpha"))
    database.close()
    assert path == str(pack_dir / "gamma.md")
    assert stored_cards(db_url) == ids


def test_a_changed_file_taking_a_skipped_files_id_is_refused(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    imported(capsys, db_url, pack_dir)
    write_pack(pack_dir / "alpha-copy.md", "alpha", {"a9": "Nine."})
    capsys.readouterr()
    assert main(["--db", db_url, "import", str(pack_dir)]) == 1
    error = capsys.readouterr().err
    assert 'pack id "alpha" is already used by' in error
    assert "a9" not in stored_cards(db_url)


def test_a_pack_stored_by_an_older_kvdrill_is_stored_again(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    imported(capsys, db_url, pack_dir)
    database = open_database(db_url)
    with database.session() as session:
        # As an older kvdrill left it: another pack hash, and a card it stored otherwise.
        session.execute(update(Pack).values(content_hash="0" * 64))
        session.execute(
            update(Card)
            .where(Card.key == "a1")
            .values(answer="stored otherwise", content_hash="1" * 64)
        )
    database.close()
    assert (
        imported(capsys, db_url, pack_dir)[0] == "alpha: 0 added, 1 changed, 0 retired, 1 unchanged"
    )
    assert stored_cards(db_url)["a1"][1] == "One."


def every_pack_file() -> list[Path]:
    return [*bundled_pack_files(BUNDLED_DECKS), *sorted(FIXTURES.rglob("*.md"))]


@pytest.mark.parametrize("path", every_pack_file(), ids=lambda path: path.name)
def test_the_front_matter_reader_finds_the_id_the_parser_finds(path: Path) -> None:
    try:
        expected = parse_pack(path).meta.pack
    except PackErrors:
        return  # a pack that does not parse has no id to agree on
    assert file_pack_id(path) == expected


def live_cards(db_url: str, pack: str) -> list[str]:
    database = open_database(db_url)
    with database.session() as session:
        keys = session.scalars(
            select(Card.key)
            .join(Pack, Pack.id == Card.pack_id)
            .where(Pack.key == pack, Card.retired.is_(False))
            .order_by(Card.key)
        ).all()
    database.close()
    return list(keys)


def test_a_pack_claiming_another_files_id_is_refused_unless_replace(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    first = write_pack(tmp_path / "a.md", "mine", {"one": "1", "two": "2"})
    second = write_pack(tmp_path / "b.md", "mine", {"three": "3"})
    assert run("--db", db_url, "import", str(first)) == 0
    capsys.readouterr()
    for options in ([], ["--dry-run"]):
        assert run("--db", db_url, "import", *options, str(second)) == 1
        err = capsys.readouterr().err
        assert err.startswith(
            f"{second}:1: pack id 'mine' is already used by {first}: give this pack "
            "its own id, or import it with --replace"
        ), err
    assert live_cards(db_url, "mine") == ["one", "two"]
    # The same file, named from another folder, is still the owner: no refusal.
    monkeypatch.chdir(tmp_path)
    assert run("--db", db_url, "import", "a.md") == 0
    assert run("--db", db_url, "import", "--replace", str(second)) == 0
    assert live_cards(db_url, "mine") == ["three"]
    assert "1 added, 0 changed, 2 retired" in capsys.readouterr().out


def test_import_speaks_the_profiles_language(
    pack_dir: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``language vi``: one Vietnamese line per pack, its id as typed; a dry run says so too."""
    from kvdrill.app.services.language import use_language

    try:
        assert run("--db", db_url, "settings", "language", "vi") == 0
        capsys.readouterr()
        assert run("--db", db_url, "import", "--dry-run", str(pack_dir)) == 0
        assert capsys.readouterr().out.splitlines() == [
            "alpha: thêm 2, đổi 0, bỏ 0, giữ nguyên 0",
            "beta: thêm 1, đổi 0, bỏ 0, giữ nguyên 0",
            "chạy thử: không ghi gì",
        ]
        assert run("--db", db_url, "settings", "language", "en") == 0
        capsys.readouterr()
        assert run("--db", db_url, "import", str(pack_dir)) == 0
        assert capsys.readouterr().out.splitlines()[0] == (
            "alpha: 2 added, 0 changed, 0 retired, 0 unchanged"
        )
    finally:
        use_language("en")
