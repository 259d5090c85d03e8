"""kvdrill: a terminal study app for LLM inference engineering.

The repository root is the ``kvdrill`` import package (pyproject.toml maps it), so the folders
app/, engine/, store/ and decks/ install as kvdrill.app, kvdrill.engine, kvdrill.store and
kvdrill.decks, in an editable install and in a wheel alike.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kvdrill")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"
