"""Every ``KVDRILL_*`` environment variable, read here and nowhere else. Standard library only.

``VARIABLES`` names each one and what it does; ``kvdrill --help`` lists them from there.
The store is handed what these say (a URL, a time); it never reads the environment itself.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from kvdrill.engine.errors import UserError
from kvdrill.engine.study.clock import parse_now
from kvdrill.i18n import N_, _

# One helper for every message that can quote a database URL; the store's errors use it too.
from kvdrill.store.location import mask_password  # noqa: F401 - re-exported

NOW_VARIABLE = "KVDRILL_NOW"
DB_VARIABLE = "KVDRILL_DB"
DATA_DIR_VARIABLE = "KVDRILL_DATA_DIR"
FAST_START_VARIABLE = "KVDRILL_FAST_START"
DB_FILENAME = "kvdrill.db"

VARIABLES = {
    DB_VARIABLE: N_("the database URL when --db is not given"),
    DATA_DIR_VARIABLE: N_("where kvdrill keeps its files (default: the platform's data dir)"),
    NOW_VARIABLE: N_("an ISO timestamp that sets the clock (tests and demos cross days with it)"),
    FAST_START_VARIABLE: N_("0 turns off the fast-start helper process (benchmarks compare)"),
}


def _read(name: str) -> str:
    return os.environ.get(name, "").strip()


def now() -> datetime:
    """The app's idea of now: ``KVDRILL_NOW`` if set, else the real local time."""
    text = _read(NOW_VARIABLE)
    return parse_now(text, NOW_VARIABLE) if text else datetime.now()


def clock_is_set() -> bool:
    """Whether ``KVDRILL_NOW`` fixes the time (then countdowns stand still, for snapshots)."""
    return bool(_read(NOW_VARIABLE))


def data_dir() -> Path:
    """The directory for kvdrill's own files: $KVDRILL_DATA_DIR, else the platform's choice."""
    override = _read(DATA_DIR_VARIABLE)
    if override:
        try:
            return Path(override).expanduser()
        except RuntimeError:  # ~nosuchuser
            raise UserError(
                _("${variable} {override} starts with a ~user that has no home directory").format(
                    variable=DATA_DIR_VARIABLE, override=repr(override[:80])
                )
            ) from None
    import platformdirs

    return Path(platformdirs.user_data_dir("kvdrill", appauthor=False))


def database_url(cli_url: str | None) -> str:
    """The database URL: ``--db``, then $KVDRILL_DB, then a SQLite file in the data dir."""
    if cli_url:
        return cli_url
    return _read(DB_VARIABLE) or f"sqlite:///{data_dir() / DB_FILENAME}"


def is_own_folder(cli_url: str | None) -> bool:
    """Whether the database is kvdrill's own, in the data dir (whose folder may be created),
    rather than one named by --db or $KVDRILL_DB (whose folder must exist)."""
    return not cli_url and not _read(DB_VARIABLE)


def url_source(cli_url: str | None) -> str:
    """Where ``database_url(cli_url)`` came from, for an error message ("" for --db or default)."""
    return f"${DB_VARIABLE}" if not cli_url and _read(DB_VARIABLE) else ""


def export_database_url(url: str) -> None:
    """Make ``url`` this process's $KVDRILL_DB, for the processes it starts (``kvdrill serve``'s
    app processes get it there rather than on a command line that ``ps`` shows)."""
    os.environ[DB_VARIABLE] = url


# Textual's web driver, which textual-serve sets in TEXTUAL_DRIVER for the app processes it runs.
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def served_in_a_browser() -> bool:
    """True in an app process that textual-serve runs: it has a browser, not a terminal."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def fast_start_enabled() -> bool:
    return _read(FAST_START_VARIABLE) != "0"


# The locale's variables in gettext's order: the first one set names the language.
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def locale_language() -> str | None:
    """The language the locale names (``vi`` for ``vi_VN.UTF-8``); None for ``C``/``POSIX`` or
    when no locale variable is set."""
    for name in LOCALE_VARIABLES:
        value = _read(name)
        if value:
            code = value.split(":")[0].split(".")[0].split("@")[0].split("_")[0].lower()
            return None if code in ("c", "posix", "") else code
    return None


def editor_command() -> list[str]:
    """The learner's editor, as a command: ``$VISUAL``, else ``$EDITOR``, else ``vi``."""
    import shlex

    text = _read("VISUAL") or _read("EDITOR") or "vi"
    try:
        return shlex.split(text)
    except ValueError:
        raise UserError(
            _("The editor command {command} has an unclosed quote").format(command=text[:80])
        ) from None
