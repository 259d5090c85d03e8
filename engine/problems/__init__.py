"""Problem templates, variant generation, typed answers and their checking."""
