"""The Textual UI: the app and its factory (app.py), screens/, widgets/, the .tcss files, and
messages.py (what worker threads send back to the screens).

``create_app`` is re-exported here: the CLI opens the UI with ``kvdrill.app.tui.create_app``.
"""

from kvdrill.app.tui.app import create_app

__all__ = ["create_app"]
