"""Cards in and out of other tools: Anki text exports, CSV, Anki packages. Pure: no I/O here."""
