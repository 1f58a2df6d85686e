"""The table's running commentary: events in words, Block races and chat."""

from __future__ import annotations

from collections import deque

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import RichLog

MAX_LINES = 500
"""Lines a log keeps (the oldest go)."""


class TableLog(RichLog, can_focus=False):
    """Lines of markup, newest at the bottom, wrapped again when the width changes. Not
    focusable: the arrows belong to the cards."""

    DEFAULT_CSS = """
    TableLog {
        height: 1fr;
        width: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0))
    """The lines written (RichLog's, which lays the whole screen out again on each line,
    and then repaints the scroll bar in a frame of its own): laid out again only when
    its scroll bar comes or goes, or its widest line changes (:meth:`watch_virtual_size`)."""

    def watch_virtual_size(self, before: Size, after: Size) -> None:
        height = self.container_size.height
        if not self._size_known or before.width != after.width \
                or (before.height > height) != (after.height > height):
            self.refresh(layout=True)
        else:  # the same scroll bar, its thumb moved or shrunk: in this repaint
            self._scroll_update(after)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, wrap=True, markup=False, max_lines=MAX_LINES,
                         min_width=20)
        self._said: deque[Text] = deque(maxlen=MAX_LINES)
        """What was written, to wrap again at a new width (RichLog keeps only the strips)."""
        self._wrapped_at: int | None = None

    def say(self, markup: str) -> None:
        self._put(Text.from_markup(markup))

    def chat(self, name: str, text: str) -> None:
        line = Text()
        line.append(f"{name}: ", style="bold italic")
        line.append(text, style="italic")
        self._put(line)

    def _put(self, line: Text) -> None:
        self._said.append(line)
        self.write(line)
        if self.auto_scroll and self._size_known:
            # To the end now, in the repaint that draws the line: RichLog scrolls only
            # after that repaint, so every line drew the whole log twice, once unscrolled.
            # (Its own scroll, after the repaint, then finds the log at its end already.)
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        if self._size_known and self._wrapped_at is not None and width != self._wrapped_at:
            # A narrower (or wider) terminal: the lines were cut to the old width.
            said = list(self._said)
            self.clear()
            for line in said:
                self.write(line, scroll_end=False)
        if width:
            self._wrapped_at = width
        # The log shrinks when the table above it grows (the pile rows mount after the
        # first lines came): keep the newest line in view.
        if self.auto_scroll:
            self.scroll_end(animate=False, immediate=False)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.auto_scroll = False  # reading back with the wheel: new lines don't pull away

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.call_after_refresh(self._follow_at_end)

    def _follow_at_end(self) -> None:
        self.auto_scroll = self.scroll_y >= self.max_scroll_y

    def page(self, step: int) -> None:
        """Scroll a page back (``-1``) or on (``1``). While someone reads further back, new
        lines don't pull the log to its end; paging back to the end follows again."""
        target = max(0, min(self.max_scroll_y, self.scroll_y + step * max(1, self.size.height - 1)))
        self.scroll_to(y=target, animate=False)
        self.auto_scroll = target >= self.max_scroll_y

    @property
    def settled(self) -> bool:
        """Every line written is laid out and the newest is in view (screenshots wait)."""
        return self._size_known and not self._deferred_renders \
            and self.scroll_y >= self.max_scroll_y
