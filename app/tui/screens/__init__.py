"""The screens of the kvdrill TUI (home, drill, summary, import, keys, note, stats)."""
