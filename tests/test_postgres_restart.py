"""PostgreSQL stopped or restarted in the middle of a session, on the real server the test
session runs (tests/postgres_server.py): one clear line, a reconnect, the unconfirmed answer
saved once the server is back, nothing lost and nothing counted twice."""

from __future__ import annotations

import time
from datetime import datetime

import pytest
from sqlalchemy import func, select
from test_kill import PlainProcess

from kvdrill.app.services.importing import import_bundled
from kvdrill.store.db import open_database
from kvdrill.store.models import ReviewLog

PACK = "restart"
ANSWER = "\n4\n"


@pytest.fixture
def studied_pg(postgres_cluster, collection) -> str:
    url = postgres_cluster.new_migrated_database()
    database = open_database(url)
    with database.session() as session:
        collection.add_pack(session, PACK, collection.recall_cards(20))
    import_bundled(database, datetime(2026, 3, 10, 9))
    database.close()
    return url


def answers(url: str) -> int:
    database = open_database(url)
    try:
        with database.session() as session:
            return int(session.scalar(select(func.count()).select_from(ReviewLog)))
    finally:
        database.close()


def finish(drill: PlainProcess) -> tuple[int, str]:
    drill.send("q\n")
    code = drill.process.wait(timeout=60)
    drill.reader.join(timeout=30)
    assert drill.process.stderr is not None
    return code, drill.process.stderr.read().decode()


def test_a_restarted_server_is_reconnected_to_and_no_answer_is_lost(
    studied_pg: str, postgres_cluster
) -> None:
    drill = PlainProcess(studied_pg, "--pack", PACK)
    drill.wait_for_card(1)
    drill.send(ANSWER * 2)
    drill.wait_for_card(3)
    postgres_cluster.stop()
    postgres_cluster.start()
    drill.send(ANSWER * 3)
    drill.wait_for_card(6, timeout=60)
    code, stderr = finish(drill)
    assert code == 0 and "Traceback" not in stderr, stderr
    assert answers(studied_pg) == 5


def test_an_answer_given_while_the_server_is_down_is_saved_when_it_returns(
    studied_pg: str, postgres_cluster
) -> None:
    drill = PlainProcess(studied_pg, "--pack", PACK)
    drill.wait_for_card(1)
    drill.send(ANSWER)
    drill.wait_for_card(2)
    postgres_cluster.stop()
    try:
        drill.send(ANSWER)
        time.sleep(3)
        assert drill.process.poll() is None  # waiting for the server, not ended
        assert drill.cards_shown() == 2  # the answer is not confirmed yet
    finally:
        postgres_cluster.start()
    drill.wait_for_card(3, timeout=60)
    code, stderr = finish(drill)
    assert code == 0 and "Traceback" not in stderr, stderr
    assert stderr.count("\n") == 1 and "database server" in stderr, stderr
    assert answers(studied_pg) == 2
