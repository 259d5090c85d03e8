"""``kvdrill serve``: the full-screen app in a web browser, through textual-serve.

textual-serve runs one ``kvdrill`` process per browser tab with Textual's web driver
(``TEXTUAL_DRIVER``), so that process has no terminal and must not ask for one (see
``drill.launch_tui``). The database URL goes to those processes in ``$KVDRILL_DB``, not on their
command line, where ``ps`` would show a password.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import sys

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the full-screen app to a web browser (needs kvdrill[serve])",
        description="Serve the full-screen app over HTTP: open the printed address in a browser. "
        "Every tab runs its own app on the same database and profile.",
    )
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})"
    )
    parser.set_defaults(func=run)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    from kvdrill.engine.errors import UserError

    if not 1 <= args.port <= 65535:
        raise UserError("--port takes a port number from 1 to 65535")
    try:
        from textual_serve.server import Server
    except ImportError:
        raise UserError("kvdrill serve needs textual-serve: pip install 'kvdrill[serve]'") from None
    if not is_loopback(args.host):
        print(
            f"kvdrill: warning: serving on {args.host}, not loopback: anyone who can reach this "
            "machine can drill, and change, this database; there is no login",
            file=sys.stderr,
        )
    if args.db:
        from kvdrill.app.services.environment import export_database_url

        export_database_url(args.db)
    command = shlex.join([sys.executable, "-m", "kvdrill.app", "--profile", args.profile])
    try:
        Server(command, host=args.host, port=args.port, title="kvdrill").serve()
    except OSError as exc:  # the port is taken, or the address is not this machine's
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise UserError(f"cannot serve on {args.host}:{args.port}: {reason}") from None
    return 0
