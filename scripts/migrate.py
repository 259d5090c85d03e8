"""Alembic's command line for kvdrill's migrations, without an alembic.ini.

    .venv/bin/python scripts/migrate.py revision --autogenerate -m "what changed"
    .venv/bin/python scripts/migrate.py history

The database is the one kvdrill would open ($KVDRILL_DB, else the data dir's kvdrill.db).
"""

from __future__ import annotations

import sys

from alembic.config import CommandLine, Config

from kvdrill.app.services.environment import database_url
from kvdrill.store.migrate import MIGRATIONS_DIR


def main(argv: list[str] | None = None) -> None:
    cli = CommandLine(prog="scripts/migrate.py")
    options = cli.parser.parse_args(argv)
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    config = Config(cmd_opts=options)
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", database_url(None))
    cli.run_cmd(config, options)


if __name__ == "__main__":
    main(sys.argv[1:])
