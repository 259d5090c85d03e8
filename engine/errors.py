"""Errors a user can cause. Each prints as one line; none should ever surface as a traceback."""

from __future__ import annotations

from dataclasses import dataclass


class UserError(Exception):
    """A problem with the user's input, files or settings, described in one clear sentence."""


@dataclass(frozen=True, order=True)
class Located:
    """One problem at a place in a file, printed as ``path:line: message``."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class PackErrors(UserError):
    """Every problem found in one or more pack files."""

    def __init__(self, problems: list[Located]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
