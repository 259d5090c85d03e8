"""Pure logic: pack parsing, formulas, catalogs, generator, answer checking, SM-2, queue policy.

Nothing here does database or terminal I/O, and nothing imports Textual, ``store`` or ``app``
(the import contracts in pyproject.toml say so; tests/test_contracts.py runs them).
"""
