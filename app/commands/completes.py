"""Marking an argument whose value names something, for the shell completion script
(app/commands/completion.py): a module of its own, which the commands import as they register
(the completion command imports the whole parser)."""

from __future__ import annotations

import argparse

# The kinds of words ``kvdrill completion --words KIND`` prints.
WORD_KINDS = ("packs", "templates", "models", "gpus", "settings")


def completes(action: argparse.Action, kind: str) -> None:
    """Tab on ``action``'s value offers the words of ``kind`` (shtab reads ``complete``; the
    shape of its ``shtab.cmd``, built here so that no command imports shtab to register)."""
    command = f"kvdrill completion --words {kind} 2>/dev/null"
    function = f"_kvdrill_words_{kind}"
    action.complete = {  # type: ignore[attr-defined]
        "bash": function,
        "zsh": f"($({command}))",
        "tcsh": f"`{command}`",
        "fish": f"({command})",
        "preamble": {"bash": f'{function}() {{\n  compgen -W "$({command})" -- "$1"\n}}\n'},
    }
