"""Markdown packs: reading, checking, card ids, claims, and the CardView a drill shows."""
