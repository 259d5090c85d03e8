"""A profile's settings: their defaults, their bounds and how a change is checked. Pure.

Every setting is one line of ``ProfileSettings``: a ``setting(...)`` with its default, what it
means, and its bounds (numbers) or choices (words). The store keeps the first settings in their
own columns of ``profiles`` and every other one in that row's ``options`` JSON, so a new setting
needs no migration (store/profiles.py); the CLI, the TUI settings screen, the queue policy and
the countdown all read them from here.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypedDict, cast

from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.i18n import N_, _

DEFAULT_NEW_PER_DAY = 10
DEFAULT_REVIEWS_PER_DAY = 200
DEFAULT_ROLLOVER_HOUR = 4  # a study day starts at 04:00 local time
DEFAULT_ANSWER_SECONDS = 60
THEMES = ("dark", "light")
# The pack languages a learner can choose; packs declare theirs with ``lang:`` in front matter.
LANGUAGES = ("en", "vi")
# The language of the course's packs: offered in every language, in an edition where one exists.
COURSE_LANGUAGE = "en"
# The schedulers a profile can choose (engine/study/rules.py); switching replays the review log.
SCHEDULERS = ("sm2", "fsrs")
# The orders a pack's new cards can come in: the pack's own (its file's), or shuffled by a
# seed that does not change, so the order is the same every day (engine/study/queue.py).
NEW_ORDERS = ("file", "random")
# What a pack setting is given to take the profile's rule again (no setting of its own).
PACK_DEFAULT = "default"
DEFAULT_DESIRED_RETENTION = 0.9
FSRS_PARAMETER_COUNT = 21  # FSRS-6's weights


@dataclass(frozen=True)
class Setting:
    """What one setting means and which values it takes: ``low``..``high`` or ``choices``."""

    meaning: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    def allowed(self, kind: type) -> str:
        if self.choices:
            return _("one of {choices}").format(choices=", ".join(self.choices))
        if kind is int:
            allowed = _("a whole number from {low} to {high}")
        else:
            allowed = _("a number from {low} to {high}")
        return allowed.format(low=_number_text(self.low), high=_number_text(self.high))

    def check(self, name: str, kind: type, value: object) -> Any:
        """``value`` when it is allowed, else a UserError naming what is."""
        if self._fits(kind, value):
            return float(value) if kind is float else value  # type: ignore[arg-type]
        raise UserError(
            _("{name} ({meaning}) must be {allowed}").format(
                name=name, meaning=_(self.meaning), allowed=self.allowed(kind)
            )
        )

    def _fits(self, kind: type, value: object) -> bool:
        if self.choices:
            return isinstance(value, str) and value in self.choices
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if kind is int and not isinstance(value, int):
            return False
        assert self.low is not None and self.high is not None
        return math.isfinite(value) and self.low <= value <= self.high

    def parse(self, name: str, kind: type, text: str) -> Any:
        """The value typed as ``text`` (a command-line argument), checked."""
        value: object = text.strip()
        if kind in (int, float):
            try:
                value = kind(text.strip())
            except ValueError:
                value = None
        return self.check(name, kind, value)


def setting(default: Any, meaning: str, *, kind: type | None = None, **bounds: Any) -> Any:
    """One field of ``ProfileSettings`` or ``PackSettings``: ``low=``/``high=`` for a number,
    ``choices=`` for a word; ``kind`` when the default (None) does not say it."""
    return field(default=default, metadata={"setting": Setting(meaning, **bounds), "kind": kind})


class SettingsJson(TypedDict):
    """A profile's settings as ``to_dict`` gives them (``kvdrill settings --json``, the export):
    one key per field of ``ProfileSettings`` (tests/test_json_shapes.py holds them equal)."""

    new_per_day: int
    reviews_per_day: int
    rollover_hour: int
    answer_seconds: int
    theme: str
    language: str
    scheduler: str
    desired_retention: float
    fsrs_parameters: tuple[float, ...] | None


@dataclass(frozen=True)
class ProfileSettings:
    # Adding a setting is one line here and its key in ``SettingsJson``; the store, the CLI
    # and the TUI pick it up.
    new_per_day: int = setting(DEFAULT_NEW_PER_DAY, N_("new cards per day"), low=0, high=1000)
    reviews_per_day: int = setting(
        DEFAULT_REVIEWS_PER_DAY, N_("reviews per day"), low=0, high=100_000
    )
    rollover_hour: int = setting(
        DEFAULT_ROLLOVER_HOUR, N_("the hour a study day starts"), low=0, high=23
    )
    answer_seconds: int = setting(DEFAULT_ANSWER_SECONDS, N_("seconds to answer"), low=5, high=3600)
    theme: str = setting("dark", N_("the colour theme"), choices=THEMES)
    language: str = setting(
        COURSE_LANGUAGE,
        N_("the language of the packs you study and of the screens"),
        choices=LANGUAGES,
    )
    scheduler: str = setting("sm2", N_("the scheduling algorithm"), choices=SCHEDULERS)
    desired_retention: float = setting(
        DEFAULT_DESIRED_RETENTION,
        N_("the recall FSRS aims for at a card's due day"),
        low=0.7,
        high=0.99,
    )
    # FSRS's weights fitted to this learner's log by ``kvdrill optimize --save``; None: the
    # ``fsrs`` package's defaults. Kept with the settings, but not one that is typed in.
    fsrs_parameters: tuple[float, ...] | None = None

    def to_dict(self) -> SettingsJson:
        return cast(SettingsJson, asdict(self))

    def value(self, name: str) -> object:
        """The setting ``name``'s value (a name from ``setting_names``)."""
        return getattr(self, name)

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> ProfileSettings:
        """Settings from stored values; a missing or no longer allowed one takes its default."""
        kept: dict[str, Any] = {"fsrs_parameters": checked_fsrs_parameters(values)}
        for item in fields(cls):
            if item.name in values and "setting" in item.metadata:
                try:
                    kept[item.name] = _rule(item.name).check(
                        item.name, _kind(item.name), values[item.name]
                    )
                except UserError:
                    continue
        return cls(**kept)


class PackSettingsJson(TypedDict):
    """One pack's own settings as ``PackSettings.to_dict`` gives them (None: the default)."""

    new_per_day: int | None
    new_order: str | None


@dataclass(frozen=True)
class PackSettings:
    """One pack's own settings for one profile, as Anki's deck options: None is no setting of
    its own (``kvdrill settings --pack PACK KEY VALUE``; ``default`` takes one off)."""

    # At most this many new cards of the pack a day, within the profile's ``new_per_day``.
    new_per_day: int | None = setting(
        None, N_("new cards of this pack per day, within the profile's"), kind=int, low=0, high=1000
    )
    new_order: str | None = setting(
        None, N_("the order of this pack's new cards"), kind=str, choices=NEW_ORDERS
    )

    def to_dict(self) -> PackSettingsJson:
        return cast(PackSettingsJson, asdict(self))

    @property
    def shuffled(self) -> bool:
        """The pack's new cards come shuffled (``new_order random``), not in file order."""
        return self.new_order == "random"

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> PackSettings:
        """Settings from stored values; a None or no longer allowed one is no setting."""
        kept = {}
        for name in pack_setting_names():
            if values.get(name) is not None:
                try:
                    kept[name] = _rule(name, cls).check(name, _kind(name, cls), values[name])
                except UserError:
                    continue
        return cls(**kept)


def pack_setting_names() -> list[str]:
    """The settings a pack can have of its own (``kvdrill settings --pack PACK KEY VALUE``)."""
    return [item.name for item in fields(PackSettings)]


def describe_pack_setting(name: str) -> tuple[str, str]:
    """What pack setting ``name`` means and the values it takes, for a listing."""
    rule = _rule(name, PackSettings)
    allowed = _("{allowed}, or {default}").format(
        allowed=rule.allowed(_kind(name, PackSettings)), default=PACK_DEFAULT
    )
    return _(rule.meaning), allowed


def parse_pack_setting(name: str, text: str) -> Any:
    """The value ``text`` typed for pack setting ``name`` (None for ``default``: no setting of
    the pack's own), or a UserError naming what is allowed."""
    rule = _rule(name, PackSettings)
    if text.strip() == PACK_DEFAULT:
        return None
    try:
        return rule.parse(name, _kind(name, PackSettings), text)
    except UserError:
        meaning, allowed = describe_pack_setting(name)
        raise UserError(
            _("{name} ({meaning}) must be {allowed}").format(
                name=name, meaning=meaning, allowed=allowed
            )
        ) from None


def checked_fsrs_parameters(values: dict[str, Any]) -> tuple[float, ...] | None:
    """The stored FSRS weights in ``values`` as a tuple; None when absent or not 21 finite
    numbers (the defaults then apply)."""
    stored = values.get("fsrs_parameters")
    if not isinstance(stored, (list, tuple)) or len(stored) != FSRS_PARAMETER_COUNT:
        return None
    if not all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in stored
    ):
        return None
    return tuple(float(x) for x in stored)


def setting_names() -> list[str]:
    """The settings a learner types in (``kvdrill settings KEY VALUE``, the settings screen)."""
    return [item.name for item in fields(ProfileSettings) if "setting" in item.metadata]


def describe_setting(name: str) -> tuple[str, str]:
    """What setting ``name`` means and the values it takes, for a listing."""
    rule = _rule(name)
    return _(rule.meaning), rule.allowed(_kind(name))


def parse_setting(name: str, text: str) -> Any:
    """The value ``text`` typed for setting ``name``, or a UserError naming what is allowed."""
    return _rule(name).parse(name, _kind(name), text)


def check_setting_changes(changes: dict[str, object]) -> dict[str, Any]:
    """``changes`` when every name is a setting and every value allowed; else a UserError
    naming the first wrong one (so a caller changes all or nothing)."""
    return {name: _rule(name).check(name, _kind(name), value) for name, value in changes.items()}


def _rule(name: str, of: type = ProfileSettings) -> Setting:
    for item in fields(of):
        if item.name == name and "setting" in item.metadata:
            return item.metadata["setting"]
    if of is PackSettings:
        known = pack_setting_names()
        hint = did_you_mean(name, known) or f" ({', '.join(known)})"
        raise UserError(_("there is no pack setting '{name}'{hint}").format(name=name, hint=hint))
    known = setting_names()
    hint = did_you_mean(name, known) or f" (settings: {', '.join(known)})"
    raise UserError(f"there is no profile setting '{name}'{hint}")


def _kind(name: str, of: type = ProfileSettings) -> type:
    for item in fields(of):
        if item.name == name and item.metadata.get("kind") is not None:
            return item.metadata["kind"]
    return type(getattr(of(), name))


def _number_text(value: float | None) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
