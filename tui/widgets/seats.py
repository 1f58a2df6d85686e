"""The seats of a table in the lobby: who sits where, and who is here."""

from __future__ import annotations

from textual.markup import escape
from textual.reactive import reactive
from textual.widget import Widget

from engine.state import Seat
from tui.model import SeatPresence


class SeatList(Widget):
    """One line per seat: number, name, presence; empty seats say so."""

    DEFAULT_CSS = """
    SeatList {
        height: auto;
        width: 1fr;
    }
    """

    seats: reactive[tuple[SeatPresence | None, ...]] = reactive((), layout=True)
    players: reactive[int] = reactive(0, layout=True)
    me: reactive[Seat | None] = reactive(None)

    def render(self) -> str:
        if not self.players:
            return "[dim]No table yet.[/]"
        lines = []
        for seat in range(self.players):
            info = self.seats[seat] if seat < len(self.seats) else None
            if info is None:
                lines.append(f"{seat + 1}. [dim]— empty seat —[/]")
                continue
            you = " [b](you)[/]" if seat == self.me else ""
            plain = " [i]plain mode[/]" if info.plain else ""
            mark = "●" if info.present or info.bot else "○"
            lines.append(f"{seat + 1}. {mark} {escape(info.name)}{you}{plain} "
                         f"[dim]{info.words}[/]")
        return "\n".join(lines)
