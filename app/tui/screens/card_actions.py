"""What any screen showing a card can do to it: suspend, unsuspend, bury, forget, flag it,
edit its pack file in the learner's editor, drill it now. The browser, a card's page and the
drill share these; each screen names the card (``pack/card``) and repaints when told
(``card_changed``).

Editing: the pack file opens in ``$VISUAL`` / ``$EDITOR`` at the card's line, with the app
suspended (Textual's ``App.suspend``); on return the file is checked and imported through the
import every other path uses (all or nothing, schedules and history kept). A file with errors
changes nothing: its first error shows as ``file:line: message``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from textual import work
from textual.app import SuspendNotSupported

from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.engine.study.flags import FLAG_COLOURS, NO_FLAG
from kvdrill.engine.wording import plural

DONE_WORDS = {
    "suspend": "Suspended",
    "unsuspend": "Unsuspended",
    "bury": "Buried until tomorrow",
    "forget": "New again, its history kept",
}
FLAG_CHOICES = [(colour, colour) for colour in FLAG_COLOURS] + [(NO_FLAG, "none: take it off")]


class CardActionsScreen(KvdrillScreen[None]):
    """A screen showing a card: the card actions, each off the UI thread."""

    def card_changed(self, reference: str) -> None:
        """The card was changed (an action, an edit): repaint what shows it."""

    def act_on(self, reference: str, action: str, colour: str | None = None) -> None:
        self._act(reference, action, colour)

    @work(thread=True, group="card-action", exit_on_error=False)
    def _act(self, reference: str, action: str, colour: str | None) -> None:
        try:
            title = self.app.backend.act_on_card(reference, action, colour)
        except Exception as error:  # noqa: BLE001 - shown to the learner, never a traceback
            self.app.call_from_thread(self._failed, error)
            return
        if action == "flag":
            done = f"Flagged {colour}" if colour else "Flag taken off"
        else:
            done = DONE_WORDS[action]
        self.app.call_from_thread(self._acted, reference, f"{done}: {title}")

    def _acted(self, reference: str, text: str) -> None:
        self.notify(text, timeout=3, markup=False)
        self.card_changed(reference)

    def _failed(self, error: Exception) -> None:
        self.notify(str(error), title="Not done", severity="error", markup=False)

    def pick_flag(self, reference: str, current: str | None = None) -> None:
        """Ask for a colour (``none`` takes the flag off), then flag the card with it."""
        from kvdrill.app.tui.screens.pick import PickScreen

        def picked(choice: str | None) -> None:
            if choice is not None:
                self.act_on(reference, "flag", None if choice == NO_FLAG else choice)

        self.app.push_screen(PickScreen(f"Flag {reference}", FLAG_CHOICES, current), picked)

    def drill_card(self, reference: str) -> None:
        """A session of this one card, now, as practice (its schedule stays)."""
        from kvdrill.app.tui.screens.drill import DrillScreen

        self.app.push_screen(DrillScreen({"card": reference}))

    # --- editing ----------------------------------------------------------------------------

    def edit_card(self, reference: str) -> None:
        self._find_file(reference)

    @work(thread=True, group="card-edit", exclusive=True, exit_on_error=False)
    def _find_file(self, reference: str) -> None:
        from kvdrill.app.services.environment import editor_command

        try:
            path, line = self.app.backend.card_file(reference)
            command = [*editor_command(), f"+{line}", str(path)]
        except Exception as error:  # noqa: BLE001 - shown to the learner, never a traceback
            self.app.call_from_thread(self._failed, error)
            return
        self.app.call_from_thread(self._run_editor, reference, path, command)

    def _run_editor(self, reference: str, path: Path, command: list[str]) -> None:
        try:
            with self.app.suspend():
                returned = _run(command)
        except SuspendNotSupported:  # no terminal to hand over (tests, a browser)
            returned = _run(command)
        if returned is not None:
            self._failed(returned)
            return
        self._import_edited(reference, path)

    @work(thread=True, group="card-edit", exclusive=True, exit_on_error=False)
    def _import_edited(self, reference: str, path: Path) -> None:
        try:
            scan = self.app.backend.import_edited(path)
        except Exception as error:  # noqa: BLE001 - shown to the learner, never a traceback
            self.app.call_from_thread(self._failed, error)
            return
        if scan.errors:
            more = len(scan.errors) - 1
            text = scan.errors[0] + (f" (and {more} more)" if more else "")
            self.app.call_from_thread(self._edit_refused, text)
            return
        changed = sum(diff.changed + diff.added + diff.retired for diff in scan.diffs)
        words = f"{plural(changed, 'card')} changed" if changed else "no card changed"
        self.app.call_from_thread(self._acted, reference, f"Imported {path.name}: {words}")

    def _edit_refused(self, text: str) -> None:
        self.notify(
            text + "\nNothing was imported: fix the file and edit again.",
            title="Not imported",
            severity="error",
            timeout=12,
            markup=False,
        )


def _run(command: list[str]) -> Exception | None:
    """Run the editor and wait for it; the error in one sentence when it could not run."""
    try:
        finished = subprocess.run(command, check=False)
    except OSError as error:
        return OSError(f"the editor {command[0]!r} could not start: {error.strerror}")
    if finished.returncode != 0:
        return OSError(f"the editor {command[0]!r} exited with status {finished.returncode}")
    return None
