"""The footer of kvdrill's screens: Textual's ``Footer``, built again only when its keys change.

Textual's footer mounts all its key widgets anew on every change of the screen's bindings, and
one drill step changes them more than once (the card, the focus, the phase) where the keys
shown often stay the same. This one compares the keys it would show with those it shows, and
when they differ mounts only the changed ones (a reveal's grades for its Space), keeping the
widgets of the keys before and after them.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from textual.widgets import Footer

# What one footer key shows: key, its display, description, action, tooltip, enabled.
Shown = tuple[str, str, str, str, str, bool]


@runtime_checkable
class KeyWidget(Protocol):
    """What Textual's footer key widget shows (its words; disabled, its ``-disabled`` class)."""

    key: str
    key_display: str
    description: str
    action: str

    def has_class(self, *class_names: str) -> bool: ...


def shown_as(widget: object) -> tuple[object, ...]:
    """What a footer key widget shows and does."""
    assert isinstance(widget, KeyWidget)
    return (
        widget.key,
        widget.key_display,
        widget.description,
        widget.action,
        widget.has_class("-disabled"),
        widget.has_class("-command-palette"),
        getattr(widget, "tooltip", None),
    )


def common_length(first: list[tuple[object, ...]], second: list[tuple[object, ...]]) -> int:
    """How many items the two lists begin with in common."""
    count = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        count += 1
    return count


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
        if keys is not None and await self.replace_changed():
            return
        await super().recompose()

    async def replace_changed(self) -> bool:
        """Build the keys anew, but mount only those between the first and the last that
        changed, keeping the widgets before and after them. False when the footer must be
        built again whole (nothing built yet, or grouped keys)."""
        old = list(self.children)
        new = list(self.compose())
        if not old or any(not isinstance(widget, KeyWidget) for widget in old + new):
            return False
        kept_before = common_length([shown_as(w) for w in old], [shown_as(w) for w in new])
        kept_after = common_length(
            [shown_as(w) for w in old[kept_before:][::-1]],
            [shown_as(w) for w in new[kept_before:][::-1]],
        )
        gone = old[kept_before : len(old) - kept_after]
        added = new[kept_before : len(new) - kept_after]
        if gone:
            await self.remove_children(gone)
        if added:
            if kept_after:
                await self.mount_all(added, before=old[len(old) - kept_after])
            else:
                await self.mount_all(added)
        return True

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
