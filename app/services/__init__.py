"""The use cases: the only callers of the store, and never importing Textual.

The Textual UI, the CLI and plain mode call these; these call store/ and engine/. Modules here
import heavy libraries (SQLAlchemy through the store, sympy, pydantic) inside functions where
the fast start needs them not to load, so importing this package costs nothing.
"""
