"""The table's running commentary: events in words, Block races and chat."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog


class TableLog(RichLog, can_focus=False):
    """Lines of markup, newest at the bottom. Not focusable: the arrows belong to the cards."""

    DEFAULT_CSS = """
    TableLog {
        height: 1fr;
        width: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, wrap=True, markup=False, max_lines=500,
                         min_width=20)

    def say(self, markup: str) -> None:
        self.write(Text.from_markup(markup))

    def chat(self, name: str, text: str) -> None:
        line = Text()
        line.append(f"{name}: ", style="bold italic")
        line.append(text, style="italic")
        self.write(line)
