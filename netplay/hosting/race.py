"""The Block race (:class:`BlockRace`): when a pile completes the host opens a Block window,
judges each press by its own clock alone, closes the window when its time is up, lists
the presses that came late for a moment after (``race_settle``), then tells everyone.

Only Sequence Stacks has Block windows. The race itself does no I/O: what it publishes,
journals and steps goes through the table it serves (:class:`RaceTable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.actions import Block, CloseBlockWindow
from engine.events import PileBlocked
from engine.games import AnyAction, AnyEvent, TableGame
from engine.state import Phase, Seat, State
from netplay.hosting.journal import HostJournal
from netplay.hosting.state import TableState
from netplay.hosting.stream import SpectatorStream


@dataclass
class Press:
    seat: Seat
    kind: str
    offset_ms: float
    result: str


@dataclass
class Race:
    pile: int
    opened: float
    deadline: float
    opened_at: int
    """The batch that opened the window: a press must have seen it."""
    presses: list[Press] = field(default_factory=list)
    closed: float | None = None
    winner: Seat | None = None

    def to_body(self) -> dict[str, Any]:
        return {
            "pile": self.pile,
            "winner": self.winner,
            "presses": [[p.seat, p.kind, round(p.offset_ms, 3), p.result] for p in self.presses],
        }

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> Race:
        """A past race as journaled (its times are gone: only its result is kept)."""
        race = cls(body["pile"], 0.0, 0.0, 0, closed=0.0, winner=body["winner"])
        race.presses = [Press(seat, kind, offset, result)
                        for seat, kind, offset, result in body["presses"]]
        return race


class RaceTable(Protocol):
    """What the race needs of the table it serves."""

    now: float
    game: TableGame | None
    state: TableState
    stream: SpectatorStream
    journal: HostJournal

    @property
    def batch_count(self) -> int: ...
    def step(self, action: AnyAction, proof: bytes | None, key: bytes | None, *,
             standin: bool = False) -> bool: ...


def in_window(game: TableGame | None) -> bool:
    """Whether ``game`` waits for Block presses now (only Sequence Stacks has windows)."""
    return game is not None and isinstance(game.state, State) and (
        game.state.phase == Phase.BLOCK_WINDOW)


class BlockRace:
    """The race under way (:attr:`current`, until it is told) and the past ones."""

    def __init__(self, table: RaceTable, window: float, settle: float) -> None:
        self.table = table
        self.window = window
        """Seconds a Block window stays open."""
        self.settle = settle
        """Seconds after a window closes during which late presses are still listed."""
        self.current: Race | None = None
        self.past: list[Race] = []

    @property
    def open(self) -> bool:
        """A window is open (its presses are judged)."""
        return self.current is not None and self.current.closed is None

    def next_deadline(self, now: float) -> float | None:
        race = self.current
        if race is None:
            return None
        return race.deadline if race.closed is None else race.closed + self.settle

    def tick(self, now: float) -> None:
        """Close a window whose time is up; tell a race whose late presses are listed."""
        self.close_overdue()
        race = self.current
        if race is not None and race.closed is not None and now >= race.closed + self.settle:
            self.table.stream.publish("race", race.to_body())
            self.current = None

    def close_overdue(self) -> None:
        """A press is judged when it arrives: a window whose deadline has passed closes
        first, as if the timer had fired on time, so a Block arriving late is late."""
        race, table = self.current, self.table
        if race is None or race.closed is not None or table.now < race.deadline:
            return
        if not in_window(table.game):
            return
        arrived, table.now = table.now, race.deadline
        try:
            table.step(CloseBlockWindow(), None, None)
        finally:
            table.now = arrived

    def left(self, now: float) -> float | None:
        """Seconds left in the window under way (``None``: no race)."""
        race = self.current
        return None if race is None else max(0.0, race.deadline - now)

    def stale(self, at: int) -> bool:
        """Whether a press sent after batch ``at`` was meant for an earlier window."""
        race = self.current
        return race is not None and race.closed is None and at < race.opened_at

    def press(self, action: AnyAction, result: str, now: float) -> None:
        """A Block or a pass, and how it went (``won``, ``passed``, ``late``, ``rejected``)."""
        race = self.current
        if race is None:
            return
        kind = "block" if isinstance(action, Block) else "pass"
        race.presses.append(Press(action.seat, kind, (now - race.opened) * 1000.0, result))

    def refused(self, action: AnyAction, reason: str, now: float) -> str:
        """A press the engine refused: listed (late, or rejected); the reason it is told,
        naming the winner to a Block that came late."""
        race = self.current
        if race is None:
            return reason
        late = race.closed is not None
        self.press(action, "late" if late else "rejected", now)
        if late and isinstance(action, Block) and race.winner is not None:
            return f"seat {race.winner} blocked first"
        return reason

    def track(self, events: list[AnyEvent]) -> None:
        """After a batch: close the window it closed (the race is journaled), open the one
        it opened (the race before it told first, if its late presses were still listed)."""
        table = self.table
        state = table.game.state if table.game else None
        assert state is not None
        if not isinstance(state, State):
            return  # no Block windows in this game
        race = self.current
        if race is not None and race.closed is None and state.phase != Phase.BLOCK_WINDOW:
            race.closed = table.now
            for event in events:
                if isinstance(event, PileBlocked):
                    race.winner = event.seat
            self.past.append(race)
            table.state.race_closed()
            table.journal.append_with_wall_time({"t": "race", "race": race.to_body()},
                                                table.now)
        if state.phase == Phase.BLOCK_WINDOW and state.window is not None and (
            race is None or race.closed is not None
        ):
            if race is not None and race.closed is not None:
                table.stream.publish("race", race.to_body())
            self.reopen(state.window.pile.id)

    def reopen(self, pile: int) -> None:
        """Open a window on ``pile`` now, whole (also: a resumed host's, whose clock died
        with the old process)."""
        now = self.table.now
        self.current = Race(pile, now, now + self.window, self.table.batch_count)
        self.table.state.race_opened()
