"""What an import changes, per pack and in all (``import --json``, the import screen)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from kvdrill.i18n import _


class CardRef(TypedDict):
    id: str
    title: str


class PackChanges(TypedDict):
    """``PackPlan.to_dict``: one pack's entry in ``kvdrill import --json``."""

    pack: str
    path: str
    new_pack: bool
    added: list[CardRef]
    changed: list[CardRef]
    retired: list[CardRef]
    revived: list[CardRef]
    unchanged: int
    took_over_from: str | None
    took_over_pack: str | None


@dataclass
class PackPlan:
    """What importing one pack changes, by card key."""

    pack_key: str
    path: str
    new_pack: bool = False
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    revived: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)  # card key -> title, for --json
    # The file whose pack this one takes over: the same Anki deck converted again; and that
    # pack's id before (another one when the newer export went to a file of another name).
    took_over_from: str | None = None
    took_over_key: str | None = None
    # Set when the pack taken over is the edition of this pack's original in its language.
    took_over_edition_of: str | None = None

    def summary(self, number: Callable[[int], str] = str) -> str:
        """``pack-key: N added, N changed, N retired, N unchanged`` (and revived, if any);
        ``number`` writes each count for reading (the app passes its reader's convention)."""
        line = _(
            "{pack}: {added} added, {changed} changed, {retired} retired, {unchanged} unchanged"
        )
        line = line.format(
            pack=self.pack_key,
            added=number(len(self.added)),
            changed=number(len(self.changed)),
            retired=number(len(self.retired)),
            unchanged=number(len(self.unchanged)),
        )
        if self.revived:
            line += _(", {count} revived").format(count=number(len(self.revived)))
        return line

    @property
    def writes(self) -> bool:
        return bool(self.new_pack or self.added or self.changed or self.retired or self.revived)

    def to_dict(self) -> PackChanges:
        """The pack's changes with each card's id and title (``import --json``)."""

        def cards(keys: list[str]) -> list[CardRef]:
            return [{"id": key, "title": self.titles.get(key, "")} for key in keys]

        return {
            "pack": self.pack_key,
            "path": self.path,
            "new_pack": self.new_pack,
            "added": cards(self.added),
            "changed": cards(self.changed),
            "retired": cards(self.retired),
            "revived": cards(self.revived),
            "unchanged": len(self.unchanged),
            "took_over_from": self.took_over_from,
            "took_over_pack": self.took_over_key,
        }

    def takeover_line(self) -> str | None:
        """What a takeover keeps, in one line; None when this pack takes none over."""
        if self.took_over_from is None:
            return None
        if self.took_over_edition_of is not None:
            return _(
                "{pack}: takes the place of {old_pack} ({old}) as the edition of {original} in "
                "its language; the schedules are {original}'s cards' and stay"
            ).format(
                pack=self.pack_key,
                old_pack=self.took_over_key,
                old=self.took_over_from,
                original=self.took_over_edition_of,
            )
        if self.took_over_key not in (None, self.pack_key):
            return _(
                "{pack}: the same Anki deck as {old} (pack {old_pack}), converted again: {new} "
                "takes over its cards by their ids, with their history"
            ).format(
                pack=self.pack_key,
                old=self.took_over_from,
                old_pack=self.took_over_key,
                new=self.path,
            )
        return _(
            "{pack}: the same Anki deck as {old}, converted again: {new} takes over its "
            "cards by their ids, with their history"
        ).format(pack=self.pack_key, old=self.took_over_from, new=self.path)


@dataclass
class ImportPlan:
    packs: list[PackPlan] = field(default_factory=list)

    def summary_lines(self, number: Callable[[int], str] = str) -> list[str]:
        lines = []
        for pack in self.packs:
            lines.append(pack.summary(number))
            if (takeover := pack.takeover_line()) is not None:
                lines.append(takeover)
        return lines

    def count(self, what: str) -> int:
        """Total over packs of ``added``, ``changed``, ``retired``, ``unchanged`` or ``revived``."""
        return sum(len(getattr(pack, what)) for pack in self.packs)
