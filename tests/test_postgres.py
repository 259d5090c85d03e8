"""PostgreSQL as a user meets it, on a real server (tests/postgres_server.py): migrations, the
stats rollups, the command line, and passwords kept out of every message."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import date, datetime

import pytest
from sqlalchemy import create_engine, func, insert, select, text
from stats_helpers import build_report

from kvdrill.engine.errors import UserError
from kvdrill.store.db import HEAD_REVISION, open_database
from kvdrill.store.migrate import MIGRATIONS_DIR
from kvdrill.store.models import Base, Card, CardState, CardTopic, Pack, Profile, ReviewLog

LEARNER = "learner"
TODAY = date(2026, 3, 10)


def migrate_to(url: str, revision: str) -> None:
    """The database as an older kvdrill left it."""
    from alembic import command
    from alembic.config import Config

    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    engine.dispose()


def add_reviewed_card(session, profile_name: str = "ana", tag: str = "kv") -> None:
    """One card tagged ``tag``, answered twice today by ``profile_name``."""
    now = datetime(2026, 3, 10, 9)
    profile = session.scalar(select(Profile).where(Profile.name == profile_name))
    if profile is None:
        profile = Profile(name=profile_name, created_at=now)
        session.add(profile)
    session.flush()
    # Core statements naming their columns, as below: packs gained a column after 0004 too.
    pack_id = session.scalar(select(Pack.id).where(Pack.key == "p1"))
    if pack_id is None:
        pack_id = session.execute(
            insert(Pack)
            .values(
                key="p1",
                title="P1",
                version="1",
                imported_at=now,
                lang="en",
                description="",
                lessons=[],
                tags=[],
                source_path="",
                content_hash="",
                bundled=False,
            )
            .returning(Pack.id)
        ).scalar_one()
    card = Card(pack_id=pack_id, key=f"c-{tag}", kind="recall", title=tag, tags=[tag])
    session.add(card)
    session.flush()
    session.add_all(
        [
            CardTopic(card_id=card.id, kind="pack", value="p1"),
            CardTopic(card_id=card.id, kind="tag", value=tag),
        ]
    )
    # Core inserts name only these columns, so they also work on a schema migrated to an older
    # revision than the models (review_log and card_states gained columns after 0004).
    session.execute(
        insert(CardState).values(profile_id=profile.id, card_id=card.id, reviews=2, due_day=TODAY)
    )
    for quality, moved in ((1, True), (4, False)):
        session.execute(
            insert(ReviewLog).values(
                profile_id=profile.id,
                card_id=card.id,
                reviewed_at=now,
                study_day=TODAY,
                quality=quality,
                seconds=5.0,
                graded_by="self",
                moved_schedule=moved,
            )
        )


def test_a_new_database_is_migrated_to_head_and_matches_the_models(postgres_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    database = open_database(postgres_url)
    with database.engine.connect() as connection:
        revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        assert revision == HEAD_REVISION
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    database.close()


def test_a_database_migrated_before_the_triggers_gets_its_rollups_built(postgres_url: str) -> None:
    """0003 made the rollup tables on PostgreSQL but nothing kept them: 0005 fills them."""
    migrate_to(postgres_url, "0004")
    engine = create_engine(postgres_url)
    from sqlalchemy.orm import Session

    with Session(engine) as session:
        add_reviewed_card(session)
        session.commit()
        assert session.execute(text("SELECT count(*) FROM topic_days")).scalar() == 0
    engine.dispose()

    database = open_database(postgres_url)
    with database.session() as session:
        profile = session.scalar(select(Profile))
        by_rollup = build_report(session, profile, TODAY, 30, use_rollups=True)
        by_join = build_report(session, profile, TODAY, 30, use_rollups=False)
        assert by_rollup == by_join and by_rollup.total_reviews == 2
        # The triggers keep them from here on.
        add_reviewed_card(session, tag="weights")
        session.flush()
        assert build_report(session, profile, TODAY, 30, use_rollups=True).total_reviews == 4
    database.close()


def test_downgrading_removes_the_triggers(postgres_url: str) -> None:
    from alembic import command
    from alembic.config import Config

    open_database(postgres_url).close()
    engine = create_engine(postgres_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0004")
    with engine.connect() as connection:
        triggers = connection.execute(
            text("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'rollup_%'")
        ).scalar()
    engine.dispose()
    assert triggers == 0


def test_three_processes_opening_a_new_database_at_once_migrate_it_once(
    postgres_url: str,
) -> None:
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            open_database(postgres_url).close()
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    engine = create_engine(postgres_url)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
            (HEAD_REVISION,)
        ]
    engine.dispose()


def test_a_database_from_a_newer_kvdrill_is_refused(postgres_url: str) -> None:
    open_database(postgres_url).close()
    engine = create_engine(postgres_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(UserError, match="newer kvdrill"):
        open_database(postgres_url)


def test_a_wrong_password_is_one_line_without_the_password(postgres_cluster) -> None:
    from postgres_server import LEARNER_PASSWORD

    postgres_cluster.admin(f"CREATE DATABASE learners OWNER {LEARNER}")
    good = postgres_cluster.url("learners", LEARNER, LEARNER_PASSWORD)
    open_database(good).close()  # the right password works
    bad = postgres_cluster.url("learners", LEARNER, "Wr0ng-pw-123")
    with pytest.raises(UserError) as caught:
        open_database(bad)
    message = str(caught.value)
    assert "password authentication failed" in message
    assert "Wr0ng-pw-123" not in message and f"{LEARNER}:***@" in message


def test_an_unreachable_server_and_a_bad_url_never_show_the_password(tmp_path) -> None:
    unreachable = f"postgresql+psycopg://ana:Hunter2-x@/kvdrill?host={tmp_path}"  # no socket
    with pytest.raises(UserError) as caught:
        open_database(unreachable)
    assert "Hunter2-x" not in str(caught.value) and "ana:***@" in str(caught.value)
    with pytest.raises(UserError) as caught:
        open_database("postgresql+nodriver://ana:Hunter2-x@localhost/kvdrill")
    assert "Hunter2-x" not in str(caught.value)


def test_the_command_line_imports_drills_and_reports_stats_on_postgresql(
    postgres_url: str, tmp_path
) -> None:
    """``kvdrill --db postgresql+psycopg://...`` end to end: bundled import, a plain drill, stats."""

    def kvdrill(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "kvdrill.app", "--db", postgres_url, *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            env={"KVDRILL_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
        )

    drilled = kvdrill("drill", "--plain", "--limit", "1", stdin="\n4\n")
    assert drilled.returncode == 0, drilled.stderr
    stats = kvdrill("stats", "--json")
    assert stats.returncode == 0, stats.stderr
    import json

    assert json.loads(stats.stdout)["total_reviews"] == 1
    database = open_database(postgres_url)
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(ReviewLog)) == 1
        assert (
            session.execute(
                text("SELECT sum(reviews) FROM topic_days WHERE kind = 'pack'")
            ).scalar()
            == 1
        )
    database.close()


def test_store_sql_text_keeps_percent_signs_colons_and_casts_on_postgresql(postgres_url) -> None:
    """The store's ``:name`` statements run on psycopg's own cursor (store/db.py
    ``AlchemySql``): a ``%`` in a pattern, a colon in a literal and a ``::`` cast are the
    statement's, not parameters; a wrong statement is SQLAlchemy's error, and the transaction
    it broke is rolled back, not half-written."""
    from sqlalchemy.exc import ProgrammingError

    database = open_database(postgres_url)
    try:
        from kvdrill.store.profiles import get_or_create_profile

        with database.session() as session:
            for name in ("fifty", "ten", "other"):
                get_or_create_profile(session, name, datetime(2026, 3, 10, 9))
        renames = {"fifty": "50%-off", "ten": "ten:30"}  # names no learner could type
        database.write(
            lambda sql: [
                sql.run(
                    "UPDATE profiles SET name = :new WHERE name = :old", {"new": new, "old": old}
                )
                for old, new in renames.items()
            ],
            "locked",
        )
        found = database.read(
            lambda sql: sql.rows(
                "SELECT name, '10:30'::text, 7 % 4 FROM profiles "
                "WHERE name LIKE '%\\%%' ESCAPE '\\' OR name = :colon ORDER BY name",
                {"colon": "ten:30"},
            )
        )
        assert [tuple(row) for row in found] == [("50%-off", "10:30", 3), ("ten:30", "10:30", 3)]

        def half_written(sql) -> None:
            sql.run("DELETE FROM profiles WHERE name = :name", {"name": "other"})
            sql.run("SELECT no_such_column FROM profiles")

        with pytest.raises(ProgrammingError, match="no_such_column"):
            database.write(half_written, "locked")
        assert database.read(lambda sql: sql.first("SELECT count(*) FROM profiles"))[0] == 3
    finally:
        database.close()
