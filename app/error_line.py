"""How an error reads when the command line prints it: one safe line."""

from __future__ import annotations

import re

from kvdrill.app.services import environment
from kvdrill.engine.errors import printable

# An argument in an error line (a run of characters without spaces) is cut to this length.
ARGUMENT_LIMIT = 80
_LONG_ARGUMENT = re.compile(rf"[^\s']{{{ARGUMENT_LIMIT + 1},}}")


def error_line(message: str) -> str:
    """One line of an error as printed: terminal controls escaped, database passwords masked,
    and a very long quoted argument cut."""
    masked = environment.mask_password(message)
    return printable(_LONG_ARGUMENT.sub(lambda match: _cut(match[0]), masked))


def _cut(text: str) -> str:
    return f"{text[: ARGUMENT_LIMIT - 5]}[...]"
