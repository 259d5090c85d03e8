"""The ``kvdrill`` command line: parses arguments and hands off to one command module."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Mapping
from typing import NoReturn

from kvdrill.app.commands import COMMAND_MODULES
from kvdrill.app.error_line import error_line
from kvdrill.app.services import environment
from kvdrill.app.services.language import use_profile_language
from kvdrill.engine.capacity.units import shorten
from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.i18n import N_, _, ngettext

# After "argument" in the learner's language (argparse's own words, see ARGPARSE_MESSAGES).
_INVALID_CHOICE = re.compile(r"(\S+): invalid choice: '([^']*)' \(choose from (.*)\)$")

# argparse's own words (its headings, its -h help, its errors): argparse translates them with
# the ``gettext``/``ngettext`` it imported from the gettext module, looked up in its module at
# each call (gettext's default domain, which holds no catalog). ``use_argparse_catalog`` points
# those names at kvdrill's catalog. "invalid choice" stays English: OneLineErrorParser reads
# it and words that error itself.
ARGPARSE_MESSAGES = (
    N_("argument %(argument_name)s: %(message)s"),
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("invalid %(type)s value: %(value)r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
    N_("ignored explicit argument %r"),
)


def use_argparse_catalog() -> None:
    """argparse's own messages through kvdrill's catalog, in the interface language."""
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line that says where help is, not a usage block."""

    def error(self, message: str) -> NoReturn:
        wrong = _INVALID_CHOICE.search(message)
        if wrong:
            what, given, choices = wrong.groups()
            known = [choice.strip(" '") for choice in choices.split(",")]
            hint = did_you_mean(given, known) or _(" (choose from {choices})").format(
                choices=", ".join(known)
            )
            if what == "COMMAND":
                message = _("there is no command '{given}'{hint}").format(given=given, hint=hint)
            else:
                message = _("{what}: '{given}' is not a choice{hint}").format(
                    what=what, given=given, hint=hint
                )
        see = _("(see {command} --help)").format(command=self.prog)
        self.exit(2, f"{self.prog}: {error_line(message)} {see}\n")


def _global_options(parser: argparse.ArgumentParser, default: object) -> None:
    """``--db`` and ``--profile``: on the main parser with their defaults, and on each command
    with SUPPRESS, so they may come before or after the command name."""
    parser.add_argument(
        "--db",
        metavar="URL",
        default=default,
        help=_(
            "SQLAlchemy database URL (default: ${variable}, else SQLite in the user data dir)"
        ).format(variable=environment.DB_VARIABLE),
    )
    parser.add_argument(
        "--profile",
        default="default" if default is None else default,
        help=_("learner profile: separate schedules, logs and settings"),
    )


class VersionAction(argparse.Action):
    """``--version``, with the version looked up only when asked (importlib.metadata is slow)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs) -> None:
        kwargs.setdefault("help", _("show program's version number and exit"))
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        import kvdrill

        print(f"kvdrill {kvdrill.__version__}")
        parser.exit(0)


def _environment_help() -> str:
    from kvdrill.app.text_table import table_lines

    rows = [[name, _(text)] for name, text in environment.VARIABLES.items()]
    return _("environment variables:") + "\n" + "\n".join(table_lines(rows, indent="  "))


def named_command(argv: list[str]) -> str | None:
    """The command ``argv`` names when only ``--db``/``--profile`` come before it; None when
    there is none, or another option comes first (then every command's parser is built)."""
    index = 0
    while index < len(argv):
        token = argv[index]
        if token in ("--db", "--profile"):
            index += 2
        elif token.startswith(("--db=", "--profile=")):
            index += 1
        elif token.startswith("-"):
            return None
        else:
            return token
    return None


def global_values(argv: list[str]) -> tuple[str | None, str]:
    """``--db`` and ``--profile`` as given anywhere in ``argv`` (the last one wins), before
    the parser is built: its help is written in the profile's language."""
    values: dict[str, str] = {}
    for index, token in enumerate(argv):
        if token == "--":
            break
        for name in ("--db", "--profile"):
            if token == name and index + 1 < len(argv):
                values[name] = argv[index + 1]
            elif token.startswith(name + "="):
                values[name] = token.split("=", 1)[1]
    return values.get("--db"), values.get("--profile", "default")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone when its module is known: the
    other command modules are not imported then (the TUI's start path)."""
    module = next((m for m in (command, f"{command}_") if m in COMMAND_MODULES), None)
    if command is not None and module is not None:
        parser, commands = _parser((module,))
        if command in commands:
            return parser
    return _parser(COMMAND_MODULES)[0]


def _parser(
    modules: tuple[str, ...],
) -> tuple[argparse.ArgumentParser, Mapping[str, argparse.ArgumentParser]]:
    """The parser of ``modules``' commands, and each command's own parser by name."""
    parser = OneLineErrorParser(
        prog="kvdrill",
        description=_("Drill the memory and capacity math of LLM inference serving."),
        epilog=_environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction)
    _global_options(parser, None)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        module = importlib.import_module(f"kvdrill.app.commands.{name}")
        module.register(subparsers)
    for command in dict.fromkeys(subparsers.choices.values()):
        _global_options(command, argparse.SUPPRESS)
    return parser, subparsers.choices


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    use_profile_language(*global_values(argv))
    use_argparse_catalog()
    parser = build_parser(named_command(argv))
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        # Plain ``kvdrill`` opens the home screen.
        from kvdrill.app.commands.drill import run_home

        func = run_home
    try:
        return int(func(args) or 0)
    except UserError as exc:
        # Messages can quote file names, URLs and pack text: see error_line.
        lines = [error_line(line) for line in str(exc).split("\n")]
        print("kvdrill: " + "\n".join(lines), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        # A path the system refuses where no command words it (a name too long, say): one line.
        where = f"{shorten(str(exc.filename), 80)}: " if exc.filename else ""
        print(f"kvdrill: {error_line(where + (exc.strerror or str(exc)))}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
