"""One module per CLI sub-command.

Each module defines ``register(subparsers)`` which adds its parser and sets ``func`` to a
callable ``(args) -> int`` (the exit code). Modules import heavy libraries inside ``func``,
never at import time, so ``kvdrill --help`` and the TUI start stay fast.
"""

# Order is the order shown in ``kvdrill --help``.
COMMAND_MODULES = (
    "drill",
    "due",
    "cards",
    "flag",
    "check",
    "import_",
    "calc",
    "catalog",
    "stats",
    "convert",
    "export",
    "problem",
    "settings",
    "optimize",
    "completion",
    "serve",
    "doctor",
    "backup",
    "restore",
)
