"""How the full-screen app starts: ``AppOptions``, made by the CLI (app/commands/drill.py) and
by the tests (tests/tui_helpers.py) alike and handed to ``create_app``.

Standard library only: the CLI makes it before Textual is imported (fast start).
"""

from __future__ import annotations

from argparse import Namespace
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kvdrill.app.services.first_card import FirstCard

# The options that narrow a drill session (``Services.open_session``'s keywords).
DRILL_FILTERS = (
    "pack",
    "tag",
    "lesson",
    "new_limit",
    "limit",
    "mistake",
    "count",
    "flag",
    "cram",
    "ahead",
)


@dataclass(frozen=True)
class AppOptions:
    """The session's filters, then how the app looks and starts."""

    pack: str | None = None
    tag: str | None = None
    lesson: str | None = None
    new_limit: int | None = None
    limit: int | None = None
    mistake: str | None = None  # a session practising this mistake code instead
    count: int | None = None  # with mistake: how many problems
    flag: str | None = None
    cram: bool | None = None  # True: practice outside the schedule
    ahead: int | None = None  # reviews due in the next N days too
    theme: str | None = None  # "light" or "dark"; None: the profile's saved theme
    import_path: str = ""  # prefilled on the import screen
    answer_seconds: int | None = None  # the countdown length; None: the profile's setting
    frozen_countdown: bool = False  # snapshot tests: the countdown does not move
    bundled: bool = True  # False: the bundled decks are not imported on first use
    # The fast-start helper started before Textual was imported; the first drill takes it.
    first_card: FirstCard | None = None

    def drill_filters(self) -> dict[str, Any]:
        """The filters as ``Services.open_session`` takes them."""
        return {key: getattr(self, key) for key in DRILL_FILTERS}


def drill_filters_of(args: Namespace) -> dict[str, Any]:
    """The filters ``kvdrill drill``'s arguments give, for the TUI and plain mode alike."""
    return {
        "pack": args.pack,
        "tag": args.tag,
        "lesson": args.lesson,
        "new_limit": args.new,
        "limit": args.limit,
        "mistake": args.mistake,
        "count": args.count,
        "flag": args.flag,
        "cram": args.cram or None,  # like the other filters, None when not asked for
        "ahead": args.ahead,
    }
