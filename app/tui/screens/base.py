"""The base of kvdrill's screens: the footer's words in the learner's language, and, to a type
checker, ``self.app`` as the KvdrillApp it is (Textual types it as any App)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, TypeVar

from textual.binding import ActiveBinding
from textual.screen import ModalScreen, Screen

from kvdrill.i18n import N_, _

if TYPE_CHECKING:
    from textual import getters

    from kvdrill.app.tui.app import KvdrillApp

ResultType = TypeVar("ResultType")

# Textual's own footer words (its command palette key), for the catalog.
TEXTUAL_WORDS = [N_("palette"), N_("Open the command palette")]


def translated(bindings: dict[str, ActiveBinding]) -> dict[str, ActiveBinding]:
    """``bindings`` with their descriptions in the learner's language: BINDINGS are written at
    class level (``N_``-marked English), before the language is known."""
    return {
        key: ActiveBinding(
            active.node,
            dataclasses.replace(active.binding, description=_(active.binding.description)),
            active.enabled,
            _(active.tooltip),
        )
        for key, active in bindings.items()
    }


class KvdrillScreen(Screen[ResultType]):
    if TYPE_CHECKING:
        app = getters.app(KvdrillApp)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return translated(super().active_bindings)


class KvdrillModalScreen(ModalScreen[ResultType]):
    """A modal screen (help, note, path picker) whose footer is translated as well."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return translated(super().active_bindings)
