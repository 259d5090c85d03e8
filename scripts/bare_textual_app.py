"""The anchor of scripts/bench_start.py: a bare Textual app that paints one line.

It writes ``time.time()``, its CPU time and ``bare`` to ``$KVDRILL_FIRST_CARD_FILE`` right after
the line is painted (the refresh that follows mounting it) and exits, as kvdrill does for its
first card, so both are timed the same way.
"""

from __future__ import annotations

import os
import time

from textual.app import App, ComposeResult
from textual.widgets import Static


class OneLine(App):
    def compose(self) -> ComposeResult:
        yield Static("What is the KV cache size per token of Llama 3.1 8B?")

    def on_mount(self) -> None:
        self.call_after_refresh(self.painted)

    def painted(self) -> None:
        with open(os.environ["KVDRILL_FIRST_CARD_FILE"], "w", encoding="utf-8") as handle:
            handle.write(f"{time.time()!r} {time.process_time()!r} bare")
        self.exit()


if __name__ == "__main__":
    OneLine().run()
