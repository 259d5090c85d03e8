"""The anchor of the start and key benchmarks: a bare Textual app that paints one line.

With ``$KVDRILL_FIRST_CARD_FILE`` set (scripts/bench_start.py), it writes ``time.time()``, its
CPU time and ``bare`` to that file right after the line is painted (the refresh that follows
mounting it) and exits, as kvdrill does for its first card, so both are timed the same way.
Without it (scripts/bench_tmux.py), it stays up and repaints its line on every key, and
``q`` quits.
"""

from __future__ import annotations

import os
import time

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

PROMPT = "What is the KV cache size per token of Llama 3.1 8B?"


class OneLine(App):
    def compose(self) -> ComposeResult:
        yield Static(PROMPT)

    def on_mount(self) -> None:
        if os.environ.get("KVDRILL_FIRST_CARD_FILE"):
            self.call_after_refresh(self.painted)

    def painted(self) -> None:
        with open(os.environ["KVDRILL_FIRST_CARD_FILE"], "w", encoding="utf-8") as handle:
            handle.write(f"{time.time()!r} {time.process_time()!r} bare")
        self.exit()

    def on_key(self, event: events.Key) -> None:
        if event.key == "q":
            self.exit()
            return
        self.query_one(Static).update(f"{PROMPT} (key {event.key!r} at {time.time():.6f})")


if __name__ == "__main__":
    OneLine().run()
