"""Below the size a screen is laid out for: one plain sentence instead of a broken screen."""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

MIN_WIDTH = 80
MIN_HEIGHT = 24
"""The table, the history and a replay are laid out for 80x24 and up (tested at 80x24
and 120x40)."""


class TooSmall(Static):
    """Shown (and everything else hidden, see ``app.tcss``) while the terminal is too small."""

    def __init__(self) -> None:
        super().__init__("", classes="too-small")

    def show_for(self, size: Size) -> None:
        self.update(
            f"[b]This terminal is {size.width}x{size.height}.[/]\n\n"
            f"Make it at least [b]{MIN_WIDTH}x{MIN_HEIGHT}[/] to see the table "
            "(a bigger window, or a smaller font).\n\n[dim]The game goes on meanwhile; "
            "ctrl+q quits.[/]"
        )


def too_small(size: Size) -> bool:
    return size.width < MIN_WIDTH or size.height < MIN_HEIGHT


def fit(screen: Screen[Any], size: Size) -> bool:
    """Show ``screen``'s :class:`TooSmall` (if it has one) when ``size`` is too small."""
    small = too_small(size)
    screen.set_class(small, "-too-small")
    for notice in screen.query(TooSmall):
        notice.show_for(size)
    return small
