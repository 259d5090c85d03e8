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
from textual.binding import Binding

from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.engine.study.flags import FLAG_COLOURS, NO_FLAG
from kvdrill.i18n import N_, _, ngettext

DONE_WORDS = {
    "suspend": N_("Suspended: {title}"),
    "unsuspend": N_("Unsuspended: {title}"),
    "bury": N_("Buried until tomorrow: {title}"),
    "forget": N_("New again, its history kept: {title}"),
}

# The keys of the actions every screen showing a card binds the same way (its action_flag,
# action_edit and action_drill); each screen places them among its own keys.
FLAG_BINDING = Binding(
    "x", "flag", N_("Flag"), tooltip=N_("flag it with a colour (or take the flag off)")
)
EDIT_BINDING = Binding(
    "e", "edit", N_("Edit"), tooltip=N_("edit its pack file in $VISUAL / $EDITOR, then import it")
)
DRILL_BINDING = Binding(
    "d", "drill", N_("Drill"), tooltip=N_("drill it now, as practice (its schedule stays)")
)


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
        if action == "flag" and colour:
            done = _("Flagged {colour}: {title}").format(colour=colour, title=title)
        elif action == "flag":
            done = _("Flag taken off: {title}").format(title=title)
        else:
            done = _(DONE_WORDS[action]).format(title=title)
        self.app.call_from_thread(self._acted, reference, done)

    def _acted(self, reference: str, text: str) -> None:
        self.notify(text, timeout=3, markup=False)
        self.card_changed(reference)

    def _failed(self, error: Exception) -> None:
        self.notify(str(error), title=_("Not done"), severity="error", markup=False)

    def pick_flag(self, reference: str, current: str | None = None) -> None:
        """Ask for a colour (``none`` takes the flag off), then flag the card with it."""
        from kvdrill.app.tui.screens.pick import PickScreen

        def picked(choice: str | None) -> None:
            if choice is not None:
                self.act_on(reference, "flag", None if choice == NO_FLAG else choice)

        choices = [(colour, colour) for colour in FLAG_COLOURS]
        choices.append((NO_FLAG, _("none: take the flag off")))
        title = _("Flag {card}").format(card=reference)
        self.app.push_screen(PickScreen(title, choices, current), picked)

    def drill_card(self, reference: str) -> None:
        """A session of this one card, now, as practice (its schedule stays)."""
        self.app.drill_card(reference)

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
            text = scan.errors[0]
            if more:
                text += " " + _("(and {count} more)").format(count=more)
            self.app.call_from_thread(self._edit_refused, text)
            return
        changed = sum(diff.changed + diff.added + diff.retired for diff in scan.diffs)
        text = ngettext(
            "Imported {file}: {count} card changed",
            "Imported {file}: {count} cards changed",
            changed,
        ).format(file=path.name, count=changed)
        self.app.call_from_thread(self._acted, reference, text)

    def _edit_refused(self, text: str) -> None:
        self.notify(
            text + "\n" + _("Nothing was imported: fix the file and edit again."),
            title=_("Not imported"),
            severity="error",
            timeout=12,
            markup=False,
        )


def _run(command: list[str]) -> Exception | None:
    """Run the editor and wait for it; the error in one sentence when it could not run."""
    try:
        finished = subprocess.run(command, check=False)
    except OSError as error:
        return OSError(
            _("The editor {editor} could not start: {why}").format(
                editor=command[0], why=error.strerror
            )
        )
    if finished.returncode != 0:
        return OSError(
            _("The editor {editor} stopped with status {status}: nothing was imported").format(
                editor=command[0], status=finished.returncode
            )
        )
    return None
