"""``kvdrill settings``: show and change a profile's settings; the pack language filter."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.app.services.drill import DrillSession
from kvdrill.app.services.overview import load_overview
from kvdrill.engine.study.settings import ProfileSettings
from kvdrill.store.db import open_database

DAY1 = datetime(2026, 3, 10, 9, 0)
DAY2 = datetime(2026, 3, 11, 9, 0)


def write_pack(folder: Path, key: str, cards: int, lang: str | None = None) -> Path:
    front = f"---\npack: {key}\ntitle: Pack {key}\nversion: 1\n"
    front += f"lang: {lang}\n---\n" if lang else "---\n"
    body = "".join(
        f"\n## Card {n} of {key} {{#{key}-c{n}}}\n\n### Prompt\n\nWhat is {n} + {n}?\n\n"
        f"### Answer\n\n{2 * n}.\n"
        for n in range(cards)
    )
    path = folder / f"{key}.md"
    path.write_text(front + body, encoding="utf-8")
    return path


def settings_json(db_url: str, capsys, *argv: str) -> dict:
    """The profile's settings ``--json`` prints, less the packs' own (none set here)."""
    assert main(["--db", db_url, "settings", *argv, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown.pop("packs") == {}
    return shown


def test_settings_lists_every_setting_with_its_default(db_url: str, capsys) -> None:
    assert settings_json(db_url, capsys) == ProfileSettings().to_dict()
    assert main(["--db", db_url, "settings"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^new_per_day +10 ", out, re.M) and "a whole number from 0 to 1000" in out
    assert "language" in out and "one of en, vi" in out
    assert re.search(r"^scheduler +sm2 ", out, re.M) and "one of sm2, fsrs" in out
    assert re.search(r"^desired_retention +0.9 ", out, re.M) and "from 0.7 to 0.99" in out


def test_a_setting_changed_is_kept_for_that_profile_only(db_url: str, capsys) -> None:
    assert main(["--db", db_url, "--profile", "ana", "settings", "answer_seconds", "90"]) == 0
    assert capsys.readouterr().out == "answer_seconds = 90\n"
    assert settings_json(db_url, capsys, "--profile", "ana")["answer_seconds"] == 90
    assert settings_json(db_url, capsys)["answer_seconds"] == 60


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["new_per_day", "2000"], "new_per_day (new cards per day) must be a whole number from 0 to 1000"),
        (["rollover_hour", "4.5"], "must be a whole number from 0 to 23"),
        (["theme", "purple"], "theme (the colour theme) must be one of dark, light"),
        (["language", "fr"], "must be one of en, vi"),
        (["new_per_dy", "3"], "there is no profile setting 'new_per_dy' (did you mean 'new_per_day'?)"),
        (["theme"], "give a value too"),
    ],
)  # fmt: skip
def test_a_bad_setting_is_one_line_naming_what_is_allowed(
    db_url: str, capsys, argv: list[str], message: str
) -> None:
    assert main(["--db", db_url, "settings", *argv]) == 1
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and message in captured.err, captured.err
    assert settings_json(db_url, capsys) == ProfileSettings().to_dict()


def test_new_per_day_20_changes_what_tomorrows_drill_offers(
    db_url: str, tmp_path: Path, capsys
) -> None:
    assert main(["--db", db_url, "import", str(write_pack(tmp_path, "many", 40))]) == 0
    database = open_database(db_url)
    try:
        assert DrillSession.open(database, now=DAY2).remaining == 10  # the default
        capsys.readouterr()
        assert main(["--db", db_url, "settings", "new_per_day", "20"]) == 0
        assert DrillSession.open(database, now=DAY2).remaining == 20
    finally:
        database.close()


def test_a_profile_sees_the_packs_in_its_language_and_the_english_course(
    db_url: str, tmp_path: Path
) -> None:
    """At ``vi`` the English packs stay (in English where they have no edition); a pack in
    another language is offered only in it."""
    english = write_pack(tmp_path, "en-pack", 3)  # no lang: English
    vietnamese = write_pack(tmp_path, "vi-pack", 2, lang="vi")
    regional = write_pack(tmp_path, "vn-pack", 1, lang="vi-VN")
    assert main(["--db", db_url, "import", str(english), str(vietnamese), str(regional)]) == 0
    assert main(["--db", db_url, "--profile", "lan", "settings", "language", "vi"]) == 0
    database = open_database(db_url)
    try:

        def offered(profile: str) -> set[str]:
            session = DrillSession.open(database, profile=profile, now=DAY1)
            return {card.pack_key for card in _all_cards(session)}

        home = load_overview(database.read, "lan", DAY1)
        assert {line.key for line in home.packs} == {"en-pack", "vi-pack", "vn-pack"}
        assert home.new_today == 6
        assert offered("default") == {"en-pack"}
        assert offered("lan") == {"en-pack", "vi-pack", "vn-pack"}
        # A pack asked for by name is studied whatever its language.
        asked = DrillSession.open(database, profile="default", now=DAY1, pack="vi-pack")
        assert asked.current is not None and asked.current.pack_key == "vi-pack"
    finally:
        database.close()


def test_the_fast_start_reader_follows_the_language_too(db_url: str, tmp_path: Path) -> None:
    """The first card, read before SQLAlchemy loads, is the English card in its edition's
    Vietnamese text."""
    from kvdrill.store.fast_start import read_first_card

    edition = write_pack(tmp_path, "en-pack-vi", 2, lang="vi")
    text = edition.read_text(encoding="utf-8")
    text = text.replace("lang: vi\n", "lang: vi\nedition_of: en-pack\n")
    text = text.replace("{#en-pack-vi-c", "{#en-pack-c").replace("What is", "Bao nhiêu là")
    edition.write_text(text, encoding="utf-8")
    paths = [write_pack(tmp_path, "en-pack", 2), edition]
    assert main(["--db", db_url, "import", *map(str, paths)]) == 0
    assert main(["--db", db_url, "settings", "language", "en"]) == 0  # the profile is made
    english = read_first_card(db_url, "default", DAY1)
    assert main(["--db", db_url, "settings", "language", "vi"]) == 0
    state = read_first_card(db_url, "default", DAY1)
    assert state is not None and state.card is not None
    assert english is not None and english.card is not None
    assert (state.card.pack_key, state.card.card_id) == ("en-pack", english.card.card_id)
    assert "Bao nhiêu là 0 + 0?" in state.card.prompt
    assert "What is 0 + 0?" in english.card.prompt


def _all_cards(session: DrillSession) -> list:
    cards = []
    while (card := session.current) is not None:
        cards.append(card)
        session.grade(5)  # the packs here are recall cards only
    return cards


def test_a_setting_with_a_decimal_range_reads_and_bounds_a_number() -> None:
    """What a later setting such as a desired retention (0.70 to 0.99) gets from ``setting``."""
    from kvdrill.engine.errors import UserError
    from kvdrill.engine.study.settings import Setting

    rule = Setting("the retention to aim for", low=0.7, high=0.99)
    assert rule.parse("desired_retention", float, "0.9") == 0.9
    assert rule.check("desired_retention", float, 0.85) == 0.85
    for bad in ("0.5", "nan", "ninety", "1"):
        with pytest.raises(UserError, match="must be a number from 0.7 to 0.99"):
            rule.parse("desired_retention", float, bad)
