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
