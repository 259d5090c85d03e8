"""Answering a whole drill session in tests, shared by the session and scheduler tests."""

from __future__ import annotations

from kvdrill.app.services.drill import DrillSession


def keys_until_done(session: DrillSession, grades: dict[str, list[int]]) -> list[str]:
    """Answer every card (grades by card key, default Good / the right choice); keys shown."""
    shown = []
    while (card := session.current) is not None:
        shown.append(card.key)
        planned = grades.get(card.key)
        quality = planned.pop(0) if planned else 4
        if card.kind == "choice":
            wrong = next(c.letter for c in card.choices if not c.correct)  # shuffled order
            session.answer_choice(card.correct_letters if quality >= 4 else wrong, 3.0)
        else:
            session.grade(quality, 3.0)
    return shown


def answer_kv_problem_wrong(database, now) -> DrillSession:
    """sm2-problems (tests/fixtures/packs/sm2) at ``now``: the recall card graded Good, then the
    problem answered without the factor 2 for K and V; the session, on the problem again."""
    session = DrillSession.open(database, now=now, pack="sm2-problems")
    session.grade(4, 2.0)  # the recall card between
    card = session.current
    half = card.variant.expected_value / 2
    verdict = session.answer_problem(f"{half:g} {card.variant.unit}", 30.0)
    assert verdict.mistake == "kv_factor_2"
    return session
