"""kvdrill's person-facing layer: the Textual TUI, the plain line mode and the CLI."""
