"""The daily queue policy on constructed days."""

from __future__ import annotations

from datetime import date

from kvdrill.engine.study.queue import (
    DayCounts,
    Plan,
    QueueCard,
    SessionQueue,
    interleave,
    plan_day,
    session_plan,
)

TODAY = date(2026, 3, 10)


def new(card_id: int, kind: str = "recall", parent: int | None = None) -> QueueCard:
    return QueueCard(card_id=card_id, kind=kind, order=card_id, parent_id=parent)


def seen(card_id: int, due: date, easiness: int = 2500, **extra) -> QueueCard:
    return QueueCard(
        card_id=card_id, kind="recall", order=card_id, due_day=due, easiness_milli=easiness,
        seen=True, **extra,
    )  # fmt: skip


def test_due_reviews_come_first_most_overdue_then_lowest_easiness() -> None:
    cards = [
        new(1),
        seen(2, date(2026, 3, 9), 2500),
        seen(3, date(2026, 3, 1), 2500),
        seen(4, date(2026, 3, 9), 1800),
        seen(5, date(2026, 3, 11)),  # due tomorrow: not today
    ]
    assert plan_day(cards, TODAY).cards == (3, 4, 2, 1)


def test_new_cards_stop_at_the_daily_limit_minus_those_already_introduced() -> None:
    cards = [new(i) for i in range(1, 30)]
    assert plan_day(cards, TODAY).cards == tuple(range(1, 11))
    counts = DayCounts(new_per_day=10, new_done_today=7)
    assert plan_day(cards, TODAY, counts).cards == (1, 2, 3)
    assert plan_day(cards, TODAY, DayCounts(new_per_day=10, new_done_today=12)).cards == ()


def test_the_new_option_replaces_todays_allowance() -> None:
    cards = [new(i) for i in range(1, 30)]
    counts = DayCounts(new_per_day=10, new_done_today=10)
    assert plan_day(cards, TODAY, counts, new_limit=4).cards == (1, 2, 3, 4)


def test_reviews_stop_at_the_cap_minus_those_done_today() -> None:
    cards = [seen(i, date(2026, 3, 1)) for i in range(1, 10)]
    counts = DayCounts(reviews_per_day=5, reviews_done_today=2)
    assert plan_day(cards, TODAY, counts).cards == (1, 2, 3)


def test_limit_caps_the_whole_session_keeping_reviews_first() -> None:
    cards = [seen(i, date(2026, 3, 1)) for i in range(1, 4)] + [new(i) for i in range(4, 9)]
    assert plan_day(cards, TODAY, limit=5).cards == (1, 2, 3, 4, 5)
    assert plan_day(cards, TODAY, limit=2).cards == (1, 2)


def test_suspended_buried_and_retired_cards_are_left_out() -> None:
    cards = [
        seen(1, TODAY, suspended=True),
        seen(2, TODAY, buried_until=date(2026, 3, 11)),
        seen(3, TODAY, buried_until=TODAY),  # buried yesterday "until today": back
        seen(4, TODAY, retired=True),
        QueueCard(card_id=5, kind="recall", order=5, suspended=True),
        new(6),
    ]
    assert plan_day(cards, TODAY).cards == (3, 6)


def test_a_follow_up_of_a_new_card_is_held_until_its_parent_is_answered() -> None:
    cards = [new(1), new(2, "followup", parent=1), new(3)]
    plan = plan_day(cards, TODAY)
    assert plan.cards == (1, 3)
    assert plan.follow_ups == {1: (2,)}
    queue = SessionQueue(plan)
    queue.answered(5)
    assert queue.current == 2  # right after the parent
    queue.answered(5)
    assert queue.current == 3


def test_a_follow_up_is_not_new_while_its_parent_is_unseen() -> None:
    # The limit lets the parent in but not the follow-up: it waits for another day.
    cards = [new(1), new(2, "followup", parent=1), new(3)]
    assert plan_day(cards, TODAY, new_limit=1) == Plan(cards=(1,), new_cards=frozenset({1}))
    # Parent suspended and never seen: the follow-up is not offered either.
    parent = QueueCard(card_id=1, kind="recall", order=1, suspended=True)
    assert plan_day([parent, new(2, "followup", parent=1)], TODAY).cards == ()


def test_a_follow_up_of_a_seen_parent_is_an_ordinary_new_card() -> None:
    cards = [seen(1, date(2026, 3, 20)), new(2, "followup", parent=1)]
    assert plan_day(cards, TODAY).cards == (2,)


def test_problems_are_spread_among_the_other_cards() -> None:
    cards = [new(i) for i in range(1, 7)] + [new(i, "problem") for i in (7, 8)]
    assert plan_day(cards, TODAY).cards == (1, 2, 7, 3, 4, 8, 5, 6)


def test_interleave_keeps_both_orders_and_every_item() -> None:
    assert interleave([1, 2, 3], []) == [1, 2, 3]
    assert interleave([], [9]) == [9]
    assert interleave([1, 2, 3], [9]) == [1, 2, 9, 3]


def test_a_missed_card_comes_back_after_three_others_until_it_scores_four() -> None:
    queue = SessionQueue(Plan(cards=(1, 2, 3, 4, 5)))
    queue.answered(1)  # card 1 missed
    assert [queue.current] == [2]
    shown = []
    grades = {1: [3, 4]}  # the first repeat still below 4, the second good
    while queue.current is not None:
        card = queue.current
        shown.append(card)
        queue.answered(grades[card].pop(0) if card in grades else 5)
    assert shown == [2, 3, 4, 1, 5, 1]
    assert queue.is_repeat(1) and not queue.is_repeat(2)


def test_a_miss_near_the_end_comes_back_at_the_end() -> None:
    queue = SessionQueue(Plan(cards=(1, 2)))
    queue.answered(0)
    assert (queue.current, queue.remaining) == (2, 2)
    queue.answered(4)
    assert queue.current == 1
    queue.answered(2)
    assert queue.current == 1  # nothing else left: straight back
    queue.answered(4)
    assert queue.current is None and queue.remaining == 0


def test_cards_missed_earlier_today_are_owed_a_repeat_after_due_reviews() -> None:
    cards = [
        new(1),
        seen(2, date(2026, 3, 11), missed_today=True),
        seen(3, date(2026, 3, 2)),
    ]
    plan = plan_day(cards, TODAY)
    assert plan.cards == (3, 2, 1)
    assert SessionQueue(plan).is_repeat(2)


def test_dropping_the_current_card_drops_its_held_follow_ups() -> None:
    queue = SessionQueue(plan_day([new(1), new(2, "followup", parent=1), new(3)], TODAY))
    assert queue.remaining == 3
    queue.drop_current()
    assert (queue.current, queue.remaining) == (3, 1)
    # Both count as set aside, so done + set aside + remaining stays the session's size.
    assert queue.set_aside == 2


def test_the_session_size_only_grows_by_a_return_and_undo_puts_it_back() -> None:
    queue = SessionQueue(Plan(cards=(1, 2, 3, 4, 5)))
    done = 0

    def size() -> int:
        return done + queue.set_aside + queue.remaining

    assert size() == 5
    before = queue.snapshot()
    queue.drop_current()  # buried
    assert size() == 5
    queue.restore(before)
    assert (queue.set_aside, size()) == (0, 5)
    queue.answered(1)  # missed: it comes back
    done += 1
    assert size() == 6
    queue.answered(4)
    done += 1
    assert size() == 6


def test_restore_puts_the_running_order_back() -> None:
    queue = SessionQueue(Plan(cards=(1, 2, 3, 4, 5)))
    before = queue.snapshot()
    queue.answered(1)
    queue.restore(before)
    assert (queue.current, queue.remaining, queue.is_repeat(1)) == (1, 5, False)


def card(card_id: int, pack: int, kind: str = "recall", priority: bool = False) -> QueueCard:
    return QueueCard(card_id=card_id, kind=kind, order=card_id, pack=pack, priority=priority)


def test_new_cards_are_drawn_across_packs_and_kinds_not_the_first_pack_only() -> None:
    cards = (
        [card(i, pack=1) for i in range(1, 11)]  # ten recall cards in the first pack
        + [card(i, pack=2, kind="choice") for i in (11, 12)]
        + [card(i, pack=3, kind="problem") for i in (13, 14)]
    )
    chosen = plan_day(cards, TODAY, new_limit=5).cards
    kinds = {c.card_id: c.kind for c in cards}
    assert sorted(kinds[i] for i in chosen) == ["choice", "choice", "problem", "recall", "recall"]
    # Each pile keeps its pack order.
    assert [i for i in chosen if kinds[i] == "choice"] == [11, 12]


def test_priority_cards_are_drawn_first_and_shown_first() -> None:
    cards = [
        card(1, pack=1),
        card(2, pack=1, priority=True),
        card(3, pack=2, kind="choice"),
        card(4, pack=2, kind="choice", priority=True),
        card(5, pack=3, kind="problem"),
    ]
    plan = plan_day(cards, TODAY, new_limit=3)
    # Both priority cards, then one turn of the remaining piles; priority cards shown first.
    assert plan.cards[:2] == (2, 4)
    assert set(plan.cards) == {2, 4, 5}


def test_the_session_plan_reviews_ahead_without_new_cards_and_crams_in_pack_order() -> None:
    """DrillSession.open and the fast-start helper both start from session_plan."""
    cards = [new(1), seen(2, date(2026, 3, 12)), seen(3, date(2026, 3, 9)), seen(4, TODAY)]
    assert session_plan(cards, TODAY).cards == (3, 4, 1)
    # Two days ahead: the review due on the 12th as well, and no new card unless asked for.
    assert session_plan(cards, TODAY, ahead=2).cards == (3, 4, 2)
    assert 1 in session_plan(cards, TODAY, ahead=2, new_limit=5).cards
    # Cram: every card in pack order, due or not, up to the limit.
    assert session_plan(cards, TODAY, cram=True).cards == (1, 2, 3, 4)
    assert session_plan(cards, TODAY, cram=True, limit=2).cards == (1, 2)


def packed(card_id: int, pack: int, kind: str = "recall", parent: int | None = None) -> QueueCard:
    return QueueCard(card_id=card_id, kind=kind, order=card_id, parent_id=parent, pack=pack)


def test_a_pack_with_a_new_card_limit_gives_at_most_that_many_a_day() -> None:
    from kvdrill.engine.study.settings import PackSettings

    cards = [packed(i, 1) for i in range(1, 6)] + [packed(i, 2) for i in range(6, 11)]
    limited = DayCounts(new_per_day=10, packs={2: PackSettings(new_per_day=1)})
    chosen = plan_day(cards, TODAY, limited).cards
    assert sorted(chosen) == [1, 2, 3, 4, 5, 6]  # pack 2 gives one, pack 1 the rest it has
    # Pack 2's one card of today given earlier: none of it now; the profile's limit still holds.
    later = DayCounts(
        new_per_day=10,
        new_done_today=1,
        packs={2: PackSettings(new_per_day=1)},
        new_done_by_pack={2: 1},
    )
    assert sorted(plan_day(cards, TODAY, later).cards) == [1, 2, 3, 4, 5]
    # --new N is a session's allowance: a pack still gives no more than its own limit.
    assert 7 not in plan_day(cards, TODAY, limited, new_limit=10).cards
    # Within the profile's limit: a pack limit above it changes nothing.
    roomy = DayCounts(new_per_day=3, packs={2: PackSettings(new_per_day=5)})
    assert plan_day(cards, TODAY, roomy).cards == plan_day(cards, TODAY, DayCounts(3)).cards


def test_a_follow_up_counts_against_its_packs_new_card_limit() -> None:
    from kvdrill.engine.study.settings import PackSettings

    cards = [packed(1, 1), packed(2, 1, kind="followup", parent=1), packed(3, 1)]
    plan = plan_day(cards, TODAY, DayCounts(packs={1: PackSettings(new_per_day=2)}))
    assert plan.cards == (1,) and plan.follow_ups == {1: (2,)} and plan.new_cards == {1, 2}


def test_a_pack_in_random_order_is_shuffled_the_same_way_every_day() -> None:
    from kvdrill.engine.study.queue import shuffle_key
    from kvdrill.engine.study.settings import PackSettings

    cards = [packed(i, 7) for i in range(1, 21)]
    shuffled = DayCounts(new_per_day=20, packs={7: PackSettings(new_order="random")})
    plan = plan_day(cards, TODAY, shuffled).cards
    assert plan == tuple(c.card_id for c in sorted(cards, key=shuffle_key))
    assert plan != tuple(range(1, 21))  # not the file's order
    assert plan_day(cards, date(2026, 3, 11), shuffled).cards == plan
    # Five a day: the first five of that same shuffle.
    five = DayCounts(new_per_day=5, packs={7: PackSettings(new_order="random")})
    assert plan_day(cards, TODAY, five).cards == plan[:5]
    # Another pack in file order keeps it, and the packs still take turns.
    others = [packed(i, 8) for i in range(21, 24)]
    mixed = plan_day(cards + others, TODAY, shuffled).cards
    assert [c for c in mixed if c > 20] == [21, 22, 23] and mixed[:2] == (plan[0], 21)
