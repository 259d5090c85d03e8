"""A real PostgreSQL 15 server for the tests, started once per test session (a pytest plugin).

``postgres_cluster`` runs ``initdb`` and ``pg_ctl`` from PostgreSQL's own binaries in a temporary
directory, listening only on a Unix socket in that directory, and tears the cluster down when the
session ends. ``initdb`` refuses to run as root, so under root the server runs as the
unprivileged ``postgres`` system user (``runuser``). Each test asks for a fresh database.

Where the binaries or psycopg are missing the tests say so and skip; with
``KVDRILL_REQUIRE_POSTGRES=1`` (set by .ci/run) they fail instead, so CI cannot pass by skipping.

Tests opt in to both backends with ``pytestmark = pytest.mark.both_backends``: their ``db_url``
is then a SQLite file in one run and a PostgreSQL database in the other.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("KVDRILL_PG_BIN", "/usr/lib/postgresql/15/bin"))
SERVER_USER = "postgres"  # the unprivileged system user the Debian package creates
SUPERUSER = "kvdrill"  # the cluster's superuser, trusted on the socket
LEARNER = "learner"  # a role that must give its password (for the masking tests)
LEARNER_PASSWORD = "s3cret-Pa55"
START_TIMEOUT_S = 60
BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "both_backends: run the module's db_url tests on SQLite and on PostgreSQL"
    )
    config.addinivalue_line(
        "markers", "sqlite_only: a test of SQLite's own behaviour in a both_backends module"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marked = metafunc.definition.get_closest_marker
    if "backend" in metafunc.fixturenames and marked("both_backends") and not marked("sqlite_only"):
        metafunc.parametrize("backend", BACKENDS, indirect=True)


def unavailable(reason: str) -> None:
    """Skip, or fail where PostgreSQL is required (CI)."""
    if os.environ.get("KVDRILL_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"PostgreSQL is required here but {reason}")
    pytest.skip(f"no PostgreSQL server for this test: {reason}")


@dataclass
class Cluster:
    directory: Path
    socket_dir: Path
    _names: Iterator[int]

    def url(self, database: str, user: str = SUPERUSER, password: str | None = None) -> str:
        auth = f"{user}:{password}" if password is not None else user
        return f"postgresql+psycopg://{auth}@/{database}?host={self.socket_dir}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(
            dbname="postgres", user=SUPERUSER, host=str(self.socket_dir), autocommit=True
        ) as connection:
            connection.execute(sql)

    _migrated_template: str | None = None

    def stop(self) -> None:
        """Stop the server as a crash or a restart would: every connection is cut."""
        _run_as_server_user(
            [str(PG_BIN / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "fast", "stop"]
        )

    def start(self) -> None:
        _start_server(self.directory, self.socket_dir)

    def remove(self) -> None:
        """Stop the server at once and delete its directory."""
        data = str(self.directory / "data")
        _run_as_server_user([str(PG_BIN / "pg_ctl"), "-D", data, "-m", "immediate", "stop"])
        shutil.rmtree(self.directory, ignore_errors=True)

    def new_database(self, template: str = "template1") -> str:
        """A new database, a copy of ``template`` (empty by default); its SQLAlchemy URL."""
        return self.url(self._create(template))

    def _create(self, template: str) -> str:
        name = f"kvdrill_test_{next(self._names)}"
        self.admin(f"CREATE DATABASE {name} TEMPLATE {template}")
        return name

    def new_migrated_database(self) -> str:
        """A new database already at the current schema: a copy of one migrated once per run,
        so only the tests of migrations pay for running them."""
        if self._migrated_template is None:
            from kvdrill.store.db import open_database

            name = self._create("template1")
            open_database(self.url(name)).close()
            self._migrated_template = name
        return self.new_database(self._migrated_template)


def _run_as_server_user(command: list[str], **options) -> subprocess.CompletedProcess:
    if os.geteuid() == 0:
        command = ["runuser", "-u", SERVER_USER, "--", *command]
    return subprocess.run(command, check=True, capture_output=True, text=True, **options)


def _start_server(directory: Path, socket_dir: Path) -> None:
    _run_as_server_user(
        [
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(directory / "data"),
            "-l",
            str(directory / "server.log"),
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "-o",
            f"-c listen_addresses='' -k {socket_dir} -F -c max_connections=60",
            "start",
        ]
    )


class ClusterUnavailable(Exception):
    """Why no server can start on this machine (binaries, psycopg or the server user missing)."""


def start_cluster() -> Cluster:
    """``initdb`` and a running server in a new temporary directory; ``Cluster.remove`` stops
    it and deletes the directory (scripts/bench_postgres.py starts its own this way)."""
    if not (PG_BIN / "initdb").exists():
        raise ClusterUnavailable(f"{PG_BIN}/initdb is missing (apt-get install postgresql-15)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise ClusterUnavailable(
            "psycopg is not installed (pip install 'kvdrill[postgres]')"
        ) from None
    if os.geteuid() == 0:
        try:
            server_user = pwd.getpwnam(SERVER_USER)
        except KeyError:
            raise ClusterUnavailable(
                f"running as root and there is no {SERVER_USER!r} user to run the server"
            ) from None
    # Not under pytest's tmp_path: its parents are private to root and the server user must
    # reach the socket and data directories.
    directory = Path(tempfile.mkdtemp(prefix="kvdrill-pg-"))
    data, socket_dir = directory / "data", directory / "run"
    socket_dir.mkdir()
    if os.geteuid() == 0:
        for path in (directory, socket_dir):
            os.chown(path, server_user.pw_uid, server_user.pw_gid)
    try:
        _run_as_server_user(
            [
                str(PG_BIN / "initdb"),
                "-D",
                str(data),
                "-U",
                SUPERUSER,
                "--auth-local=trust",
                "--auth-host=reject",
                "--encoding=UTF8",
                "--no-sync",
            ]
        )
        # The learner role must give its password even on the socket. Root may write the
        # server user's file; rewriting it keeps its owner.
        (data / "pg_hba.conf").write_text(
            f"local all {LEARNER} scram-sha-256\nlocal all all trust\n"
        )
        _start_server(directory, socket_dir)
    except subprocess.CalledProcessError as exc:
        log = directory / "server.log"
        detail = log.read_text() if log.exists() else ""
        shutil.rmtree(directory, ignore_errors=True)
        raise RuntimeError(
            f"starting PostgreSQL failed: {exc.stderr}{exc.stdout}{detail}"
        ) from None
    cluster = Cluster(directory=directory, socket_dir=socket_dir, _names=itertools.count(1))
    try:
        cluster.admin(f"CREATE ROLE {LEARNER} LOGIN PASSWORD '{LEARNER_PASSWORD}'")
    except BaseException:
        cluster.remove()
        raise
    return cluster


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    try:
        cluster = start_cluster()
    except ClusterUnavailable as exc:
        unavailable(str(exc))
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The database kind under test: SQLite unless the module runs on both backends."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> str:
    """A fresh, empty PostgreSQL database on the test cluster."""
    return postgres_cluster.new_database()


@pytest.fixture
def db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """SQLite: a file not created yet. PostgreSQL: a database at the current schema (its
    migrations are tested from empty in tests/test_postgres.py)."""
    if backend == "postgresql":
        return request.getfixturevalue("postgres_cluster").new_migrated_database()
    return f"sqlite:///{tmp_path / 'kvdrill.db'}"
