"""The stats report: its data model (also the JSON schema of ``kvdrill stats --json``) and the
weak-topic score.

The store computes the raw aggregates with SQL (store/stats.py); everything here is pure.

Weak-topic score
----------------
A topic (a pack, a tag or a lesson) is judged only once it has at least ``MIN_REVIEWS`` reviews
in the recent window; below that its score is ``None`` and it sorts last. The score is a number
in [0, 1], higher is weaker, blending three signals:

- 0.5 x the recent lapse rate (first answers of the day graded below 3, over all first answers),
- 0.3 x how far the mean easiness sits below the starting 2.5, scaled so the floor 1.3 counts 1,
- 0.2 x the share of recent reviews whose typed answer was a diagnosed mistake.

Lapses dominate because a forgotten card is the clearest sign of weakness; low easiness says the
topic has been hard for a while; diagnosed mistakes say the learner keeps making the same slip.

Group report
------------
``kvdrill stats --group`` looks at every profile in the database: a learner is weak on a topic
when the topic is judged for them and scores ``WEAK_SCORE`` or more (half the first answers
lapsed, say, or a fifth lapsed on hard cards). Per topic it counts the learners weak on it and
those judged, and the group's accuracy over everyone's recent reviews. It holds counts only:
no learner's name, notes or answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta

from pydantic import BaseModel, ConfigDict, Field

from kvdrill.i18n import N_

MIN_REVIEWS = 5
# A group view shows a topic only when this many learners answered in it: fewer would single
# one out (with two, each learner can subtract their own figures from the group's).
MIN_GROUP_LEARNERS = 3
WEAK_SCORE = 0.25
LAPSE_WEIGHT = 0.5
EASINESS_WEIGHT = 0.3
MISTAKE_WEIGHT = 0.2
START_EASINESS = 2.5
FLOOR_EASINESS = 1.3

# Plain words for the checker's mistake codes (engine/problems/diagnosis.py); unknown codes fall back to
# the code with spaces. In English here (reports, JSON); translated where they are shown.
MISTAKE_WORDS = {
    "kv_factor_2": N_("forgot the factor 2 for K and V"),
    "mla_factor_2": N_("applied the K-and-V factor 2 to MLA"),
    "attention_heads": N_("used attention heads instead of KV heads"),
    "gb_vs_gib": N_("GB and GiB mixed up"),
    "kb_vs_kib": N_("kB and KiB mixed up"),
    "bits_vs_bytes": N_("bits and bytes mixed up"),
    "tp_missing": N_("forgot to divide across tensor-parallel GPUs"),
    "tp_wrong": N_("divided by the wrong tensor-parallel degree"),
    "gpus_missing": N_("left out the GPU count"),
    "dtype_bytes": N_("wrong bytes per parameter or value"),
    "factor_1000": N_("a factor-of-1000 slip"),
    "factor_1024": N_("a factor-of-1024 slip"),
    "mb_vs_mib": N_("MB and MiB mixed up"),
    "tb_vs_tib": N_("TB and TiB mixed up"),
    "near_miss": N_("close, but outside the tolerance"),
    "tp_replication": N_("forgot that KV heads are replicated when TP exceeds them"),
    "block_rounding": N_("forgot vLLM's block rounding"),
    "weights_not_subtracted": N_("forgot to subtract the weights from the budget"),
    "utilization_missing": N_("forgot the GPU memory utilization"),
    "sliding_window": N_("ignored the sliding-window layers"),
    "active_vs_total": N_("mixed up active and total parameters"),
    "rounded_up": N_("rounded up where only whole requests fit"),
    "rounded_down": N_("one short of a count that rounds up"),
    "scales_missing": N_("left out the quantization scales"),
    "gib_read_as_gb": N_("read a size in GiB as GB"),
    "gb_read_as_gib": N_("read a size in GB as GiB"),
    "bare_base_unit": N_("typed bytes or seconds without the unit"),
}


def mistake_words(code: str) -> str:
    return MISTAKE_WORDS.get(code, code.replace("_", " "))


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TopicStats(Report):
    kind: str = Field(description="pack | tag | lesson")
    topic: str = Field(description="the pack id, tag or lesson number")
    cards: int = Field(description="cards in the topic (retired cards excluded)")
    reviews: int = Field(description="all reviews of the topic's cards, ever")
    recent_reviews: int = Field(description="reviews in the recent window")
    accuracy: float | None = Field(description="share of recent reviews graded 3 or more")
    lapses: int = Field(description="lapses of the topic's cards, ever")
    lapse_rate: float | None = Field(description="recent first answers of a day graded below 3")
    previous_lapse_rate: float | None = Field(description="the same over the window before")
    trend: float | None = Field(description="lapse_rate - previous_lapse_rate; negative is better")
    mean_easiness: float | None = Field(description="mean SM-2 easiness of the cards seen")
    mean_seconds: float | None = Field(description="mean seconds per recent answer")
    due_next_7_days: int
    leeches: int
    diagnosed_mistakes: int = Field(description="recent typed answers with a diagnosed mistake")
    score: float | None = Field(
        description=f"weak-topic score 0..1; null below {MIN_REVIEWS} recent reviews"
    )
    same_cards_as: str | None = Field(
        default=None,
        description="another topic ('pack:p1') holding exactly these cards: its row stands for "
        "both (a lesson every card of a pack names, say)",
    )


class MistakeStats(Report):
    code: str
    words: str
    recent: int = Field(description="occurrences in the recent window")
    of_last_10: int = Field(description="occurrences among the last 10 diagnosed mistakes")


class DayCount(Report):
    day: date
    reviews: int


class WeekRetention(Report):
    week_start: date
    reviews: int = Field(description="first answers of a day in that week")
    retention: float | None = Field(description="share of them graded 3 or more")


class PredictedRecall(Report):
    scheduler: str = Field(description="the profile's active scheduler: sm2 | fsrs")
    due_cards: int = Field(description="seen, live, unsuspended cards due today or earlier")
    mean_recall: float | None = Field(
        description="mean predicted chance of recalling a due card now; None with none due"
    )
    method: str = Field(
        description="fsrs: FSRS-6 retrievability; sm2: an approximation, recall falling "
        "exponentially to 90% at the due day (SM-2 itself predicts nothing)"
    )


class StatsReport(Report):
    profile: str
    today: date
    window_days: int
    total_reviews: int
    streak_days: int
    topics: list[TopicStats] = Field(description="weakest first")
    mistakes: list[MistakeStats]
    heatmap: list[DayCount] = Field(description="reviews per day, oldest first, 12 weeks or more")
    forecast: list[DayCount] = Field(description="cards due per day for 30 days; overdue on day 0")
    retention: list[WeekRetention]
    predicted_recall: PredictedRecall | None = None


class GroupTopic(Report):
    kind: str = Field(description="pack | tag | lesson")
    topic: str = Field(description="the pack id, tag or lesson number")
    learners_weak: int = Field(description=f"learners whose weak score is {WEAK_SCORE} or more")
    learners_judged: int = Field(description=f"learners with {MIN_REVIEWS}+ recent reviews")
    recent_reviews: int = Field(description="the group's reviews in the recent window")
    accuracy: float | None = Field(description="share of the group's recent reviews graded 3+")


class GroupReport(Report):
    today: date
    window_days: int
    learners: int = Field(description="learners with a review in the window")
    topics: list[GroupTopic] = Field(
        description=f"topics {MIN_GROUP_LEARNERS}+ learners answered in the window: most "
        "learners weak first, then lowest accuracy"
    )
    hidden_topics: int = Field(
        default=0,
        description=f"topics left out because fewer than {MIN_GROUP_LEARNERS} learners answered "
        "in them (their figures would single a learner out)",
    )


def group_report(
    today: date,
    window_days: int,
    per_learner: list[list[TopicStats]],
    reviews_passed: dict[tuple[str, str], tuple[int, int]],
) -> GroupReport:
    """Each learner's topic figures, and the group's (recent reviews, passed) per topic, as the
    group's topics, ranked: most learners weak first, then lowest accuracy, then most reviews.
    Only topics that ``MIN_GROUP_LEARNERS`` or more learners answered in recently are shown;
    the others are counted."""
    judged: dict[tuple[str, str], int] = {}
    weak: dict[tuple[str, str], int] = {}
    contributors: dict[tuple[str, str], int] = {}
    for topics in per_learner:
        for topic in topics:
            key = (topic.kind, topic.topic)
            judged.setdefault(key, 0)
            weak.setdefault(key, 0)
            contributors[key] = contributors.get(key, 0) + (topic.recent_reviews > 0)
            if topic.score is not None:
                judged[key] += 1
                weak[key] += topic.score >= WEAK_SCORE
    rows = []
    hidden = 0
    for key in judged.keys() | reviews_passed.keys():
        if contributors.get(key, 0) < MIN_GROUP_LEARNERS:
            hidden += contributors.get(key, 0) > 0 or key in reviews_passed
            continue
        reviews, passed = reviews_passed.get(key, (0, 0))
        rows.append(
            GroupTopic(
                kind=key[0],
                topic=key[1],
                learners_weak=weak.get(key, 0),
                learners_judged=judged.get(key, 0),
                recent_reviews=reviews,
                accuracy=round(passed / reviews, 4) if reviews else None,
            )
        )
    ranked = sorted(
        rows,
        key=lambda t: (
            -t.learners_weak,
            t.accuracy is None,
            t.accuracy or 0.0,
            -t.recent_reviews,
            topic_order(t),
        ),
    )
    return GroupReport(
        today=today,
        window_days=window_days,
        learners=sum(any(topic.recent_reviews for topic in topics) for topics in per_learner),
        topics=ranked,
        hidden_topics=hidden,
    )


def weak_score(
    recent_first_answers: int,
    recent_lapses: int,
    mean_easiness: float | None,
    recent_reviews: int,
    diagnosed_mistakes: int,
) -> float | None:
    """The weak-topic score described in the module docstring; ``None`` when not yet judged."""
    if recent_reviews < MIN_REVIEWS or recent_first_answers == 0:
        return None
    lapse_rate = recent_lapses / recent_first_answers
    easiness = START_EASINESS if mean_easiness is None else mean_easiness
    easiness_gap = (START_EASINESS - easiness) / (START_EASINESS - FLOOR_EASINESS)
    easiness_gap = min(1.0, max(0.0, easiness_gap))
    mistake_share = min(1.0, diagnosed_mistakes / recent_reviews)
    return round(
        LAPSE_WEIGHT * lapse_rate + EASINESS_WEIGHT * easiness_gap + MISTAKE_WEIGHT * mistake_share,
        4,
    )


# Which of several topics with the very same cards keeps the row: the pack, then a lesson.
KIND_PREFERENCE = {"pack": 0, "lesson": 1, "tag": 2}


def mark_same_cards(
    topics: list[TopicStats], card_sets: Mapping[tuple[str, str], object]
) -> list[TopicStats]:
    """Topics whose card set (``card_sets``: any value equal for equal sets) is another's get
    ``same_cards_as`` naming the one that keeps the row; order is kept."""
    keeper: dict[object, TopicStats] = {}
    for topic in sorted(topics, key=lambda t: (KIND_PREFERENCE.get(t.kind, 9), topic_order(t))):
        keeper.setdefault(
            card_sets.get((topic.kind, topic.topic), (topic.kind, topic.topic)), topic
        )
    marked = []
    for topic in topics:
        first = keeper[card_sets.get((topic.kind, topic.topic), (topic.kind, topic.topic))]
        if first is not topic:
            topic = topic.model_copy(update={"same_cards_as": f"{first.kind}:{first.topic}"})
        marked.append(topic)
    return marked


def may_share_cards(topics: list[TopicStats]) -> list[tuple[str, str]]:
    """The topics whose live-card count and card-state figures equal another topic's. Topics
    with the same cards have the same figures, so only these can share a card set: the card-set
    fingerprints ``mark_same_cards`` compares need reading for these alone."""
    by_figures: dict[tuple, list[tuple[str, str]]] = {}
    for t in topics:
        figures = (t.cards, t.reviews, t.lapses, t.mean_easiness, t.due_next_7_days, t.leeches)
        by_figures.setdefault(figures, []).append((t.kind, t.topic))
    return [topic for group in by_figures.values() if len(group) > 1 for topic in group]


def topic_order(topic: TopicStats | GroupTopic) -> tuple[str, int, str]:
    """Packs, lessons, tags; lessons in number order (5 before 17), the rest by name."""
    number = int(topic.topic) if topic.topic.isdigit() else 0
    return (topic.kind, number, topic.topic)


def rank_topics(topics: list[TopicStats]) -> list[TopicStats]:
    """Weakest first; topics not yet judged last, by most reviews."""
    return sorted(
        topics,
        key=lambda t: (t.score is None, -(t.score or 0.0), -t.recent_reviews, topic_order(t)),
    )


def streak(days_with_reviews_desc: list[date], today: date) -> int:
    """Consecutive study days with a review, ending today (or yesterday, if today is not done)."""
    days = set(days_with_reviews_desc)
    day = today if today in days else today - timedelta(days=1)
    count = 0
    while day in days:
        count += 1
        day -= timedelta(days=1)
    return count
