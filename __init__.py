"""kvdrill: a terminal study app for LLM inference engineering.

The repository root is the ``kvdrill`` import package (pyproject.toml maps it), so the folders
app/, engine/, store/ and decks/ install as kvdrill.app, kvdrill.engine, kvdrill.store and
kvdrill.decks, in an editable install and in a wheel alike.
"""


def __getattr__(name: str) -> str:
    """``kvdrill.__version__``, looked up when asked: importing importlib.metadata would slow
    every command's start."""
    if name != "__version__":
        raise AttributeError(f"module 'kvdrill' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kvdrill")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0+unknown"
