"""Import packs: pick a path, read the dry-run diff, confirm, watch the progress bar.

Parsing, planning and writing run in worker threads; errors are listed as ``path:line: message``
and nothing is written when there is any.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Footer, Input, ProgressBar, Static

from kvdrill.app import shown_numbers
from kvdrill.app.tui.messages import (
    CallFailed,
    ImportDone,
    ImportProgress,
    ImportScanned,
    failures_reported,
)
from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.app.tui.widgets.tables import FittingTable, fill_table
from kvdrill.engine.errors import printable
from kvdrill.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from kvdrill.app.services.importing import ImportScan


DIFF_COLUMNS = [
    (N_("Pack"), "pack"),
    (N_("Added"), "added"),
    (N_("Changed"), "changed"),
    (N_("Retired"), "retired"),
    (N_("Unchanged"), "unchanged"),
]
CHANGE_LABELS = {"added": N_("added"), "changed": N_("changed"), "retired": N_("retired")}


class ImportScreen(KvdrillScreen[None]):
    """Import Markdown packs from a file or a directory."""

    BINDINGS = [
        Binding(
            "y",
            "confirm",
            N_("Import"),
            tooltip=N_("outside the path box (Escape), after a clean scan: import"),
        ),  # not priority: a "y" typed in the path stays there
        Binding(
            "ctrl+o",
            "browse",
            N_("Browse"),
            tooltip=N_("browse for a pack file or a directory, then scan it"),
        ),
        Binding(
            "escape",
            "leave",
            N_("Back"),
            tooltip=N_("after a scan: leave the path box; again: home"),
        ),
    ]
    WIDGET_KEYS = [
        ("Enter", N_("scan the path (a dry run, nothing written); Enter again imports it")),
        ("Tab", N_("move between the path box and the diff")),
    ]

    def __init__(self, initial_path: str = "") -> None:
        super().__init__()
        self.initial_path = initial_path
        self.scan: ImportScan | None = None
        self.scanned_path = ""  # Enter on this path, unchanged, imports what the dry run showed
        self.working = False

    def compose(self) -> ComposeResult:
        yield Static(
            Content.from_markup("[b]$title[/b]", title=_("Import packs")), id="import-title"
        )
        with Horizontal(id="import-path-row"):
            yield Static(Content(_("Path") + " "), id="import-path-label")
            yield Input(
                self.initial_path,
                placeholder=_("a pack file or a directory of packs, e.g. ~/packs"),
                id="import-path",
            )
        yield Static(
            Content(
                _(
                    "Type a path and press Enter for a dry run, or Ctrl+O to browse; "
                    "nothing is written yet."
                )
            ),
            id="import-status",
        )
        yield ProgressBar(total=1, id="import-progress", show_eta=False)
        with VerticalScroll(id="import-body"):
            yield FittingTable(id="import-diff", cursor_type="row", zebra_stripes=True)
            yield Static(Content(""), id="import-changes")
            yield Static(Content(""), id="import-errors")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#import-diff", DataTable).display = False
        self.query_one("#import-progress").display = False
        self.query_one("#import-path", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "confirm":
            ready = self.scan is not None and bool(self.scan.packs) and not self.scan.errors
            return ready and not self.working
        return True

    def set_status(self, content: Content) -> None:
        self.query_one("#import-status", Static).update(content)

    @on(Input.Submitted, "#import-path")
    def scan_path(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        if path and path == self.scanned_path and self.check_action("confirm", ()):
            self.action_confirm()
            return
        self.start_scan(path)

    def action_browse(self) -> None:
        if self.working:
            return
        from kvdrill.app.tui.screens.path_picker import PathPickerScreen

        self.app.push_screen(
            PathPickerScreen(self.query_one("#import-path", Input).value), self.picked
        )

    def picked(self, path: str | None) -> None:
        """The browser's choice goes into the path box and is scanned like a typed path."""
        if path is None:
            return
        self.query_one("#import-path", Input).value = path
        self.start_scan(path)

    def start_scan(self, path: str) -> None:
        """The dry run of ``path``, in a worker."""
        if not path:
            self.set_status(Content(_("Type the path of a pack file or a directory first.")))
            return
        if self.working:
            return
        self.working = True
        self.scan = None
        self.scanned_path = path
        self.refresh_bindings()
        self.set_status(Content.from_markup(_("Scanning $path …"), path=path))
        self.run_scan(path)

    @work(thread=True, exclusive=True, group="import", exit_on_error=False)
    def run_scan(self, path: str) -> None:
        with failures_reported(self):
            self.post_message(ImportScanned(self.app.backend.scan(path)))

    def on_call_failed(self, message: CallFailed) -> None:
        self.working = False
        self.set_status(
            Content.from_markup(_("[b $error]Not imported:[/] $e"), e=str(message.error))
        )
        self.refresh_bindings()

    def on_import_scanned(self, message: ImportScanned) -> None:
        scan = message.scan
        self.working = False
        self.scan = scan
        table = self.query_one("#import-diff", DataTable)
        rows = [
            (
                [
                    printable(f"{diff.title} ({diff.key})"),
                    *map(
                        shown_numbers.count,
                        (diff.added, diff.changed, diff.retired, diff.unchanged),
                    ),
                ],
                diff.key,
            )
            for diff in scan.diffs
        ]
        fill_table(table, [(_(label), key) for label, key in DIFF_COLUMNS], rows)
        table.display = bool(scan.diffs)
        self.query_one("#import-changes", Static).update(Content("\n".join(change_lines(scan))))
        errors = self.query_one("#import-errors", Static)
        if scan.errors:
            count = len(scan.errors)
            self.set_status(
                Content.from_markup(
                    ngettext(
                        "[b $error]$n error: nothing will be imported.[/] Fix it and scan again.",
                        "[b $error]$n errors: nothing will be imported.[/] Fix them and scan "
                        "again.",
                        count,
                    ),
                    n=str(count),
                )
            )
            errors.update(Content("\n".join(scan.errors)))
        elif not scan.packs:
            self.set_status(Content(_("No pack files (*.md) found there.")))
            errors.update(Content(""))
        else:
            packs = len(scan.packs)
            self.set_status(
                Content.from_markup(
                    ngettext(
                        "Dry run: $n pack ready. Enter imports it; or edit the path.",
                        "Dry run: $n packs ready. Enter imports them; or edit the path.",
                        packs,
                    ),
                    n=str(packs),
                )
            )
            errors.update(Content(""))
        # The path box keeps the keys: a path typed after the dry run is not read as commands.
        self.query_one("#import-path", Input).focus()
        self.refresh_bindings()

    def action_confirm(self) -> None:
        if self.scan is None or self.scan.errors or not self.scan.packs or self.working:
            return
        self.working = True
        bar = self.query_one("#import-progress", ProgressBar)
        bar.display = True
        bar.update(total=len(self.scan.packs), progress=0)
        self.set_status(Content(_("Importing…")))
        self.refresh_bindings()
        self.run_import(self.scan)

    @work(thread=True, exclusive=True, group="import", exit_on_error=False)
    def run_import(self, scan: ImportScan) -> None:
        def progress(done: int, total: int) -> None:
            self.post_message(ImportProgress(done, total))

        with failures_reported(self):
            self.app.backend.apply(scan, progress)
            self.post_message(ImportDone(scan))

    def on_import_progress(self, message: ImportProgress) -> None:
        bar = self.query_one("#import-progress", ProgressBar)
        bar.update(total=message.total, progress=message.done)

    def on_import_done(self, message: ImportDone) -> None:
        scan = message.scan
        self.working = False
        self.scan = None
        added = sum(diff.added for diff in scan.diffs)
        changed = sum(diff.changed for diff in scan.diffs)
        self.set_status(
            Content.from_markup(
                _(
                    "[b $success]Imported $n[/]: $a added, $c changed. Escape goes home to "
                    "drill them."
                ),
                n=ngettext("{count} pack", "{count} packs", len(scan.packs)).format(
                    count=shown_numbers.count(len(scan.packs))
                ),
                a=ngettext("{count} card", "{count} cards", added).format(
                    count=shown_numbers.count(added)
                ),
                c=shown_numbers.count(changed),
            )
        )
        self.refresh_bindings()

    def action_leave(self) -> None:
        if isinstance(self.focused, Input) and self.scan is not None and self.scan.packs:
            self.set_focus(None)  # y (import) and the table's keys work now
            return
        self.app.action_go_home()


def change_lines(scan: ImportScan) -> list[str]:
    """The dry run card by card: what each pack adds, changes and retires, by title."""
    lines: list[str] = []
    for diff in scan.diffs:
        for label, titles in (
            ("added", diff.added_titles),
            ("changed", diff.changed_titles),
            ("retired", diff.retired_titles),
        ):
            word = _(CHANGE_LABELS[label])
            lines.extend(f"{word:>8}  {diff.title}: {title}" for title in titles)
    return lines
