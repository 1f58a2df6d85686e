"""The whole game so far (``l`` at the table): every event, turn by turn, with pile names.

Lines come from :mod:`tui.history`; what this peer never received (it was away, and the
host has not sent it yet) is said as such, never silently left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Footer, Static

from tui.history import Line
from tui.plural import counted
from tui.widgets.toosmall import TooSmall, fit


class HistoryScreen(Screen[None]):
    """Scroll with the arrows, PgUp/PgDn, Home/End; Esc (or ``l``) goes back to the table."""

    CSS_PATH = "history.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,l,q", "close", "Back to the table"),
        Binding("down,j", "scroll(1)", "Scroll", show=False),
        Binding("up,k", "scroll(-1)", "Scroll", show=False),
        Binding("pagedown,space", "page(1)", "Page", show=False),
        Binding("pageup", "page(-1)", "Page", show=False),
        Binding("home", "edge(0)", "First", key_display="Home"),
        Binding("end", "edge(1)", "Latest", key_display="End"),
    ]

    def __init__(self, title: str, lines: Sequence[Line]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = tuple(lines)

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="history-title")
        with VerticalScroll(id="history-scroll"):
            yield Static(self._body(), id="history-text")
        yield Footer(compact=True, show_command_palette=False)
        yield TooSmall()

    def on_resize(self, event: events.Resize) -> None:
        fit(self, event.size)

    def _title(self) -> str:
        turns = max((line.turn for line in self.lines), default=0)
        return f"[b]{escape(self.title_text)}[/] · the whole game · " \
               f"{counted(len(self.lines), 'line')}, {counted(turns, 'turn')} · " \
               "[dim]↑↓ PgUp PgDn Home End scroll[/]"

    def _body(self) -> str:
        if not self.lines:
            return "[dim]Nothing has happened yet.[/]"
        return "\n".join(f"[b]{line.markup}[/]" if line.header else line.markup
                         for line in self.lines)

    def show(self, lines: Sequence[Line]) -> None:
        """New lines came (history the host sent late): show them, keep the position."""
        if tuple(lines) == self.lines:
            return
        scroll = self.query_one("#history-scroll", VerticalScroll)
        at_end = scroll.scroll_y >= scroll.max_scroll_y
        self.lines = tuple(lines)
        self.query_one("#history-title", Static).update(self._title())
        self.query_one("#history-text", Static).update(self._body())
        if at_end:
            self.call_after_refresh(scroll.scroll_end, animate=False)

    def on_mount(self) -> None:
        fit(self, self.size)
        scroll = self.query_one("#history-scroll", VerticalScroll)
        scroll.focus()
        self.call_after_refresh(scroll.scroll_end, animate=False)

    @property
    def settled(self) -> bool:
        """Laid out and scrolled to the newest line (what a screenshot waits for)."""
        scroll = self.query_one("#history-scroll", VerticalScroll)
        return (scroll.max_scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y) \
            or (scroll.max_scroll_y == 0 and scroll.size.height > 0)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#history-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_page(self, step: int) -> None:
        scroll = self.query_one("#history-scroll", VerticalScroll)
        scroll.scroll_relative(y=step * max(1, scroll.size.height - 1), animate=False)

    def action_edge(self, end: int) -> None:
        scroll = self.query_one("#history-scroll", VerticalScroll)
        if end:
            scroll.scroll_end(animate=False)
        else:
            scroll.scroll_home(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
