"""The textual-serve server ``kvdrill serve`` runs, with what a server reachable from a browser
needs and textual-serve leaves out:

- **Only its own page.** Any web page open in the learner's browser can open a websocket to
  ``ws://127.0.0.1:PORT/ws`` (binding to loopback does not stop a browser), so a websocket is
  accepted only with the ``Origin`` of the page this server serves: its public URL (for a
  loopback address also the other loopback names at the same port). Behind a proxy, the proxy's
  address is the public URL (``--public-url``) and so the one origin accepted.
- **Bounded sizes.** The terminal size a browser asks for, on connecting and in each resize, is
  clamped to ``MAX_COLUMNS`` x ``MAX_ROWS``: an app grows with its screen.
- **Bounded apps.** At most ``max_apps`` app processes at a time (a tab beyond that is told to
  close one), each with at most ``APP_MEMORY_BYTES`` of address space, so one tab cannot take
  the machine and the server goes on answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import signal
import socket
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

log = logging.getLogger("textual-serve")

MAX_COLUMNS = 500  # wider than a 4K screen at a small font
MAX_ROWS = 200
DEFAULT_MAX_APPS = 8
# Address space, not resident memory: a Textual app maps far more than it touches.
APP_MEMORY_BYTES = 2 * 1024**3
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# Close codes the browser's page is sent (4000-4999 are the application's own).
CLOSE_TOO_MANY_APPS = 4008


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A terminal size a browser asked for, as whole numbers within 1..MAX."""

    def bounded(value: object, default: int, most: int) -> int:
        number = value if isinstance(value, int) and not isinstance(value, bool) else default
        return max(1, min(number, most))

    return bounded(width, 80, MAX_COLUMNS), bounded(height, 24, MAX_ROWS)


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, as a browser writes it in an ``Origin`` header."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def allowed_origins(public_url: str) -> frozenset[str]:
    """The origins of the page this server serves at ``public_url``."""
    own = origin_of(public_url)
    parts = urlsplit(own)
    host = parts.hostname or ""
    if host in ("127.0.0.1", "localhost", "::1"):
        port = f":{parts.port}" if parts.port else ""
        return frozenset(f"{parts.scheme}://{name}{port}" for name in LOOPBACK_NAMES)
    return frozenset({own})


def _limit_memory() -> None:
    """Run in each app process before it starts: its address space is bounded."""
    resource.setrlimit(resource.RLIMIT_AS, (APP_MEMORY_BYTES, APP_MEMORY_BYTES))


class BoundedAppService(AppService):
    """One tab's app process, with its memory and terminal size bounded."""

    async def _open_app_process(self, width: int = 80, height: int = 24):
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_shell(
            self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            preexec_fn=_limit_memory,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def set_terminal_size(self, width: int, height: int) -> None:
        await super().set_terminal_size(*clamp_size(width, height))


class KvdrillServer(Server):
    """textual-serve's server, accepting only its own page, with bounded apps (see above)."""

    def __init__(self, command: str, listening: socket.socket, public_url: str, max_apps: int):
        host, port = listening.getsockname()[:2]
        super().__init__(command, host=host, port=port, title="kvdrill", public_url=public_url)
        self.listening = listening
        self.origins = allowed_origins(self.public_url)
        self.max_apps = max_apps
        self.apps = 0

    async def on_startup(self, app: web.Application) -> None:
        from kvdrill.i18n import _

        self.console.print(
            _("kvdrill: serving on {url} (Ctrl+C stops)").format(url=self.public_url)
        )

    def serve(self, debug: bool = False) -> None:
        """Serve on the socket already bound, until Ctrl+C or SIGTERM."""
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for stop in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(stop, self.request_exit)
        web.run_app(
            self._make_app(),
            sock=self.listening,
            handle_signals=False,
            loop=loop,
            print=lambda *args: None,
        )

    async def _process_messages(
        self, websocket: web.WebSocketResponse, app_service: AppService
    ) -> None:
        """The browser's messages to its app; anything malformed is ignored."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = message.json()
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await app_service.set_terminal_size(
                    *clamp_size(data.get("width"), data.get("height"))
                )
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A tab's websocket: refused unless it comes from this server's page and an app is
        free; else one app process for it, stopped when it closes."""
        origin = request.headers.get("Origin", "").lower()
        if origin not in self.origins:
            log.warning("refused a websocket from %s: not this server's page", origin or "no page")
            raise web.HTTPForbidden(text="only this server's own page may connect\n")
        websocket = web.WebSocketResponse(heartbeat=15)
        if self.apps >= self.max_apps:
            await websocket.prepare(request)
            await websocket.close(
                code=CLOSE_TOO_MANY_APPS,
                message=f"{self.max_apps} tabs are open already: close one".encode(),
            )
            return websocket
        width, height = clamp_size(
            to_int(request.query.get("width", "80"), 80),
            to_int(request.query.get("height", "24"), 24),
        )
        self.apps += 1
        app_service: BoundedAppService | None = None
        try:
            await websocket.prepare(request)
            app_service = BoundedAppService(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,  # type: ignore[arg-type]  # its result is not awaited for
                download_manager=self.download_manager,
                debug=self.debug,
            )
            await app_service.start(width, height)
            await self._process_messages(websocket, app_service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:
            log.exception(error)
        finally:
            self.apps -= 1
            if app_service is not None:
                with contextlib.suppress(Exception):
                    await app_service.stop()
        return websocket


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; OSError (or UnicodeError for a host name no
    resolver accepts) when it cannot be had."""
    family, kind, protocol, _name, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listening = socket.socket(family, kind, protocol)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind(address)
        listening.listen(128)
    except BaseException:
        listening.close()
        raise
    return listening
