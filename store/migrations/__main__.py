"""Alembic's command line for kvdrill's migrations, without an alembic.ini.

    python -m store.migrations revision --autogenerate -m "what changed"
    python -m store.migrations history

The database is the one kvdrill would open ($KVDRILL_DB, else the data dir's kvdrill.db).
"""

from __future__ import annotations

import sys

from alembic.config import CommandLine, Config

from kvdrill.store.db import MIGRATIONS_DIR, resolve_url


def main(argv: list[str] | None = None) -> None:
    cli = CommandLine(prog="python -m store.migrations")
    options = cli.parser.parse_args(argv)
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    config = Config(cmd_opts=options)
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", resolve_url(None))
    cli.run_cmd(config, options)


if __name__ == "__main__":
    main(sys.argv[1:])
