"""Placeholder for the `import` command; replaced by its real implementation."""

from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("import", help="(not built yet)")
    parser.set_defaults(func=lambda args: 2)
