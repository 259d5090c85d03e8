"""Browse for a pack file or a directory of packs, for the import screen.

A directory tree showing only directories and Markdown files (hidden entries left out). It
dismisses with the chosen path, or None on Escape. The tree reads directories in its own worker
threads, so a slow disk never blocks the screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DirectoryTree, Footer, Static

from kvdrill.app.tui.screens.base import KvdrillModalScreen
from kvdrill.i18n import N_, _


class PackTree(DirectoryTree):
    """Directories and ``.md`` files only: what the importer can read."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [
            path
            for path in paths
            if not path.name.startswith(".")
            and (path.suffix.lower() == ".md" or _is_directory(path))
        ]


def _is_directory(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # unreadable or a broken link: leave it out
        return False


def start_directory(typed: str) -> Path:
    """Where browsing starts: the typed directory, a typed file's directory, else the current
    directory."""
    if typed.strip():
        path = Path(typed.strip()).expanduser()
        if path.is_dir():
            return path
        if path.parent.is_dir() and path.parent != Path("."):
            return path.parent
    return Path(".")


def shown_path(path: Path) -> str:
    """``path`` relative to the current directory when it is inside it, else absolute."""
    try:
        relative = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return str(path)
    return str(relative) if relative.parts else "."


class PathPickerScreen(KvdrillModalScreen[str | None]):
    """Pick a pack file or a directory with the keyboard."""

    BINDINGS = [
        Binding(
            "escape", "cancel", N_("Cancel"), tooltip=N_("back to the path box, nothing chosen")
        ),
        Binding(
            "backspace",
            "parent",
            N_("Up a directory"),
            tooltip=N_("start from the parent directory"),
        ),
    ]
    WIDGET_KEYS = [
        ("↓ ↑", N_("move")),
        ("Enter", N_("choose the file or directory under the cursor, then scan it")),
        ("Space", N_("open or close a directory")),
    ]

    def __init__(self, typed: str = "") -> None:
        super().__init__()
        self.start = start_directory(typed)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static(Content(""), id="picker-where")
            yield PackTree(self.start, id="picker-tree")
            yield Static(
                Content(_("Enter: choose · Space: open/close · Backspace: up · Esc: cancel")),
                id="picker-hint",
            )
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show_where()
        self.query_one(PackTree).focus()

    def show_where(self) -> None:
        where = shown_path(Path(self.query_one(PackTree).path))
        self.query_one("#picker-where", Static).update(
            Content.from_markup(_("[b]Choose a pack file or a directory[/b] in $w"), w=where)
        )

    @on(DirectoryTree.FileSelected)
    @on(DirectoryTree.DirectorySelected)
    def choose(self, event: DirectoryTree.FileSelected | DirectoryTree.DirectorySelected) -> None:
        event.stop()
        self.dismiss(shown_path(event.path))

    def action_parent(self) -> None:
        tree = self.query_one(PackTree)
        tree.path = Path(tree.path).expanduser().resolve().parent
        self.show_where()

    def action_cancel(self) -> None:
        self.dismiss(None)
