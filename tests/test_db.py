"""Opening the database: where it lives, its pragmas, migrations, backups and refusals."""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from kvdrill.app.services.environment import database_url as resolve_url
from kvdrill.engine.errors import UserError
from kvdrill.store.db import HEAD_REVISION, open_database
from kvdrill.store.migrate import MIGRATIONS_DIR
from kvdrill.store.models import Base, Pack, Profile, Setting


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def build_at_revision(path: Path, revision: str) -> None:
    """A database as an older kvdrill left it: migrated only up to ``revision``."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    engine = create_engine(sqlite_url(path))
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    engine.dispose()


def test_default_database_lives_in_the_data_dir(tmp_path: Path) -> None:
    database = open_database(resolve_url(None), create_folder=True)
    assert database.path == tmp_path / "data" / "kvdrill.db"
    assert database.path.exists()


def test_url_precedence_is_flag_then_environment_then_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert resolve_url(None) == f"sqlite:///{tmp_path / 'data' / 'kvdrill.db'}"
    monkeypatch.setenv("KVDRILL_DB", "sqlite:///from-env.db")
    assert resolve_url(None) == "sqlite:///from-env.db"
    assert resolve_url("sqlite:///from-flag.db") == "sqlite:///from-flag.db"


def test_every_connection_has_wal_foreign_keys_and_a_busy_timeout(db_url: str) -> None:
    database = open_database(db_url)
    with database.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
        # FULL: each commit is flushed to disk, so a confirmed answer survives a power cut.
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2


def test_foreign_keys_are_enforced(db_url: str) -> None:
    database = open_database(db_url)
    with pytest.raises(Exception, match="FOREIGN KEY"), database.session() as session:
        session.execute(
            text(
                "INSERT INTO card_states (profile_id, card_id, repetitions, easiness_milli,"
                " interval_days, lapses, reviews, suspended, leech)"
                " VALUES (99, 99, 0, 2500, 0, 0, 0, 0, 0)"
            )
        )


def test_head_revision_constant_matches_the_migration_scripts() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    assert ScriptDirectory.from_config(config).get_heads() == [HEAD_REVISION]


def test_models_and_migrations_agree(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    database = open_database(db_url)
    with database.engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []


def test_an_older_database_is_upgraded_with_data_kept_and_a_backup_beside_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    build_at_revision(path, "0001")
    with sqlite3.connect(path) as raw:
        raw.execute(
            "INSERT INTO profiles (name, created_at, new_per_day, reviews_per_day,"
            " rollover_hour, answer_seconds, theme)"
            " VALUES ('ana', '2026-01-01 00:00:00', 7, 100, 4, 60, 'dark')"
        )
    raw.close()

    database = open_database(sqlite_url(path))

    with database.session() as session:
        profile = session.scalars(select(Profile)).one()
        assert (profile.name, profile.new_per_day) == ("ana", 7)
        session.add(Setting(key="probe", value="the new table works"))
    backups = sorted(tmp_path.glob("old.db.bak-0001-*"))
    assert len(backups) == 1
    with sqlite3.connect(backups[0]) as copy:
        assert copy.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
        assert copy.execute("SELECT name FROM profiles").fetchall() == [("ana",)]
    copy.close()


def test_an_up_to_date_database_gets_no_backup(db_url: str, tmp_path: Path) -> None:
    open_database(db_url).close()
    open_database(db_url).close()
    assert list(tmp_path.glob("*.bak-*")) == []


def test_a_database_from_a_newer_kvdrill_is_refused_and_left_alone(db_url: str) -> None:
    database = open_database(db_url)
    with database.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    database.close()
    path = Path(db_url.removeprefix("sqlite:///"))
    before = path.read_bytes()

    with pytest.raises(UserError, match="newer kvdrill") as caught:
        open_database(db_url)
    assert "\n" not in str(caught.value)
    assert path.read_bytes() == before
    assert list(path.parent.glob("*.bak-*")) == []


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 20)
    with pytest.raises(UserError, match="is not a SQLite database"):
        open_database(sqlite_url(path))
    assert path.read_text() == "these are my notes, not a database\n" * 20


def test_another_programs_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE recipes (name TEXT)")
    raw.close()
    with pytest.raises(UserError, match="not a kvdrill database"):
        open_database(sqlite_url(path))


def test_a_bad_url_is_one_clear_error() -> None:
    with pytest.raises(UserError, match="not a database URL"):
        open_database("no such thing")


def test_two_databases_on_one_file_write_at_once_without_crashing(db_url: str) -> None:
    first = open_database(db_url)
    second = open_database(db_url)
    errors: list[BaseException] = []

    def write_packs(database, prefix: str) -> None:
        try:
            for index in range(40):
                with database.session() as session:
                    session.add(
                        Pack(
                            key=f"{prefix}-{index}",
                            title="t",
                            version="1",
                            imported_at=datetime(2026, 1, 1),
                        )
                    )
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [
        threading.Thread(target=write_packs, args=(first, "a")),
        threading.Thread(target=write_packs, args=(second, "b")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    with first.session() as session:
        assert session.scalar(select(func.count()).select_from(Pack)) == 80


def test_session_rolls_back_on_error(db_url: str) -> None:
    database = open_database(db_url)
    with pytest.raises(RuntimeError), database.session() as session:
        session.add(Setting(key="half", value="done"))
        session.flush()
        raise RuntimeError("boom")
    with database.session() as session:
        assert session.get(Setting, "half") is None


def test_two_processes_opening_a_new_database_at_once_migrate_it_once(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "fresh.db")
    opened: list[object] = []
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            opened.append(open_database(url))
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    with sqlite3.connect(tmp_path / "fresh.db") as raw:
        assert raw.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (HEAD_REVISION,)
        ]
    raw.close()


def test_profiles_are_created_once_with_default_settings(db_url: str) -> None:
    from kvdrill.store.profiles import get_or_create_profile, profile_settings

    database = open_database(db_url)
    with database.session() as session:
        first = get_or_create_profile(session, "ana", datetime.now())
        assert profile_settings(first).new_per_day == 10
    with database.session() as session:
        assert get_or_create_profile(session, "ana", datetime.now()).id == first.id
        assert get_or_create_profile(session, "bo", datetime.now()).id != first.id


def test_profile_settings_are_checked_and_kept(db_url: str) -> None:
    from kvdrill.app.services.settings import change_settings, load_settings

    database = open_database(db_url)
    now = datetime.now()
    change_settings(database, "default", now, new_per_day=3, rollover_hour=6)
    settings = load_settings(database, "default", now)
    assert (settings.new_per_day, settings.rollover_hour) == (3, 6)
    with pytest.raises(UserError, match="rollover_hour .* from 0 to 23"):
        change_settings(database, "default", now, new_per_day=5, rollover_hour=24)
    assert load_settings(database, "default", now).new_per_day == 3  # nothing changed
    with pytest.raises(UserError, match="no profile setting 'colour'"):
        change_settings(database, "default", now, colour=1)


def test_a_strange_profile_name_is_refused(db_url: str) -> None:
    from kvdrill.store.profiles import get_or_create_profile

    database = open_database(db_url)
    with pytest.raises(UserError, match="not a usable profile name"), database.session() as s:
        get_or_create_profile(s, "../../etc", datetime.now())


def test_an_in_memory_database_is_the_same_in_every_thread() -> None:
    database = open_database("sqlite://")
    with database.session() as session:
        session.add(Setting(key="seen", value="yes"))
    found: list[object] = []
    thread = threading.Thread(
        target=lambda: found.append(database.sessionmaker().get(Setting, "seen"))
    )
    thread.start()
    thread.join()
    assert found and found[0] is not None


def test_opening_an_up_to_date_database_does_not_load_alembic(db_url: str) -> None:
    import subprocess
    import sys

    open_database(db_url).close()
    probe = (
        "import sys; from kvdrill.store.db import open_database; "
        f"open_database({db_url!r}); print('alembic' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("start", ["fresh", "upgraded from 0008"])
def test_a_cards_states_are_found_by_card_without_a_scan(tmp_path: Path, start: str) -> None:
    """Retiring or reviving a card, or changing a reviewed card's topics, has the stats
    triggers look up that card's states in every profile; without an index by card each
    lookup read the whole table (seconds for a few hundred cards of a big collection)."""
    path = tmp_path / "kvdrill.db"
    if start != "fresh":
        build_at_revision(path, "0008")
    open_database(sqlite_url(path)).close()
    with sqlite3.connect(path) as raw:
        plan = raw.execute(
            "EXPLAIN QUERY PLAN SELECT cs.profile_id, ct.kind FROM card_states AS cs "
            "JOIN card_topics AS ct ON ct.card_id = cs.card_id WHERE cs.card_id = 7"
        ).fetchall()
    raw.close()
    steps = [row[-1] for row in plan]
    assert any("cs USING" in step and "ix_card_states_card" in step for step in steps), steps
    assert not any(step.startswith("SCAN cs") for step in steps), steps
