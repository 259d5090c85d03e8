"""The daily queue: which cards a session shows, and in what order. Pure policy, no database.

``plan_day`` picks the cards of a session from what the store knows about every card:

1. Due reviews first: most overdue first, then lowest easiness (the hardest cards), then pack
   order. At most the daily review cap minus the reviews already done today.
2. Cards missed earlier today (last grade below 4) whose step-7 repeat is still owed; they do not
   count against either limit.
3. New cards, up to the daily new-card limit minus the new cards already introduced today
   (``--new N`` replaces that allowance with N for one session), taken in this order until the
   allowance is used; a pack with a new-card limit of its own (``PackSettings.new_per_day``)
   gives at most that many a day, less those it gave earlier today (``pack_new_room``, the
   one rule every count of new cards applies, ``--new N`` included):

   a. by kind in turn: the first card of each kind, then the second of each, and so on (a kind
      that runs out drops out). The kinds are recall (follow-ups count as recall), multiple
      choice and problem, in the order each first appears in pack order;
   b. within a kind, by pack in turn, the same way: the first card of each pack, then the
      second of each... The packs holding a ``priority`` card of that kind go first, then the
      others; within each group the pack with the fewest cards of that kind seen so far goes
      first (then pack order), so the turns carry on from one day to the next and a pack late
      in pack order is met in the first week, not only once the earlier packs run out;
   c. within one pack and kind, the ``priority`` cards first, then pack order, or for a pack
      whose ``new_order`` is ``random`` a shuffle that is the same every day (``shuffle_key``).

   So a first day holds a multiple-choice question and a problem, not only the first pack's
   recall cards. The session then shows the priority cards taken first, then the others.
   A follow-up is new only once its parent has been seen: either on an earlier day, or in this
   same session, where it is held back, shown right after its parent's first answer, and taken
   along with its parent while the allowance lasts. A follow-up counts as a new card.
4. Problem templates are spread evenly among the other cards of the same group (due, new
   priority, new) instead of coming as a block.
5. ``--limit N`` caps the cards of the session (held follow-ups included), keeping the order.

Suspended cards, cards buried until a later day and retired cards are left out.

``SessionQueue`` then runs the session. SM-2 step 7: a card graded below 4 comes back after
``REQUEUE_GAP`` other cards (at the end when fewer remain) until it is graded 4 or more.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, NamedTuple, cast

from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI, Schedule
from kvdrill.engine.study.settings import (
    DEFAULT_NEW_PER_DAY,
    DEFAULT_REVIEWS_PER_DAY,
    PackSettings,
)
from kvdrill.engine.study.sm2 import SESSION_REPEAT_BELOW

# A missed card comes back after this many other cards.
REQUEUE_GAP = 3


class QueueCard(NamedTuple):
    """What the policy needs to know about one card for one profile: the card's place and kind
    with the few fields of its ``Schedule`` the policy reads.

    A named tuple, not a ``Schedule``: a session plans over every card of the collection, and
    these are made fast, straight from the queue query's rows.
    """

    card_id: int
    kind: str  # recall | choice | problem | followup
    order: int  # rank in pack order across the collection (pack, then position in the pack)
    parent_id: int | None = None  # follow-ups: the card they follow
    due_day: date | None = None  # None: never reviewed, a new card
    easiness_milli: int = NEW_CARD_EASINESS_MILLI
    seen: bool = False  # reviewed at least once (on any day)
    missed_today: bool = False  # its last grade today was below 4: the step-7 repeat is owed
    suspended: bool = False
    buried_until: date | None = None  # hidden while today < buried_until
    retired: bool = False
    pack: int = 0  # the card's pack (new cards are drawn from every pack in turn)
    priority: bool = False  # marked ``priority`` in its pack: first among new cards

    @property
    def is_new(self) -> bool:
        return not self.seen

    @property
    def pile(self) -> tuple[int, str]:
        """The pack and kind new cards are drawn from in turn (a follow-up is a recall card)."""
        return self.pack, "recall" if self.kind == "followup" else self.kind


@dataclass(frozen=True)
class DayCounts:
    """Per-profile limits, each pack's own settings (by pack id), and what today's earlier
    sessions already used of the limits."""

    new_per_day: int = DEFAULT_NEW_PER_DAY
    reviews_per_day: int = DEFAULT_REVIEWS_PER_DAY
    new_done_today: int = 0
    reviews_done_today: int = 0
    packs: Mapping[int, PackSettings] = field(default_factory=dict)
    new_done_by_pack: Mapping[int, int] = field(default_factory=dict)


NO_PACK_SETTINGS = PackSettings()


def pack_new_room(counts: DayCounts, pack: int) -> int | None:
    """How many more new cards ``pack`` may give today: its own limit less the new cards it
    gave earlier today; None when it has no limit of its own (only the profile's applies)."""
    limit = counts.packs.get(pack, NO_PACK_SETTINGS).new_per_day
    if limit is None:
        return None
    return max(0, limit - counts.new_done_by_pack.get(pack, 0))


def shuffle_key(card: QueueCard) -> bytes:
    """A card's place in its pack's shuffled new-card order (``new_order random``): a hash of
    the pack and card ids, so the shuffle is the same in every process and on every day."""
    return hashlib.sha256(f"{card.pack}:{card.card_id}".encode()).digest()[:8]


def missing_parents(cards: Iterable[QueueCard]) -> set[int]:
    """Parents of follow-ups in ``cards`` that are not among them (retired, or filtered out)."""
    cards = list(cards)
    present = {card.card_id for card in cards}
    return {c.parent_id for c in cards if c.parent_id is not None and c.parent_id not in present}


def with_seen_parents(cards: list[QueueCard], seen_parents: Iterable[int]) -> list[QueueCard]:
    """``cards`` plus missing parents the profile has seen, as unavailable entries, so the policy
    knows a follow-up's parent has been seen even when the parent itself cannot be shown."""
    extra = [
        QueueCard(card_id=parent, kind="recall", order=-1, seen=True, retired=True)
        for parent in sorted(seen_parents)
    ]
    return cards + extra


def read_today_log(
    answers: Iterable[tuple[int, int, bool, Schedule | None, int]],
    new_per_day: int,
    reviews_per_day: int,
    packs: Mapping[int, PackSettings] | None = None,
) -> tuple[DayCounts, set[int]]:
    """Today's counts against the daily limits, and the cards whose last grade today was < 4.

    ``answers`` are today's logged answers in the order given: card id, quality, whether the
    answer moved the schedule, the card's state before it (None for a new card) and its pack.
    ``packs``: each pack's own settings, by pack id.
    """
    new_done = reviews_done = 0
    new_by_pack: Counter[int] = Counter()
    last_quality: dict[int, int] = {}
    for card_id, quality, moved, prev_state, pack in answers:
        if moved:
            if prev_state is None or prev_state.is_new:
                new_done += 1
                new_by_pack[pack] += 1
            else:
                reviews_done += 1
        last_quality[card_id] = quality
    counts = DayCounts(
        new_per_day=new_per_day,
        reviews_per_day=reviews_per_day,
        new_done_today=new_done,
        reviews_done_today=reviews_done,
        packs=dict(packs or {}),
        new_done_by_pack=new_by_pack,
    )
    missed = {card for card, quality in last_quality.items() if quality < SESSION_REPEAT_BELOW}
    return counts, missed


@dataclass(frozen=True)
class Plan:
    """A session's cards. ``follow_ups`` are held until their parent has been answered once."""

    cards: tuple[int, ...]
    follow_ups: dict[int, tuple[int, ...]] = field(default_factory=dict)
    repeats: frozenset[int] = frozenset()  # cards missed earlier today
    new_cards: frozenset[int] = frozenset()


def is_available(card: QueueCard, today: date) -> bool:
    """Not suspended, not buried until after today, not retired."""
    if card.suspended or card.retired:
        return False
    return card.buried_until is None or card.buried_until <= today


def interleave(main: Sequence[int], extra: Sequence[int]) -> list[int]:
    """``extra`` spread evenly through ``main``, both keeping their own order."""
    # Item i of a list of n sits at (i + 1) / (n + 1); cross-multiplied to stay in integers.
    keyed = [((i + 1) * (len(extra) + 1), 0, card) for i, card in enumerate(main)]
    keyed += [((j + 1) * (len(main) + 1), 1, card) for j, card in enumerate(extra)]
    return [card for _, _, card in sorted(keyed, key=lambda item: (item[0], item[1]))]


def _spread_problems(cards: Sequence[QueueCard]) -> list[int]:
    others = [c.card_id for c in cards if c.kind != "problem"]
    problems = [c.card_id for c in cards if c.kind == "problem"]
    return interleave(others, problems)


def _in_turn(
    cards: Sequence[QueueCard], seen: Counter[tuple[int, str]], shuffled: Iterable[int] = ()
) -> list[QueueCard]:
    """``cards`` (in pack order) drawn one kind at a time in turn (recall, choice, problem),
    each kind's cards drawn one pack at a time in turn. Priority cards come first in their
    pack's pile, and piles holding priority cards take their turn first; then the piles of
    which fewer cards are ``seen`` (a pile's count of cards seen on earlier days). The piles
    of the ``shuffled`` packs are in ``shuffle_key`` order after their priority cards."""
    by_kind: dict[str, list[QueueCard]] = {}
    for card in cards:
        by_kind.setdefault(card.pile[1], []).append(card)
    shuffled = frozenset(shuffled)
    return _round_robin([_across(kind_cards, seen, shuffled) for kind_cards in by_kind.values()])


def _across(
    cards: list[QueueCard], seen: Counter[tuple[int, str]], shuffled: frozenset[int]
) -> list[QueueCard]:
    piles: dict[tuple[int, str], list[QueueCard]] = {}
    for card in sorted(cards, key=lambda c: (not c.priority, c.order)):
        piles.setdefault(card.pile, []).append(card)
    # The piles take turns as their first cards in file order say, however they are shuffled.
    turns = sorted(piles.values(), key=lambda p: (not p[0].priority, seen[p[0].pile], p[0].order))
    return _round_robin(
        [
            sorted(pile, key=lambda c: (not c.priority, shuffle_key(c)))
            if pile[0].pack in shuffled
            else pile
            for pile in turns
        ]
    )


def _round_robin(queues: list[list[QueueCard]]) -> list[QueueCard]:
    drawn: list[QueueCard] = []
    for rank in range(max((len(queue) for queue in queues), default=0)):
        drawn += [queue[rank] for queue in queues if rank < len(queue)]
    return drawn


def plan_day(
    cards: Iterable[QueueCard],
    today: date,
    counts: DayCounts = DayCounts(),
    new_limit: int | None = None,
    limit: int | None = None,
) -> Plan:
    """The cards of one session, in order (see the module docstring for the rules)."""
    cards = list(cards)
    available = [c for c in cards if is_available(c, today)]
    room = limit if limit is not None else len(available)

    due = sorted(
        (c for c in available if c.seen and c.due_day is not None and c.due_day <= today),
        key=lambda c: (c.due_day, c.easiness_milli, c.order),
    )
    due = due[: max(0, min(counts.reviews_per_day - counts.reviews_done_today, room))]
    room -= len(due)
    due_ids = {c.card_id for c in due}

    repeats = sorted(
        (c for c in available if c.missed_today and c.card_id not in due_ids),
        key=lambda c: c.order,
    )[: max(0, room)]
    room -= len(repeats)

    allowance = new_limit if new_limit is not None else counts.new_per_day - counts.new_done_today
    new_room = max(0, min(allowance, room))
    seen_ids = {c.card_id for c in cards if c.seen}
    new_cards = sorted((c for c in available if c.is_new), key=lambda c: c.order)
    follow_ups: dict[int, list[QueueCard]] = {}  # new follow-ups of a parent new today
    candidates = []
    for card in new_cards:
        if card.kind == "followup" and card.parent_id is not None:
            if card.parent_id not in seen_ids:
                # New only with its parent, in this session: held back for it.
                follow_ups.setdefault(card.parent_id, []).append(card)
                continue
        candidates.append(card)
    chosen: list[QueueCard] = []
    held: dict[int, list[int]] = {}
    chosen_ids: set[int] = set()
    seen_per_pile = Counter(card.pile for card in cards if card.seen and not card.retired)
    pack_room = {pack: pack_new_room(counts, pack) for pack in {c.pack for c in new_cards}}
    shuffled = [pack for pack, settings in counts.packs.items() if settings.shuffled]

    def take(card: QueueCard) -> bool:
        """Take ``card`` if the session and its pack have room for one more new card."""
        room_left = pack_room[card.pack]
        if len(chosen_ids) >= new_room or room_left == 0:
            return False
        if room_left is not None:
            pack_room[card.pack] = room_left - 1
        chosen_ids.add(card.card_id)
        return True

    for card in _in_turn(candidates, seen_per_pile, shuffled):
        if len(chosen_ids) >= new_room:
            break
        if not take(card):
            continue
        chosen.append(card)
        for follow_up in follow_ups.get(card.card_id, []):
            # Shown right after the parent's first answer, and from the parent's pack.
            if take(follow_up):
                held.setdefault(card.card_id, []).append(follow_up.card_id)

    order = _spread_problems(due) + [c.card_id for c in repeats]
    order += _spread_problems([c for c in chosen if c.priority])
    order += _spread_problems([c for c in chosen if not c.priority])
    return Plan(
        cards=tuple(order),
        follow_ups={parent: tuple(ids) for parent, ids in held.items()},
        repeats=frozenset(c.card_id for c in repeats),
        new_cards=frozenset(chosen_ids),
    )


def cram_plan(cards: Iterable[QueueCard], today: date, limit: int | None = None) -> Plan:
    """A practice session (``drill --cram``): every available card, seen or new, in pack
    order (follow-ups too), up to ``limit``; nothing is held back and no daily limit applies."""
    chosen = [
        card.card_id for card in sorted(cards, key=lambda c: c.order) if is_available(card, today)
    ]
    return Plan(cards=tuple(chosen[:limit] if limit is not None else chosen))


def session_plan(
    cards: Iterable[QueueCard],
    today: date,
    counts: DayCounts = DayCounts(),
    *,
    new_limit: int | None = None,
    limit: int | None = None,
    cram: bool = False,
    ahead: int | None = None,
) -> Plan:
    """The plan a drill session starts from, and so its first card: ``DrillSession.open`` and
    the fast-start helper (store/fast_start.py) both take it from here. ``cram``: a practice
    session (``cram_plan``); ``ahead``: the reviews due in the next ``ahead`` days too, and no
    new cards unless ``new_limit`` asks for some (as Anki's custom study)."""
    if cram:
        return cram_plan(cards, today, limit)
    if ahead is not None and new_limit is None:
        new_limit = 0
    horizon = today + timedelta(days=ahead or 0)
    return plan_day(cards, horizon, counts, new_limit=new_limit, limit=limit)


def due_and_new(plan: Plan) -> tuple[int, int]:
    """How many cards a session of ``plan`` holds: due ones (reviews and today's owed repeats)
    and new ones (follow-ups held for a new parent included)."""
    total = len(plan.cards) + sum(len(held) for held in plan.follow_ups.values())
    return total - len(plan.new_cards), len(plan.new_cards)


class SessionQueue:
    """The running order of one session: answers, step-7 repeats, held follow-ups, undo.

    The order is the plan's cards from ``_next`` on, after a short ``_front`` list: cards only
    ever go back in near the front (released follow-ups, a repeat ``gap`` cards on), so the
    plan itself is never copied. Undo takes a snapshot before every answer; it costs a few
    small objects instead of a copy of the whole session (thousands of card ids on a big
    collection, kept for every answer and walked by each garbage collection)."""

    def __init__(self, plan: Plan, gap: int = REQUEUE_GAP):
        self._planned: tuple[int, ...] = tuple(plan.cards)
        self._next = 0  # the first planned card not yet shown or moved to the front
        self._front: list[int] = []
        # Replaced, never changed in place, so a snapshot can share them.
        self._held: dict[int, tuple[int, ...]] = {k: tuple(v) for k, v in plan.follow_ups.items()}
        self._missed: frozenset[int] = frozenset(plan.repeats)
        self._set_aside = 0  # cards taken out (suspended, buried), follow-ups held for them too
        self._gap = gap

    @property
    def current(self) -> int | None:
        if self._front:
            return self._front[0]
        return self._planned[self._next] if self._next < len(self._planned) else None

    @property
    def remaining(self) -> int:
        """Cards still to show, counting the current one, owed repeats and held follow-ups."""
        pending = len(self._front) + len(self._planned) - self._next
        return pending + sum(len(held) for held in self._held.values())

    @property
    def set_aside(self) -> int:
        """Cards taken out of this session by ``drop_current(set_aside=True)``."""
        return self._set_aside

    def is_repeat(self, card_id: int) -> bool:
        """The card was graded below 4 earlier today and is shown again (step 7)."""
        return card_id in self._missed

    def answered(self, quality: int) -> None:
        """The current card got ``quality``: release its follow-ups, requeue it if below 4."""
        card = self._pop()
        self._front[0:0] = self._take_held(card)
        if quality < SESSION_REPEAT_BELOW:
            if card not in self._missed:
                self._missed = self._missed | {card}
            place = self._gap
            while len(self._front) < place and self._next < len(self._planned):
                self._front.append(self._planned[self._next])
                self._next += 1
            self._front.insert(place, card)  # at the end when fewer cards remain

    def drop_current(self, set_aside: bool = True) -> None:
        """Take the current card out, with follow-ups held for it; ``set_aside`` (suspended or
        buried, not a card that cannot be shown at all) counts them in ``set_aside``."""
        held = self._take_held(self._pop())
        if set_aside:
            self._set_aside += 1 + len(held)

    def _pop(self) -> int:
        if self._front:
            return self._front.pop(0)
        if self._next >= len(self._planned):
            raise IndexError("the session is over: there is no current card")
        self._next += 1
        return self._planned[self._next - 1]

    def _take_held(self, card: int) -> tuple[int, ...]:
        if card not in self._held:
            return ()
        held = dict(self._held)
        follow_ups = held.pop(card)
        self._held = held
        return follow_ups

    def snapshot(self) -> object:
        """An opaque copy of the running order, for undo."""
        return tuple(self._front), self._next, self._held, self._missed, self._set_aside

    def restore(self, snapshot: object) -> None:
        parts = cast("tuple[Any, ...]", snapshot)  # what snapshot() made
        front, self._next, self._held, self._missed, self._set_aside = parts
        self._front = list(front)
