"""A card's page as text (``kvdrill cards PACK/CARD`` and the card page screen): its facts,
its history and the learner's note, in the learner's language and within the width given."""

from __future__ import annotations

import textwrap
from datetime import date

from kvdrill.app import shown_numbers
from kvdrill.engine.errors import printable
from kvdrill.engine.study.browse import CardPage, state_text
from kvdrill.i18n import N_, _, ngettext

# The kinds of card as the page names them.
KIND_WORDS = {
    "recall": N_("recall"),
    "followup": N_("follow-up"),
    "choice": N_("multiple choice"),
    "problem": N_("problem"),
}


def page_lines(page: CardPage, today: date, width: int = 80) -> list[str]:
    """The page in lines of at most ``width`` columns; pack and learner text with its control
    characters escaped."""
    card = page.card

    def wrapped(text: str, indent: str = "") -> list[str]:
        # Further lines hang under the text: a label such as "Prompt: " is said once.
        return textwrap.wrap(
            printable(text, multiline=True),
            width,
            initial_indent=indent,
            subsequent_indent=" " * len(indent) if indent else "  ",
        ) or [indent.rstrip()]

    due = card.due_day.isoformat() if card.due_day and card.reviews else "-"
    kind = KIND_WORDS.get(card.kind)
    facts = _(
        "{kind} · {state} · due {due} · interval {days} d · ease {ease} · {reviews} · {lapses}"
    ).format(
        kind=_(kind) if kind else card.kind,
        state=state_text(card, today),
        due=due,
        days=shown_numbers.count(page.interval_days),
        ease=shown_numbers.decimal(card.easiness_milli / 1000, 2),
        reviews=ngettext("{count} review", "{count} reviews", card.reviews).format(
            count=shown_numbers.count(card.reviews)
        ),
        lapses=ngettext("{count} lapse", "{count} lapses", card.lapses).format(
            count=shown_numbers.count(card.lapses)
        ),
    )
    lines = [*wrapped(f"{card.reference}  {card.title}"), *wrapped(facts)]
    # The prompt's first paragraph (its lines may be wrapped in the pack file).
    prompt = page.prompt.strip().split("\n\n")[0]
    lines += wrapped(prompt, _("Prompt: "))
    lines.append("")
    if page.history:
        answers = len(page.history)
        lines.append(
            ngettext("History ({count} answer):", "History ({count} answers):", answers).format(
                count=shown_numbers.count(answers)
            )
        )
    else:
        lines.append(_("Never answered."))
    for entry in page.history:
        graded = _("checked") if entry.graded_by == "auto" else _("self-graded")
        head = _("{when}  grade {grade}  {seconds} s  {graded}").format(
            when=f"{entry.reviewed_at:%Y-%m-%d %H:%M}",
            grade=entry.quality,
            seconds=shown_numbers.decimal(entry.seconds, 1),
            graded=graded,
        )
        lines.append("  " + head)
        if entry.typed_answer is not None:
            # What the learner typed and the expected answer keep the form typed.
            typed = (
                _("typed {typed} (expected {expected})") if entry.expected else _("typed {typed}")
            )
            lines += wrapped(
                typed.format(typed=entry.typed_answer, expected=entry.expected), "    "
            )
        if entry.diagnosis:
            lines += wrapped(entry.diagnosis, "    ")
    if page.mistakes:
        lines.append("")
        mistakes = ", ".join(f"{code} x{times}" for code, times in page.mistakes.items())
        lines += wrapped(_("Mistakes: {codes}").format(codes=mistakes))
    lines.append("")
    lines += wrapped(page.note, _("Your note: ")) if page.note else [_("No note.")]
    return lines
