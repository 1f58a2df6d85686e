"""Repaint only what changed: the table's widgets are set a new view on every batch, and
most of the time most of them show the same thing as before.

A refresh is not free: each one re-renders the widget, and one that asks for a layout
lays the whole screen out again and re-renders every widget its region touches. Every
player pays it on each batch, and so does a ``stacks web`` server once per watched table
(:mod:`webserver.stage`), so the widgets here are refreshed only when what they show
changed, and laid out again only when their size may have.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static


def line_widths(markup: str) -> list[int]:
    """The cells each line of ``markup`` takes, unwrapped."""
    return [line.cell_length for line in Content.from_markup(markup).split("\n")]


class Steady(Widget):
    """A widget whose :meth:`markup` is computed from its attributes: call :meth:`redraw`
    where a plain reactive would refresh it (its reactives say ``repaint=False`` and each
    has a watcher that calls it). It is refreshed only when that markup changed, and laid
    out again only when its size may have: another count of lines, or (``WRAPS``) a line
    that may wrap, or (not ``WRAPS``) another widest line. Setting several attributes at
    once inside :meth:`changes` renders once. :meth:`render` gives the markup
    :meth:`redraw` computed: it is computed once a change, not again for the repaint."""

    WRAPS = True
    """Its lines wrap at its width (``False``: it is as wide as its widest line)."""
    _shown: str | None = None
    _shown_widths: list[int] | None = None
    _held = 0

    @contextmanager
    def changes(self) -> Iterator[None]:
        """Set attributes inside: the widget is rendered once, at the end."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            self.redraw()

    def markup(self) -> str:
        """What the widget shows, from its attributes."""
        raise NotImplementedError

    def render(self) -> str:
        if self._shown is None:  # not drawn yet (its attributes set before it was mounted)
            self._shown = self.markup()
        return self._shown

    def redraw(self) -> None:
        if self._held:
            return
        text = self.markup()
        before = self._shown
        if text == before:
            return
        before_widths = self._shown_widths
        self._shown = text
        self._shown_widths = None
        width = self.content_region.width
        if before is None or before_widths is None or width <= 0 \
                or before.count("\n") != text.count("\n"):
            layout = True
        else:
            widths = self._shown_widths = line_widths(text)
            if self.WRAPS:
                layout = max(widths) >= width or max(before_widths) >= width
            else:
                layout = max(widths) != max(before_widths)
        if self._shown_widths is None:
            self._shown_widths = line_widths(text)
        self.refresh(layout=layout)


def show(static: Static, markup: str, *, layout: bool = True) -> None:
    """Set ``static``'s markup if it changed (nothing to do if not). ``layout=False`` for
    a widget whose height does not depend on its text (a fixed height)."""
    if static.content != markup:
        static.update(markup, layout=layout)
