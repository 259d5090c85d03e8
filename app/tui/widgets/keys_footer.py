"""The footer of kvdrill's screens: Textual's ``Footer``, built again only when its keys change.

Textual's footer mounts all its key widgets anew on every change of the screen's bindings, and
one drill step changes them more than once (the card, the focus, the phase) where the keys
shown often stay the same. This one compares the keys it would show with those it shows.
"""

from __future__ import annotations

from textual.widgets import Footer

# What one footer key shows: key, its display, description, action, tooltip, enabled.
Shown = tuple[str, str, str, str, str, bool]


class KeysFooter(Footer):
    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self.keys_shown: list[Shown] | None = None  # as composed last, in order

    async def recompose(self) -> None:
        # Textual calls this after the refresh that follows a change of the bindings; by then
        # the screen may have closed (a key typed ahead left it), as Widget.recompose allows.
        if not self.is_attached or self._pruning:
            return
        keys = self.keys_to_show()
        if keys is not None and keys == self.keys_shown:
            return
        self.keys_shown = keys
        await super().recompose()

    def keys_to_show(self) -> list[Shown] | None:
        """The keys ``compose`` would show now, in its order; None where it groups keys (then
        it is always built again)."""
        active = self.screen.active_bindings
        keys: list[Shown] = []
        actions: set[str] = set()
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in actions:
                continue  # the footer shows the first key of an action
            if binding.group is not None:
                return None
            actions.add(binding.action)
            display = self.app.get_key_display(binding)
            keys.append(
                (binding.key, display, binding.description, binding.action, tooltip, enabled)
            )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        if palette and self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            binding = palette.binding
            display = self.app.get_key_display(binding)
            keys.append(
                (binding.key, display, binding.description, binding.action, palette.tooltip,
                 palette.enabled)
            )  # fmt: skip
        return keys
