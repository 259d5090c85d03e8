"""Driving the TUI in tests: build the app on a fixture pack, wait for workers, read widgets.

Shared by the TUI tests (a helper module, so no test module imports another).
"""

from __future__ import annotations

import io
from datetime import datetime
from pathlib import Path

from rich.console import Console
from textual.content import Content
from textual.widgets import Markdown, Static

from kvdrill.app.tui.widgets.card_markdown import CardMarkdown

FIXTURES = Path(__file__).parent / "fixtures" / "packs" / "tui"
NOW = "2026-03-02T09:00:00"  # a Monday morning


def import_fixture(db_url: str, folder: str) -> str:
    from kvdrill.app.services.pack_files import parse_paths
    from kvdrill.store.db import open_database
    from kvdrill.store.importer import apply_import

    database = open_database(db_url)
    packs, errors = parse_paths([FIXTURES / folder])
    assert not errors
    with database.session() as session:
        apply_import(session, now=datetime.now(), packs=packs)
    database.close()
    return db_url


def make_app(db_url: str, start: str = "drill", **options):
    from kvdrill.app.app_options import AppOptions
    from kvdrill.app.tui import create_app

    return create_app(db_url, start=start, options=AppOptions(bundled=False, **options))


async def settle(pilot) -> None:
    """Let workers finish, their messages be handled, and the screen catch up."""
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def steady(pilot, rounds: int = 50) -> None:
    """Settle, then wait until two screenshots 20 ms apart are the same.

    Some layout work (a DataTable sizing its columns to new rows) happens when the app is next
    idle; on a loaded machine a snapshot could be taken before it. Comparing pictures waits for
    whatever is still pending, whatever it is. A screen that never stops changing fails here
    rather than being photographed at some moment."""
    await settle(pilot)
    previous = None
    for _ in range(rounds):
        await pilot.pause(0.02)
        if _paint_pending(pilot.app.screen):
            # Two pictures of a screen whose refresh timer has not fired yet are equal and
            # stale (a loaded machine showed the import diff table missing that way).
            previous = None
            continue
        shot = pilot.app.export_screenshot()
        if shot == previous:
            return
        previous = shot
    raise AssertionError(f"the screen was still changing after {rounds} looks 20 ms apart")


def text_of(app, selector: str) -> str:
    widget = app.screen.query_one(selector)
    if isinstance(widget, Markdown | CardMarkdown):
        return widget.source
    if isinstance(widget, Static) and not isinstance(widget.content, str | Content):
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(widget.content)  # a Rich renderable such as a table
        return console.export_text()
    if isinstance(widget, Static):
        return str(widget.visual) if widget.visual is not None else ""
    return str(widget.render())


def screen_lines(app) -> list[str]:
    """The text of each line of the screen as painted (toasts and footer included)."""
    return [
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    ]


def _paint_pending(screen) -> bool:
    """Whether Textual still owes the screen a layout or repaint (its idle-time work: the
    screen's update timer, and a DataTable measuring rows it was just given)."""
    from textual.widgets import DataTable

    return bool(
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
        or any(table._require_update_dimensions for table in screen.query(DataTable))
        # A widget's own request (a DataTable whose rows just set its height) reaches the
        # screen only when that widget is next idle; a loaded machine showed the picture
        # taken in between (the stats mistakes table and the import diff table missing).
        or any(
            widget._layout_required or widget._repaint_required or widget._scroll_required
            for widget in screen.walk_children()
        )
        or screen.message_queue_size  # such a request, posted and not yet handled
    )


def logged(db_url: str, *columns: str) -> list[tuple]:
    """The named review_log columns of every answer, oldest first."""
    from sqlalchemy import select

    from kvdrill.store.db import open_database
    from kvdrill.store.models import ReviewLog

    database = open_database(db_url)
    with database.session() as session:
        query = select(*(getattr(ReviewLog, name) for name in columns)).order_by(ReviewLog.id)
        rows = session.execute(query).all()
    database.close()
    return [tuple(row) for row in rows]


def record_notices(app) -> list[str]:
    """Every notice the app posts from now on (the toasts themselves expire after a few
    seconds, which a loaded machine can take between two key presses)."""
    said: list[str] = []
    post = app.notify

    def notify(message, *args, **kwargs):
        said.append(str(message))
        return post(message, *args, **kwargs)

    app.notify = notify
    return said
