"""Every other seat at the table, one line each: the public part of their game."""

from __future__ import annotations

from textual.markup import escape
from textual.reactive import reactive

from engine.cards import Colour
from engine.state import Phase, Seat, State
from tui import words
from tui.model import SeatPresence
from tui.widgets.steady import Steady


def seat_order(view: State, me: Seat | None) -> list[Seat]:
    """Every seat but ``me``, in the order play reaches them from ``me``."""
    start = 0 if me is None else me
    step = view.direction
    seats = [(start + step * i) % view.players for i in range(view.players)]
    return [s for s in seats if s != me]


class Opponents(Steady):
    """One line per opponent: name, presence, hand, discard top, chips, skips, turn.
    Repainted only when its lines change (`Steady`)."""

    DEFAULT_CSS = """
    Opponents {
        height: auto;
        width: 1fr;
    }
    """

    view: reactive[State | None] = reactive(None, always_update=True, repaint=False)
    names: reactive[tuple[str, ...]] = reactive((), repaint=False)
    me: reactive[Seat | None] = reactive(None, repaint=False)
    seats: reactive[tuple[SeatPresence | None, ...]] = reactive((), repaint=False)
    wide: reactive[bool] = reactive(False, repaint=False)

    def watch_view(self) -> None:
        self.redraw()

    def watch_names(self) -> None:
        self.redraw()

    def watch_me(self) -> None:
        self.redraw()

    def watch_seats(self) -> None:
        self.redraw()

    def watch_wide(self) -> None:
        self.redraw()

    def markup(self) -> str:
        view = self.view
        if view is None or view.phase == Phase.SETUP:
            return "[dim]Waiting for the deal…[/]"
        lines = [self._line(view, seat) for seat in seat_order(view, self.me)]
        return "\n".join(lines)

    def _line(self, view: State, seat: Seat) -> str:
        current = view.current == seat and view.phase == Phase.PLAY
        marker = "[b]▶[/]" if current else " "
        name = self.names[seat] if seat < len(self.names) else f"Seat {seat + 1}"
        width = 14
        if len(name) > width:
            name = name[: width - 1] + "…"
        name_text = f"[b]{escape(name)}[/]" if current else escape(name)
        name_text += " " * (width - len(name))
        presence = self.seats[seat] if seat < len(self.seats) else None
        here = "" if presence is None else presence.words
        here_text = f"[dim]{here:<7}[/]" if here in ("bot", "online") else f"[b]{here:<7}[/]"
        hand = len(view.hands[seat])
        top = view.discard_top(seat)
        discard = words.card(top) if top is not None else "[dim] —  [/]"
        red, blue = view.chips[seat][Colour.RED], view.chips[seat][Colour.BLUE]
        facts = [f"hand {hand:<2}", f"discard {discard}"]
        if self.wide:
            facts.append(f"[dim]({len(view.discards[seat])} in pile)[/]")
        facts.append(f"chips {words.chips(red, blue)}")
        status = self._status(view, seat)
        if self.wide:
            head = f"{marker} {name_text} {here_text} {status}".rstrip()
            return f"{head}\n    " + "   ".join(facts)
        return " ".join([f"{marker} {name_text} {here_text}", *facts, status]).rstrip()

    def _status(self, view: State, seat: Seat) -> str:
        parts = []
        if view.current == seat and view.phase == Phase.PLAY:
            parts.append("[b]playing[/]" if self.wide else "")
        if view.skip_tokens[seat]:
            parts.append(f"[b]skips {view.skip_tokens[seat]}[/]")
        window = view.window
        if window is not None:
            if seat == window.seat:
                parts.append("[b]completed![/]")
            elif seat in window.passed:
                parts.append("[dim]passed[/]")
            elif seat in window.eligible:
                parts.append("[i]may block…[/]")
        return " ".join(p for p in parts if p)
