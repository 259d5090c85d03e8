"""What a foreign deck is once read: the contract between the readers and the pack writer.

store/anki_package.py (packages) and engine/interop/delimited.py (text files) build these;
engine/interop/pack_text.py turns them into a kvdrill pack.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvdrill.engine.errors import Located, UserError

# A card field longer than this is refused: no flash card needs it, and one would swamp a pack.
MAX_FIELD_CHARS = 65_536


@dataclass(frozen=True)
class ForeignField:
    name: str | None  # the note type's field name, when the source says it
    text: str  # HTML when the note's ``html`` is true, else plain text


@dataclass(frozen=True)
class AnkiReview:
    """One row of Anki's review log (``revlog``), as Anki stores it."""

    id: int  # milliseconds since the epoch: when the answer was given, and the row's identity
    ease: int  # the button: 1 Again, 2 Hard, 3 Good, 4 Easy; 0 for a manual reschedule
    interval: int  # after the answer: days, or negative seconds while learning
    factor: int  # ease factor after the answer, in permille (2500 is 2.5)
    taken_ms: int  # time taken to answer
    kind: int  # 0 learn, 1 review, 2 relearn, 3 filtered, 4 manual, 5 rescheduled


@dataclass(frozen=True)
class AnkiCard:
    """One of a note's Anki cards with its scheduling, as the collection stores it."""

    ord: int  # the template (or, for a cloze note, the cloze number minus one)
    type: int = 0  # 0 new, 1 learning, 2 review, 3 relearning
    queue: int = 0  # -3 and -2 buried, -1 suspended, 0 new, 1 and 3 learning, 2 review
    due: int = 0  # review: day number since the collection's creation; learning: epoch seconds
    interval: int = 0  # days
    factor: int = 0  # permille
    lapses: int = 0
    stability: float | None = None  # FSRS memory state, when the collection used FSRS
    difficulty: float | None = None
    reviews: tuple[AnkiReview, ...] = ()
    front_fields: tuple[str, ...] | None = None  # the fields its question shows, when known


@dataclass(frozen=True)
class ForeignNote:
    fields: tuple[ForeignField, ...]  # first: the front; second: the back; then any others
    tags: tuple[str, ...]
    html: bool
    source_id: str | None = None  # Anki's note guid: the note's identity across collections
    line: int = 1  # where the note is in its source (1 in a package)
    cards: tuple[AnkiCard, ...] = ()  # from a package; a text file says nothing of cards
    deck: str | None = None  # the Anki deck of its first card, when known


@dataclass(frozen=True)
class ForeignDeck:
    notes: tuple[ForeignNote, ...]
    title: str  # a title for the pack: the deck's name, or the file's
    media: tuple[str, ...] = ()  # the names of the package's media files
    created: int | None = None  # the collection's creation (epoch seconds): day 0 of review dues
    modified: int | None = None  # the collection's last change (epoch seconds)


class ConvertError(UserError):
    """One problem with a file being converted, printed as ``path:line: message``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.problem = Located(path, line, message)
        super().__init__(str(self.problem))


def check_field_size(text: str, path: str, line: int) -> None:
    if len(text) > MAX_FIELD_CHARS:
        raise ConvertError(
            path,
            line,
            f"a field is {len(text):,} characters long; a card field may be at most "
            f"{MAX_FIELD_CHARS:,}",
        )


def too_many_notes(count: int | None = None) -> str:
    """Why a deck of ``count`` notes (None: more than a pack holds, counted no further) is
    refused, before any is converted."""
    from kvdrill.engine.packs.model import MAX_CARDS_PER_PACK

    counted = f"{count:,}" if count is not None else f"more than {MAX_CARDS_PER_PACK:,}"
    return (
        f"{counted} notes; a pack holds at most {MAX_CARDS_PER_PACK:,} cards, "
        "so convert the deck in parts (export its subdecks one at a time)"
    )
