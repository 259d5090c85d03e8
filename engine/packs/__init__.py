"""Markdown packs: reading, checking, card ids and claims."""
