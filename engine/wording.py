"""Counted nouns, the one helper for "1 byte" and "2 bytes" in every message."""

from __future__ import annotations


def plural(count: float, noun: str, shown: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``0 cards``, ``0.5 bytes`` (regular nouns); ``shown`` is the
    count as it should read (``format_number(count)``), when not ``str(count)``."""
    text = shown if shown is not None else str(count)
    return f"{text} {noun}" if count == 1 else f"{text} {noun}s"
