"""The card browser's rules (``kvdrill cards``): a card's states, the filters and sort keys,
and a listing's rows as they fit 80 columns. Pure.

A card has one main state, the first that holds of: suspended, buried (until after today),
new (never answered), due (due today or before), learning (seen, but not passed since its
last miss), review (waiting for its day). ``leech`` and ``flagged`` hold besides, so a
``--state`` filter matches a card whose main state or either mark is that word.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from operator import attrgetter
from typing import NamedTuple

from kvdrill.engine.errors import UserError, did_you_mean
from kvdrill.engine.study.grades import Grade
from kvdrill.i18n import N_, _

REFERENCE_COLUMN = 30  # longer references take a line of their own
MAIN_STATES = (N_("suspended"), N_("buried"), N_("new"), N_("due"), N_("learning"), N_("review"))
STATES = (*MAIN_STATES, N_("leech"), N_("flagged"))
# Sort key -> (the row field it reads, largest first?). Unseen cards sort last on dates.
SORT_KEYS = {
    "due": ("due_day", False),
    "lapses": ("lapses", True),
    "ease": ("easiness_milli", False),
    "last": ("last_review_at", True),
    "reviews": ("reviews", True),
    "pack": ("reference", False),
}


class BrowsedCard(NamedTuple):
    """One card of the browser, with the profile's schedule for it (a new card's defaults).
    A named tuple: a listing makes one per card of the collection, straight from the rows."""

    reference: str  # pack/card
    title: str
    kind: str
    reviews: int
    lapses: int
    easiness_milli: int
    repetitions: int
    due_day: date | None
    last_review_at: object | None  # a datetime; kept opaque for sorting
    suspended: bool
    buried_until: date | None
    leech: bool
    flag: str | None

    def main_state(self, today: date) -> str:
        if self.suspended:
            return "suspended"
        if self.buried_until is not None and self.buried_until > today:
            return "buried"
        if not self.reviews:
            return "new"
        if self.due_day is not None and self.due_day <= today:
            return "due"
        return "learning" if self.repetitions == 0 else "review"

    def states(self, today: date) -> set[str]:
        marks = {mark for mark in STATES[len(MAIN_STATES) :] if self.has_state(mark, today)}
        return {self.main_state(today)} | marks

    def has_state(self, state: str, today: date) -> bool:
        """``state`` is the card's main state or one of its marks (``leech``, ``flagged``)."""
        if state == "leech":
            return self.leech
        if state == "flagged":
            return bool(self.flag)
        return self.main_state(today) == state


def check_state(text: str) -> str:
    return _one_of(text, STATES, N_("'{text}' is not a card state{hint}: use one of {choices}"))


def check_sort(text: str) -> str:
    return _one_of(
        text, tuple(SORT_KEYS), N_("'{text}' is not a sort key{hint}: use one of {choices}")
    )


def _one_of(text: str, choices: tuple[str, ...], refusal: str) -> str:
    """``text`` (any case) when it is one of ``choices``, else a UserError naming them (the
    words themselves stay English: they are what the option takes)."""
    word = text.strip().lower()
    if word not in choices:
        hint = did_you_mean(word, list(choices)) or ""
        raise UserError(_(refusal).format(text=text, hint=hint, choices=", ".join(choices)))
    return word


def browse(
    cards: Iterable[BrowsedCard], today: date, state: str | None, sort: str | None
) -> list[BrowsedCard]:
    """``cards`` with ``state`` among their states, ordered by ``sort`` (None: pack order, as
    given); ties keep the given order."""
    chosen = list(cards) if state is None else [c for c in cards if c.has_state(state, today)]
    if sort is None:
        return chosen
    field, largest_first = SORT_KEYS[sort]
    value = attrgetter(field)
    present = [card for card in chosen if value(card) is not None]
    missing = [card for card in chosen if value(card) is None]
    present.sort(key=value, reverse=largest_first)
    return present + missing


def state_text(card: BrowsedCard, today: date) -> str:
    """The main state, then the leech mark and the flag colour: ``due,leech,red``, in the
    learner's language (the words ``--state`` and ``flag`` take stay English)."""
    marks = [card.main_state(today), *(["leech"] if card.leech else []), card.flag or ""]
    return ",".join(_(mark) for mark in marks if mark)


def listing(cards: list[BrowsedCard], today: date, width: int = 80) -> list[str]:
    """A header and a line per card: reference, title, state and due day, within ``width``
    columns. A reference is never cut (it is what the other commands take): one longer than
    its column goes on a line of its own, the rest of its row under it. A long title or state
    ends in an ellipsis."""
    rows = [
        (
            card.reference,
            card.title,
            state_text(card, today),
            card.due_day.isoformat() if card.due_day and card.reviews else "-",
        )
        for card in cards
    ]
    header = (_("CARD"), _("TITLE"), _("STATE"), _("DUE"))
    reference_width = min(REFERENCE_COLUMN, max(len(row[0]) for row in [header, *rows]))
    state_width = min(16, max(len(row[2]) for row in [header, *rows]))
    title_width = max(8, width - reference_width - state_width - 10 - 3)
    lines = []
    for reference, title, state, due in [header, *rows]:
        if len(reference) > reference_width:
            lines.append(reference)
            reference = ""
        cells = (
            f"{reference:<{reference_width}}",
            f"{cut(title, title_width):<{title_width}}",
            f"{cut(state, state_width):<{state_width}}",
            f"{due:>10}",
        )
        lines.append(" ".join(cells))
    return lines


def cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, an ellipsis marking a cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class HistoryEntry:
    """One answer in a card's history; the typed answer and diagnosis for problems."""

    reviewed_at: datetime
    quality: Grade
    seconds: float
    graded_by: str
    typed_answer: str | None
    expected: str | None
    diagnosis: str | None
    mistake: str | None


@dataclass(frozen=True)
class CardPage:
    """Everything ``kvdrill cards PACK/CARD`` shows of one card."""

    card: BrowsedCard
    interval_days: int
    prompt: str
    history: list[HistoryEntry]
    note: str | None

    @property
    def mistakes(self) -> dict[str, int]:
        """Diagnosed mistake code -> times, most frequent first."""
        counts: dict[str, int] = {}
        for entry in self.history:
            if entry.mistake:
                counts[entry.mistake] = counts.get(entry.mistake, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: -item[1]))
