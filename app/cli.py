"""The ``kvdrill`` command line: parses arguments and hands off to one command module."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

from kvdrill import __version__
from kvdrill.app.commands import COMMAND_MODULES
from kvdrill.engine.errors import UserError


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line that says where help is, not a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="kvdrill",
        description="Drill the memory and capacity math of LLM inference serving.",
    )
    parser.add_argument("--version", action="version", version=f"kvdrill {__version__}")
    parser.add_argument(
        "--db",
        metavar="URL",
        help="SQLAlchemy database URL (default: $KVDRILL_DB, else SQLite in the user data dir)",
    )
    parser.add_argument(
        "--profile", default="default", help="learner profile: separate schedules and logs"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"kvdrill.app.commands.{name}")
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        # Plain ``kvdrill`` opens the home screen.
        from kvdrill.app.commands.drill import run_home

        func = run_home
    try:
        return int(func(args) or 0)
    except UserError as exc:
        # Messages can quote file names and pack text: escape what a terminal would act on.
        from kvdrill.engine.errors import printable

        lines = str(exc).split("\n")
        print(
            "\n".join(
                f"kvdrill: {printable(line)}" if i == 0 else printable(line)
                for i, line in enumerate(lines)
            ),
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
