"""The seed of one showing of a card: a problem's variant and a multiple-choice card's order.

Standard library only (the fast-start reader uses it). The seed is logged with the answer, so
what the learner saw can be rebuilt; the same profile, card, day and showing give the same seed,
so the fast-start helper and the session agree on the first card.
"""

from __future__ import annotations

import hashlib
from datetime import date

SEED_RANGE = 2**31


def presentation_seed(profile_id: int, card_id: int, day: date, showing: int) -> int:
    """The seed of the ``showing``-th (0-based) showing of a card to a profile on ``day``."""
    basis = f"{profile_id}:{card_id}:{day.isoformat()}:{showing}"
    return int.from_bytes(hashlib.sha256(basis.encode()).digest()[:8], "big") % SEED_RANGE
