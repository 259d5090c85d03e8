"""What ``kvdrill serve`` accepts and how much a tab may take: a websocket only from the server's
own page (any other page open in the learner's browser could otherwise read the screen and type
keys), terminal sizes bounded, a bounded number of tabs, each app's memory bounded, and the
server answering throughout. A real server on a loopback port, real app processes, aiohttp's
client speaking to it as a browser tab would.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from serve_helpers import stop_server

aiohttp = pytest.importorskip("aiohttp", reason="textual-serve (and aiohttp) is not installed")
pytest.importorskip("textual_serve", reason="textual-serve is not installed")

HOST = "127.0.0.1"
START_S = 60
GIB = 1024**3


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


@contextmanager
def serving(tmp_path: Path, *options: str) -> Iterator[tuple[int, int]]:
    """``kvdrill serve`` on a free loopback port, a database with the bundled packs: its port
    and its process id."""
    from kvdrill.app.cli import main

    env = {**os.environ, "KVDRILL_DATA_DIR": str(tmp_path / "data")}
    # The first start, in this process (its parse of the bundled decks is shared by the run's
    # tests): the served apps find the bundled packs stored and import nothing.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KVDRILL_DATA_DIR", env["KVDRILL_DATA_DIR"])
        assert main(["stats"]) == 0
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "kvdrill.app", "serve", "--port", str(port), *options],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=open(tmp_path / "serve.log", "w"),  # noqa: SIM115 - closed with the process
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + START_S
        while server.poll() is None and time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex((HOST, port)) == 0:
                    break
            time.sleep(0.1)
        assert server.poll() is None, (tmp_path / "serve.log").read_text()
        yield port, server.pid
    finally:
        stop_server(server)
        for app in app_processes(server.pid):  # an app still stopping
            os.kill(app, signal.SIGKILL)


def app_processes(server: int) -> list[int]:
    """The app processes the server ``server`` runs: kvdrill processes in its session started
    by textual-serve."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            command = (entry / "cmdline").read_bytes().split(b"\0")
            session = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[3])
        except (OSError, IndexError, ValueError):
            continue
        if (
            session == server
            and b"TEXTUAL_DRIVER=textual.drivers.web_driver:WebDriver" in environ
            and (b"kvdrill.app" in command)
        ):
            found.append(int(entry.name))
    return found


def environment_of(pid: int) -> dict[str, str]:
    pairs = (Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")).split("\0")
    return dict(pair.split("=", 1) for pair in pairs if "=" in pair)


def resident_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


async def first_bytes(websocket, seconds: float = 30) -> bytes:
    """The first screen data the app sends."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        message = await websocket.receive(timeout=deadline - time.monotonic())
        if message.type == aiohttp.WSMsgType.BINARY:
            return message.data
        assert message.type == aiohttp.WSMsgType.TEXT, message
    raise AssertionError("the app sent nothing")


async def page_answers(session, port: int) -> bool:
    async with session.get(f"http://{HOST}:{port}/", timeout=aiohttp.ClientTimeout(10)) as page:
        return page.status == 200


async def refused(session, url: str, **headers: str) -> int:
    with pytest.raises(aiohttp.WSServerHandshakeError) as refusal:
        await session.ws_connect(url, headers=headers)
    return refusal.value.status


def test_only_the_servers_own_page_may_open_a_websocket(tmp_path: Path) -> None:
    async def scenario(port: int, server: int) -> None:
        ws = f"ws://{HOST}:{port}/ws"
        async with aiohttp.ClientSession() as session:
            for origin in ("http://evil.example", f"http://{HOST}:{port + 1}", "null"):
                assert await refused(session, ws, Origin=origin) == 403
            assert await refused(session, ws) == 403  # no page at all
            assert app_processes(server) == []
            for origin in (f"http://{HOST}:{port}", f"http://localhost:{port}"):
                async with session.ws_connect(ws, headers={"Origin": origin}) as websocket:
                    assert await first_bytes(websocket)

    with serving(tmp_path) as (port, server):
        asyncio.run(scenario(port, server))


def test_behind_a_proxy_only_the_proxys_page_may_connect(tmp_path: Path) -> None:
    proxy = "https://drill.example.org"

    async def scenario(port: int, server: int) -> None:
        ws = f"ws://{HOST}:{port}/ws"
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://{HOST}:{port}/") as page:
                assert "wss://drill.example.org/ws" in await page.text()
            assert await refused(session, ws, Origin=f"http://{HOST}:{port}") == 403
            async with session.ws_connect(ws, headers={"Origin": proxy}) as websocket:
                assert await first_bytes(websocket)

    with serving(tmp_path, "--public-url", proxy) as (port, server):
        asyncio.run(scenario(port, server))


def test_huge_terminal_sizes_are_bounded_and_the_server_keeps_answering(tmp_path: Path) -> None:
    async def scenario(port: int, server: int) -> None:
        ws = f"ws://{HOST}:{port}/ws?width=20000&height=20000"
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(
                ws, headers={"Origin": f"http://{HOST}:{port}"}
            ) as websocket:
                await first_bytes(websocket)
                (app,) = app_processes(server)
                environment = environment_of(app)
                assert int(environment["COLUMNS"]) <= 500 and int(environment["ROWS"]) <= 200
                limits = Path(f"/proc/{app}/limits").read_text()
                address_space = next(
                    line for line in limits.splitlines() if "address space" in line
                )
                assert int(address_space.split()[3]) <= 4 * GIB
                await websocket.send_json(["resize", {"width": 10**9, "height": 10**9}])
                await websocket.send_json(["resize", {"width": "wide", "height": None}])
                await websocket.send_str("not json")
                await asyncio.sleep(3)
                assert await page_answers(session, port)
                assert resident_bytes(app) < GIB

    with serving(tmp_path) as (port, server):
        asyncio.run(scenario(port, server))


def test_tabs_beyond_the_limit_are_told_to_close_one(tmp_path: Path) -> None:
    async def scenario(port: int, server: int) -> None:
        ws, origin = f"ws://{HOST}:{port}/ws", {"Origin": f"http://{HOST}:{port}"}
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(ws, headers=origin) as first:
                await first_bytes(first)
                async with session.ws_connect(ws, headers=origin) as second:
                    message = await second.receive(timeout=10)
                    assert message.type == aiohttp.WSMsgType.CLOSE
                    assert "close one" in message.extra
                assert await page_answers(session, port)
                assert len(app_processes(server)) == 1
            deadline = time.monotonic() + 15
            while app_processes(server) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            async with session.ws_connect(ws, headers=origin) as third:
                assert await first_bytes(third)

    with serving(tmp_path, "--max-tabs", "1") as (port, server):
        asyncio.run(scenario(port, server))


def serve_refusal(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kvdrill.app", "serve", *options],
        env={**os.environ, "KVDRILL_DATA_DIR": str(tmp_path)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_taken_port_is_one_line_and_no_serving_banner(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind((HOST, 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve_refusal(tmp_path, "--port", str(port))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"kvdrill: cannot serve on 127.0.0.1:{port}: Address already in use\n"


@pytest.mark.parametrize(
    "options",
    [
        ("--host", "h" * 100_000),
        ("--host", "no-such-host.invalid"),
        ("--public-url", "javascript:alert(1)"),
        ("--max-tabs", "0"),
    ],
)
def test_a_bad_address_or_limit_is_one_line(tmp_path: Path, options: tuple[str, str]) -> None:
    result = serve_refusal(tmp_path, "--port", str(free_port()), *options)
    assert result.returncode == 1 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("kvdrill: ") and len(result.stderr) < 300
