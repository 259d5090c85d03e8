"""Placeholder for the `drill` command; replaced by its real implementation."""

from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("drill", help="(not built yet)")
    parser.set_defaults(func=lambda args: 2)


def run_home(args) -> int:
    return 2
