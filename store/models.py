"""The database schema, as typed SQLAlchemy 2 models.

Changing a model means adding an Alembic migration in ``store/migrations/versions`` and
setting ``store.location.HEAD_REVISION`` to it (see store/migrations/README.md).
Identity of a card is (pack key, card key): the text may change on re-import, the row and its
review history stay.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from kvdrill.engine.study.grades import Grade
from kvdrill.engine.study.schedule import NEW_CARD_EASINESS_MILLI
from kvdrill.engine.study.settings import (
    DEFAULT_ANSWER_SECONDS,
    DEFAULT_NEW_PER_DAY,
    DEFAULT_REVIEWS_PER_DAY,
    DEFAULT_ROLLOVER_HOUR,
)

# Named constraints: SQLite migrations rebuild tables (Alembic batch mode) and need the names.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class GradeType(TypeDecorator[Grade]):
    """A grade column: an INTEGER in the database, a ``Grade`` when read."""

    impl = Integer
    cache_ok = True

    def process_result_value(self, value: int | None, dialect: Dialect) -> Grade | None:
        return None if value is None else Grade(value)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Profile(Base):
    """A learner. Schedules, logs, notes and settings are per profile."""

    __tablename__ = "profiles"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    new_per_day: Mapped[int] = mapped_column(Integer, default=DEFAULT_NEW_PER_DAY)
    reviews_per_day: Mapped[int] = mapped_column(Integer, default=DEFAULT_REVIEWS_PER_DAY)
    rollover_hour: Mapped[int] = mapped_column(Integer, default=DEFAULT_ROLLOVER_HOUR)
    answer_seconds: Mapped[int] = mapped_column(Integer, default=DEFAULT_ANSWER_SECONDS)
    theme: Mapped[str] = mapped_column(String(16), default="dark")
    # Settings without a column of their own (engine/study/settings.py), by name.
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)


class Pack(Base):
    """One imported Markdown pack."""

    __tablename__ = "packs"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(128), unique=True)  # front matter ``pack``
    title: Mapped[str] = mapped_column(String(256))
    version: Mapped[str] = mapped_column(String(32))
    lang: Mapped[str] = mapped_column(String(16), default="en")
    description: Mapped[str] = mapped_column(Text, default="")
    lessons: Mapped[list[Any]] = mapped_column(default=list)
    tags: Mapped[list[Any]] = mapped_column(default=list)
    source_path: Mapped[str] = mapped_column(Text, default="")
    content_hash: Mapped[str] = mapped_column(String(64), default="")
    bundled: Mapped[bool] = mapped_column(Boolean, default=False)
    imported_at: Mapped[datetime] = mapped_column(DateTime)
    # An edition (front matter ``edition_of``): the key of the pack it translates. Its cards
    # lend their text to the original's cards, which hold every schedule and review.
    edition_of: Mapped[str | None] = mapped_column(String(128), nullable=True)

    cards: Mapped[list[Card]] = relationship(back_populates="pack")


class Card(Base):
    """A card: recall, multiple choice, problem template, or a recall card's follow-up."""

    __tablename__ = "cards"
    __table_args__ = (UniqueConstraint("pack_id", "key"), Index("ix_cards_retired", "retired"))

    id: Mapped[int] = mapped_column(primary_key=True)
    pack_id: Mapped[int] = mapped_column(ForeignKey("packs.id"))
    key: Mapped[str] = mapped_column(String(160))  # heading {#id}; follow-ups: "<parent>/follow-up"
    kind: Mapped[str] = mapped_column(String(16))  # recall | choice | problem | followup
    title: Mapped[str] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(String(16))  # solid | priority | None
    prompt: Mapped[str] = mapped_column(Text, default="")
    answer: Mapped[str] = mapped_column(Text, default="")
    key_numbers: Mapped[list[Any]] = mapped_column(default=list)
    tip: Mapped[str] = mapped_column(Text, default="")
    choices: Mapped[list[Any]] = mapped_column(default=list)  # [{"text": str, "correct": bool}]
    explanation: Mapped[str] = mapped_column(Text, default="")
    related: Mapped[list[Any]] = mapped_column(default=list)  # [{"prompt": str, "card": key|None}]
    # none_as_null (here and in ReviewLog): None is stored as SQL NULL, so ``IS NULL`` finds it.
    problem: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    problem_line: Mapped[int | None] = mapped_column(Integer)
    source_line: Mapped[int] = mapped_column(Integer, default=0)
    position: Mapped[int] = mapped_column(Integer, default=0)  # order within the pack
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("cards.id"))
    tags: Mapped[list[Any]] = mapped_column(default=list)
    lessons: Mapped[list[Any]] = mapped_column(default=list)
    content_hash: Mapped[str] = mapped_column(String(64), default="")
    retired: Mapped[bool] = mapped_column(Boolean, default=False)
    retired_at: Mapped[datetime | None] = mapped_column(DateTime)

    pack: Mapped[Pack] = relationship(back_populates="cards")
    parent: Mapped[Card | None] = relationship(remote_side="Card.id")


class CardTopic(Base):
    """Denormalised topic membership (pack, tag, lesson) so stats group by an indexed column."""

    __tablename__ = "card_topics"
    __table_args__ = (Index("ix_card_topics_topic", "kind", "value"),)

    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)  # pack | tag | lesson
    value: Mapped[str] = mapped_column(String(128), primary_key=True)


class CardState(Base):
    """A card's schedule (engine/study/schedule.py, one column per field) for one profile.
    No row means the card is new to that profile."""

    __tablename__ = "card_states"
    __table_args__ = (
        Index("ix_card_states_due", "profile_id", "due_day"),
        Index("ix_card_states_card", "card_id"),
    )

    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id"), primary_key=True)
    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id"), primary_key=True)
    repetitions: Mapped[int] = mapped_column(Integer, default=0)
    # EF x 1000, exact
    easiness_milli: Mapped[int] = mapped_column(Integer, default=NEW_CARD_EASINESS_MILLI)
    interval_days: Mapped[int] = mapped_column(Integer, default=0)
    due_day: Mapped[date | None] = mapped_column(Date)
    lapses: Mapped[int] = mapped_column(Integer, default=0)
    reviews: Mapped[int] = mapped_column(Integer, default=0)
    last_review_at: Mapped[datetime | None] = mapped_column(DateTime)
    suspended: Mapped[bool] = mapped_column(Boolean, default=False)
    buried_until: Mapped[date | None] = mapped_column(Date)
    leech: Mapped[bool] = mapped_column(Boolean, default=False)
    # The FSRS memory state (Schedule.fsrs); NULL under SM-2.
    fsrs: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)


class ReviewLog(Base):
    """One row per answer given. ``prev_state`` (a ``Schedule.to_dict()``) lets undo restore the
    card state exactly."""

    __tablename__ = "review_log"
    __table_args__ = (
        Index("ix_review_log_profile_time", "profile_id", "reviewed_at"),
        Index("ix_review_log_profile_day", "profile_id", "study_day"),
        Index("ix_review_log_card", "card_id"),
        # Mistake stats scan only the diagnosed answers.
        Index(
            "ix_review_log_mistakes",
            "profile_id",
            "study_day",
            "mistake",
            sqlite_where=text("mistake IS NOT NULL"),
            postgresql_where=text("mistake IS NOT NULL"),
        ),
        Index(
            "ix_review_log_imported",
            "profile_id",
            "imported_id",
            sqlite_where=text("imported_id IS NOT NULL"),
            postgresql_where=text("imported_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id"))
    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id"))
    reviewed_at: Mapped[datetime] = mapped_column(DateTime)
    study_day: Mapped[date] = mapped_column(Date)
    quality: Mapped[Grade] = mapped_column(GradeType)
    seconds: Mapped[float] = mapped_column(
        Float, default=0.0
    )  # active answer time (pauses left out)
    # Real seconds from the card appearing to the answer shown, and from there to the grade
    # (None when the answer grades itself, or for answers logged before these were kept).
    reveal_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    grade_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    graded_by: Mapped[str] = mapped_column(String(8))  # self | auto
    moved_schedule: Mapped[bool] = mapped_column(Boolean, default=True)
    typed_answer: Mapped[str | None] = mapped_column(Text)
    template_id: Mapped[str | None] = mapped_column(String(160))
    seed: Mapped[int | None] = mapped_column(Integer)
    params: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    expected: Mapped[str | None] = mapped_column(Text)
    diagnosis: Mapped[str | None] = mapped_column(Text)  # the sentence shown
    mistake: Mapped[str | None] = mapped_column(String(32))  # diagnosis code, for stats
    # Multiple choice: the shuffle's seed and the pack letters in the order shown ("CADB"),
    # so typed_answer (the letters as shown) can be read back.
    choice_seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    choice_order: Mapped[str | None] = mapped_column(String(8), nullable=True)
    prev_state: Mapped[dict[str, Any] | None] = mapped_column(
        JSON(none_as_null=True), nullable=True
    )
    # An answer imported from another tool: its id there (``anki:<revlog id>``), and the
    # interval and easiness that tool gave after it. NULL for answers given in kvdrill.
    imported_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # A practice answer (drill --cram): logged, but it moved no schedule and counts against
    # no limit; replays and FSRS fits leave it out.
    practice: Mapped[bool] = mapped_column(Boolean, server_default=false())
    interval_days: Mapped[int | None] = mapped_column(Integer, nullable=True)
    easiness_milli: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Note(Base):
    """The learner's own words about a card (the "tip" habit)."""

    __tablename__ = "notes"

    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id"), primary_key=True)
    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id"), primary_key=True)
    text: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class CardFlag(Base):
    """A colour the learner marked a card with (engine/study/flags.py), per profile; no row
    means no flag. Its own table: flagging never touches a schedule or the rollups."""

    __tablename__ = "card_flags"

    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id"), primary_key=True)
    card_id: Mapped[int] = mapped_column(ForeignKey("cards.id"), primary_key=True)
    colour: Mapped[str] = mapped_column(String(16))


class PackSetting(Base):
    """A profile's settings of one pack's own (engine/study/settings.py ``PackSettings``); NULL
    is no setting of its own, and no row none at all."""

    __tablename__ = "pack_settings"

    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id"), primary_key=True)
    pack_id: Mapped[int] = mapped_column(ForeignKey("packs.id"), primary_key=True)
    new_per_day: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_order: Mapped[str | None] = mapped_column(String(16), nullable=True)


class Setting(Base):
    """Application-wide key-value settings, e.g. the hash of the bundled decks last imported."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text, default="")


class TopicDay(Base):
    """Rollup kept by triggers (store/rollups.py): reviews of a topic's cards on one day."""

    __tablename__ = "topic_days"

    profile_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    value: Mapped[str] = mapped_column(String(128), primary_key=True)
    study_day: Mapped[date] = mapped_column(Date, primary_key=True)
    reviews: Mapped[int] = mapped_column(Integer, default=0)
    passed: Mapped[int] = mapped_column(Integer, default=0)  # quality >= 3
    firsts: Mapped[int] = mapped_column(Integer, default=0)  # first answers of the day
    failed_firsts: Mapped[int] = mapped_column(Integer, default=0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    diagnosed: Mapped[int] = mapped_column(Integer, default=0)


class TopicState(Base):
    """Rollup kept by triggers (store/rollups.py): card-state sums of a topic's live cards."""

    __tablename__ = "topic_states"

    profile_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    value: Mapped[str] = mapped_column(String(128), primary_key=True)
    due_day: Mapped[date] = mapped_column(Date, primary_key=True)  # 9999-12-31: not scheduled
    suspended: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    cards: Mapped[int] = mapped_column(Integer, default=0)
    seen: Mapped[int] = mapped_column(Integer, default=0)  # reviews > 0
    reviews: Mapped[int] = mapped_column(Integer, default=0)
    lapses: Mapped[int] = mapped_column(Integer, default=0)
    easiness_sum: Mapped[int] = mapped_column(Integer, default=0)  # milli, over seen cards
    leeches: Mapped[int] = mapped_column(Integer, default=0)


class TopicCards(Base):
    """Rollup kept by triggers (store/rollups.py): how many live cards a topic has."""

    __tablename__ = "topic_cards"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    value: Mapped[str] = mapped_column(String(128), primary_key=True)
    cards: Mapped[int] = mapped_column(Integer, default=0)
