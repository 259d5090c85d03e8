"""The profile's settings, one line each: type a new value and press Enter to save it.

The same checks as ``kvdrill settings KEY VALUE`` (engine/study/settings.py): a value out of
bounds is refused in one line naming what is allowed, and nothing changes. Opened for a pack
(``p`` on a home row), the screen holds that pack's own settings instead, as ``kvdrill settings
--pack PACK KEY VALUE`` sets them (``default``: none of the pack's own).
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Input, Static

from kvdrill.app.tui.messages import CallFailed, SettingsLoaded, failures_reported
from kvdrill.app.tui.screens.base import KvdrillScreen
from kvdrill.engine.study.settings import (
    PACK_DEFAULT,
    PackSettings,
    ProfileSettings,
    describe_pack_setting,
    describe_setting,
    pack_setting_names,
    setting_names,
)
from kvdrill.i18n import N_, _, language


class SettingsScreen(KvdrillScreen[None]):
    """Every profile setting with what it means and the values it takes; with ``pack``, that
    pack's own settings."""

    BINDINGS = [Binding("escape", "app.pop_screen", N_("Back"), tooltip=N_("back"))]
    WIDGET_KEYS = [
        ("Tab / shift+Tab", N_("move between settings")),
        ("Enter", N_("save the value typed")),
    ]

    def __init__(self, pack: str | None = None) -> None:
        super().__init__()
        self.pack = pack

    def names(self) -> list[str]:
        return setting_names() if self.pack is None else pack_setting_names()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="settings-body"):
            if self.pack is None:
                title = Content.from_markup(_("[b]Settings[/b] of profile $p"), p=self.app.profile)
            else:
                title = Content.from_markup(
                    _("[b]Settings of pack[/b] $pack [b]of profile[/b] $p"),
                    pack=self.pack,
                    p=self.app.profile,
                )
            yield Static(title)
            for name in self.names():
                describe = describe_setting if self.pack is None else describe_pack_setting
                meaning, allowed = describe(name)
                with Horizontal(classes="setting-row"):
                    yield Static(Content(name), classes="setting-name")
                    yield Input(id=f"setting-{name}", classes="setting-value", disabled=True)
                    yield Static(Content(f"{meaning} ({allowed})"), classes="setting-help")
        # Outside the scroll: a refusal is read where it is typed, whichever row that is.
        yield Static(Content(_("Loading…")), id="settings-status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.saved: dict[str, object] = {}
        self.saving: str | None = None
        self.load_settings()

    @work(thread=True, group="settings", exclusive=True, exit_on_error=False)
    def load_settings(self) -> None:
        with failures_reported(self):
            backend = self.app.backend
            if self.pack is None:
                self.post_message(SettingsLoaded(backend.settings()))
            else:
                self.pack = backend.check_pack(self.pack)  # an edition's original
                settings = backend.pack_settings().get(self.pack, PackSettings())
                self.post_message(SettingsLoaded(settings))

    @work(thread=True, group="settings", exit_on_error=False)
    def save_setting(self, name: str, text: str) -> None:
        with failures_reported(self):
            settings: ProfileSettings | PackSettings
            if self.pack is None:
                settings = self.app.backend.change_setting_text(name, text)
            else:
                _key, settings = self.app.backend.change_pack_setting_text(self.pack, name, text)
            self.post_message(SettingsLoaded(settings, changed=name))

    def on_settings_loaded(self, message: SettingsLoaded) -> None:
        values = message.settings.to_dict()
        # A pack setting of None is the profile's rule: shown as the word that gives it back.
        self.saved = {
            name: PACK_DEFAULT if value is None else value for name, value in values.items()
        }
        for name in self.names():
            field = self.query_one(f"#setting-{name}", Input)
            field.value = str(self.saved[name])
            field.disabled = False
        status = _("Type a value and press Enter to save it.")
        if message.changed is not None:
            status = _("Saved: {name} = {value}").format(
                name=message.changed, value=self.saved[message.changed]
            )
            if message.changed == "theme":
                self.app.apply_theme_name(values["theme"])
            if message.changed == "language" and values["language"] != language():
                self.app.apply_language(values["language"])
                self.refresh(recompose=True)
        else:
            self.query_one(f"#setting-{self.names()[0]}", Input).focus()
        status_line = self.query_one("#settings-status", Static)
        status_line.remove_class("-refused")
        status_line.update(Content(status))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = (event.input.id or "").removeprefix("setting-")
        self.saving = name
        self.save_setting(name, event.value)

    def on_call_failed(self, message: CallFailed) -> None:
        # The field shows the value kept, not the refused one: the line below says what was
        # refused and why.
        status_line = self.query_one("#settings-status", Static)
        status_line.add_class("-refused")
        if self.saving not in self.saved:  # the settings did not even load
            status_line.update(
                Content.from_markup(_("[b]Not saved:[/b] $error"), error=str(message.error))
            )
            return
        field = self.query_one(f"#setting-{self.saving}", Input)
        refused, field.value = field.value, str(self.saved[self.saving])
        status_line.update(
            Content.from_markup(
                _("[b]Not saved:[/b] “$refused”: $error; it stays $kept."),
                refused=refused,
                error=str(message.error),
                kept=field.value,
            )
        )
