"""The import screen's browser: Ctrl+O opens a tree of directories and Markdown files; the
choice fills the path box and runs the dry run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import DirectoryTree, Input
from tui_helpers import FIXTURES, make_app, settle, text_of


@pytest.fixture
def packs_dir(tmp_path: Path) -> Path:
    """A pack, a sub-directory, a text file and a hidden directory (in a folder of their own:
    the database beside tmp_path gets its daily backups/ folder there)."""
    folder = tmp_path / "packs"
    folder.mkdir()
    shutil.copy(FIXTURES / "good" / "tui-basics.md", folder / "tui-basics.md")
    (folder / "more").mkdir()
    (folder / "notes.txt").write_text("not a pack\n", encoding="utf-8")
    (folder / ".git").mkdir()
    return folder


async def open_browser(pilot) -> DirectoryTree:
    await settle(pilot)
    await pilot.press("ctrl+o")
    await pilot.pause()
    tree = pilot.app.screen.query_one(DirectoryTree)
    # The tree's loader runs as long as the tree lives: poll rather than wait for workers.
    for _ in range(200):
        if tree.root.children:
            break
        await pilot.pause(0.02)
    return tree


def labels(tree: DirectoryTree) -> list[str]:
    return [str(node.label) for node in tree.root.children]


async def test_choosing_a_pack_file_fills_the_path_and_runs_the_dry_run(
    db_url: str, packs_dir: Path
) -> None:
    app = make_app(db_url, start="import", import_path=str(packs_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        tree = await open_browser(pilot)
        assert type(app.screen).__name__ == "PathPickerScreen"
        assert Path(tree.path) == packs_dir  # starts where the typed path points
        assert labels(tree) == ["more", "tui-basics.md"]  # no .txt, nothing hidden
        tree.move_cursor(tree.root.children[1])
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "ImportScreen"
        chosen = app.screen.query_one("#import-path", Input).value
        assert Path(chosen).resolve() == (packs_dir / "tui-basics.md").resolve()
        assert "Dry run: 1 pack ready" in text_of(app, "#import-status")
        await pilot.press("enter")  # as the status line says: Enter imports the scanned path
        await settle(pilot)
        assert "Imported 1 pack: " in text_of(app, "#import-status")


async def test_choosing_a_directory_scans_it_and_escape_chooses_nothing(
    db_url: str, packs_dir: Path
) -> None:
    app = make_app(db_url, start="import", import_path=str(packs_dir / "missing.md"))
    async with app.run_test(size=(80, 24)) as pilot:
        tree = await open_browser(pilot)
        assert Path(tree.path) == packs_dir  # a typed file that is not there: its directory
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one("#import-path", Input).value == str(packs_dir / "missing.md")

        tree = await open_browser(pilot)
        tree.move_cursor(tree.root)
        await pilot.press("enter")
        await settle(pilot)
        chosen = app.screen.query_one("#import-path", Input).value
        assert Path(chosen).resolve() == packs_dir.resolve()
        assert "Dry run: 1 pack ready" in text_of(app, "#import-status")


async def test_backspace_climbs_to_the_parent_directory(db_url: str, packs_dir: Path) -> None:
    app = make_app(db_url, start="import", import_path=str(packs_dir / "more"))
    async with app.run_test(size=(80, 24)) as pilot:
        tree = await open_browser(pilot)
        assert labels(tree) == []
        await pilot.press("backspace")
        for _ in range(200):
            if tree.root.children:
                break
            await pilot.pause(0.02)
        assert Path(tree.path).resolve() == packs_dir.resolve()
        assert labels(tree) == ["more", "tui-basics.md"]
        await pilot.press("escape")
