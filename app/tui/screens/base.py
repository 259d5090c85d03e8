"""The base of kvdrill's full screens: to a type checker, ``self.app`` is the KvdrillApp it is
(Textual types it as any App). Nothing changes at run time."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.screen import Screen

if TYPE_CHECKING:
    from textual import getters

    from kvdrill.app.tui.app import KvdrillApp

ResultType = TypeVar("ResultType")


class KvdrillScreen(Screen[ResultType]):
    if TYPE_CHECKING:
        app = getters.app(KvdrillApp)
