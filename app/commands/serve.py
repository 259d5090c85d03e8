"""``kvdrill serve``: the full-screen app in a web browser, through textual-serve.

textual-serve runs one ``kvdrill`` process per browser tab with Textual's web driver
(``TEXTUAL_DRIVER``), so that process has no terminal and must not ask for one (see
``drill.launch_tui``). The database URL goes to those processes in ``$KVDRILL_DB``, not on their
command line, where ``ps`` would show a password. What the server accepts (its own page only)
and how much a tab may take are in app/web_server.py.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import socket
import sys

from kvdrill.i18n import _

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_TABS = 8
WILDCARD_HOSTS = ("0.0.0.0", "::", "[::]", "")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help=_("serve the full-screen app to a web browser (needs kvdrill[serve])"),
        description=_(
            "Serve the full-screen app over HTTP: open the printed address in a browser. "
            "Every tab runs its own app on the same database and profile."
        ),
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=_("address to listen on (default {host})").format(host=DEFAULT_HOST),
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=_("port (default {port})").format(port=DEFAULT_PORT),
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help=_(
            "the address browsers open, when it is not http://HOST:PORT (a proxy's, e.g. "
            "https://drill.example.org): the page's websocket goes there, and only a page from "
            "there may connect"
        ),
    )
    parser.add_argument(
        "--max-tabs",
        type=int,
        default=DEFAULT_MAX_TABS,
        metavar="N",
        help=_("browser tabs (one app process each) open at a time (default {count})").format(
            count=DEFAULT_MAX_TABS
        ),
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
        raise UserError(_("--port takes a port number from 1 to 65535"))
    if not 1 <= args.max_tabs <= 1000:
        raise UserError(_("--max-tabs takes a number of tabs from 1 to 1000"))
    public_url = _public_url(args.public_url, args.host, args.port)
    try:
        from kvdrill.app.web_server import KvdrillServer, bind
    except ImportError:
        raise UserError(
            _("kvdrill serve needs textual-serve: pip install 'kvdrill[serve]'")
        ) from None
    try:
        listening = bind(args.host, args.port)
    except (OSError, UnicodeError) as exc:  # the port is taken, the address not this machine's
        reason = getattr(exc, "strerror", None) or _("not a host name or address")
        raise UserError(
            _("cannot serve on {address}: {reason}").format(
                address=f"{args.host[:80]}:{args.port}", reason=reason
            )
        ) from None
    if not is_loopback(args.host):
        print(
            "kvdrill: "
            + _(
                "warning: serving on {host}, not loopback: anyone who can reach this machine can "
                "drill, and change, this database; there is no login"
            ).format(host=args.host),
            file=sys.stderr,
        )
    if args.db:
        from kvdrill.app.services.environment import export_database_url

        export_database_url(args.db)
    command = shlex.join([sys.executable, "-m", "kvdrill.app", "--profile", args.profile])
    KvdrillServer(command, listening, public_url, args.max_tabs).serve()
    return 0


def _public_url(given: str | None, host: str, port: int) -> str:
    """The address of the served page: ``--public-url``, else http://HOST:PORT (this machine's
    name for a wildcard address, which no browser can open)."""
    from urllib.parse import urlsplit

    from kvdrill.engine.errors import UserError

    if given is not None:
        parts = urlsplit(given)
        if parts.scheme not in ("http", "https") or not parts.hostname or len(given) > 2000:
            raise UserError(
                _(
                    "--public-url takes an http:// or https:// address, like https://drill.example.org"
                )
            )
        return given.rstrip("/")
    if host in WILDCARD_HOSTS:
        host = socket.gethostname()
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"
