"""kvdrill's person-facing layer: the use-case services, the Textual TUI, plain mode and the CLI."""
