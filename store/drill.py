"""The drill session service: the one place a daily session's logic lives.

Both plain mode (app/commands/drill.py) and the TUI (app/screens/drill.py) drive a session
through this interface; neither touches the queue or the database directly. Every answer is
committed in its own transaction before ``current`` moves on.

Interface (implemented by the SM-2/queue work):

    session = DrillSession.open(database, profile="default", now=None,
                                pack=None, tag=None, new_limit=None, limit=None)
    session.current -> CardView | None       # None: the session is over
    session.remaining -> int                 # cards left, including requeued misses
    session.done -> int
    session.grade(quality: int, seconds: float) -> None      # self-graded recall / follow-up
    session.answer_choice(letters: str, seconds) -> ChoiceResult  # multiple choice; grades too
    session.answer_problem(typed: str, seconds) -> Verdict   # problems; grades automatically
                                                              # (an unreadable answer does NOT grade)
    session.give_up(seconds) -> Verdict                       # problem: quality 0, shows solution
    session.undo() -> bool                   # restores the last answer's card state exactly
    session.suspend() / session.bury()       # current card
    session.note() -> str / session.set_note(text)            # current card's personal note
    session.summary() -> SessionSummary

CardView carries what a screen shows: kind, pack title, title, prompt (for a problem: the
variant's prompt), answer, key numbers, tip, choices, explanation, related, note, the variant
(problems), follow-up/parent info, whether it is a repeat of a miss today.
"""
