"""``?`` lists every key of every screen, read from the screen's bindings, at 80x24.

Each screen of app/tui/screens is opened, ``?`` pressed, and the list read: every key the
screen binds (its own, Textual's and the app's) is there, with the keys a learner would look
for on that screen, and the list fits the 80x24 box without scrolling.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from textual.screen import Screen
from tui_helpers import make_app, settle, text_of

from kvdrill.app.tui import screens as screens_package
from kvdrill.app.tui.screens.help import HelpScreen, key_name

# How to build each screen, and keys its list must name (as the list names them).
SCREENS = {
    "HomeScreen": (lambda m: m.HomeScreen(), ["d", "Enter", "i", "s", "o", "p", "r", "q", "?"]),
    "DrillScreen": (lambda m: m.DrillScreen({}), ["space", "1 2 3 4", "0 5", "g", "^g", "^b"]),
    "StatsScreen": (lambda m: m.StatsScreen(), ["o", "g", "Enter", "← →", "Tab", "?"]),
    "SettingsScreen": (lambda m: m.SettingsScreen(), ["Tab", "Enter", "Esc"]),
    "ImportScreen": (lambda m: m.ImportScreen(""), ["y", "^o", "Esc", "Enter"]),
    "PathPickerScreen": (lambda m, where: m.PathPickerScreen(where), ["Backspace", "Esc", "Space"]),
    "SummaryScreen": (lambda m: m.SummaryScreen(None), ["d", "s", "i", "q", "h"]),
    "NoteScreen": (lambda m: m.NoteScreen("a card", ""), ["^s", "Esc"]),
    "CardsScreen": (lambda m: m.CardsScreen(), ["/", "f", "p", "t", "l", "k", "c", "x", "e"]),
    "CardPageScreen": (
        lambda m: m.CardPageScreen("tui-basics/kv-token"),
        ["s", "u", "b", "x", "f", "e", "d", "Esc"],
    ),
    "PickScreen": (lambda m: m.PickScreen("Pick", [("a", "A")]), ["Esc", "Enter"]),
}


def every_screen() -> dict[str, tuple[object, type[Screen]]]:
    """Each Screen class defined in app/tui/screens, by name, with its module."""
    found = {}
    for info in pkgutil.iter_modules(screens_package.__path__):
        module = importlib.import_module(f"{screens_package.__name__}.{info.name}")
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, Screen)
                and value.__module__ == module.__name__
                and value is not HelpScreen
                and "Kvdrill" not in name  # the bases
            ):
                found[name] = (module, value)
    # A screen other screens are built on (the card actions) is checked through them.
    bases = {base for _, screen in found.values() for base in screen.__mro__[1:]}
    return {name: entry for name, entry in found.items() if entry[1] not in bases}


def test_every_screen_is_checked() -> None:
    missing = sorted(set(every_screen()) - set(SCREENS))
    assert missing == [], f"add {missing} to SCREENS in tests/test_tui_keys.py"


@pytest.mark.parametrize("name", sorted(SCREENS))
async def test_question_mark_lists_every_key_of_the_screen(
    drill_db: str, name: str, tmp_path
) -> None:
    module, _ = every_screen()[name]
    build, expected = SCREENS[name]
    app = make_app(drill_db, start="home")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # The path picker starts in a small directory: its tree loads in a worker.
        screen = build(module, str(tmp_path)) if name == "PathPickerScreen" else build(module)
        app.push_screen(screen)
        # The path picker's tree watches its directory in a worker that never completes.
        wait = pilot.pause if name == "PathPickerScreen" else (lambda: settle(pilot))
        await wait()
        app.action_show_keys()
        await wait()
        await wait()
        assert isinstance(app.screen, HelpScreen)
        listed = text_of(app, "#help-text") + text_of(app, "#help-anywhere")
        keys_column = [line.split("  ")[0].strip() for line in listed.splitlines()]
        for key in expected:
            assert any(key in row for row in keys_column) or key in listed, key
        # Textual's own record of the keys bound at run time, the command palette's included.
        bound = [
            binding
            for node in (screen, app)
            for bindings in node._bindings.key_to_bindings.values()
            for binding in bindings
            if not binding.system
        ]
        assert bound
        for binding in bound:
            assert key_name(screen, binding) in listed, binding
        assert app.screen.query_one("#help-box").max_scroll_y == 0  # all of it on screen
