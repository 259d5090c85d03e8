"""Pure logic: pack parsing, formulas, catalogs, generator, answer checking, SM-2, queue policy.

Nothing here does database or terminal I/O, and nothing imports Textual, ``store`` or ``app``
(tests/test_layers.py enforces it).
"""
