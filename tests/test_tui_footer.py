"""The drill's footer relabels its key widgets as the keys change (app/tui/widgets/keys_footer.py):
at every step it reads, and clicks, exactly as a footer built anew would."""

from __future__ import annotations

from textual.widgets._footer import FooterKey
from tui_helpers import make_app, screen_lines, settle

from kvdrill.app.tui.widgets.keys_footer import KeysFooter


def footer_state(app) -> tuple[str, list[tuple[str, str, str, bool, object]]]:
    """The footer line as painted, and each key widget's key, action, words, state, tooltip."""
    keys = [
        (key.key, key.action, key.description, key._disabled, key.tooltip)
        for key in app.screen.query_one(KeysFooter).query_children(FooterKey)
    ]
    return screen_lines(app)[-1], keys


async def test_at_each_step_the_footer_is_the_one_a_rebuild_gives(drill_db: str) -> None:
    app = make_app(drill_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen = set()
        for key in ("space", "4", "space", "3", "space", "4"):
            await pilot.press(key)
            await settle(pilot)
            relabelled = footer_state(app)
            footer = app.screen.query_one(KeysFooter)
            footer.keys_shown = None  # as if never built: the next one is built from scratch
            app.screen.refresh_bindings()  # the footer is told, as on any change of keys
            await settle(pilot)
            assert relabelled == footer_state(app)
            seen.add(relabelled[0])
        assert len(seen) >= 2  # the keys did change along the way
