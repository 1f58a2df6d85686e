"""What the interface knows about its table, kept up to date from the session's notices.

The game itself is the engine's view (``view``), exactly as the player's session holds
it; everything else here is about people (names, presence), the talk around the table
and a few counts for the game-over screen.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from typing import Any

from engine.cards import FACES, Kind
from engine.config import RulesConfig
from engine.errors import EngineError
from engine.events import (
    ActionPlayed,
    CardPlayed,
    ChipAwarded,
    Event,
    PileBlocked,
    PileCompleted,
)
from engine.games import game_def
from engine.state import Seat
from tui.words import short_name


@dataclass(frozen=True, slots=True)
class SeatPresence:
    """A seat as the host announces it."""

    name: str
    bot: bool
    present: bool
    standin: bool
    gone: bool = False
    """The host closed the table: nobody sits there any more."""

    @property
    def words(self) -> str:
        if self.gone:
            return "left"
        if self.bot:
            return "bot"
        if self.standin:
            return "away, bot plays"
        return "online" if self.present else "away"


def seats_from_announce(announce: dict[str, Any]) -> list[SeatPresence | None]:
    seats: list[SeatPresence | None] = []
    for entry in announce.get("seats") or []:
        if not isinstance(entry, dict):
            seats.append(None)
            continue
        seats.append(SeatPresence(
            name=short_name(str(entry.get("name", "?"))[:24]),
            bot=bool(entry.get("bot")),
            present=bool(entry.get("present", True)),
            standin=bool(entry.get("standin")),
        ))
    return seats


@dataclass
class SeatStats:
    cards_played: int = 0
    completed: int = 0
    blocked: int = 0
    """Piles this seat blocked."""
    steals: int = 0
    actions: int = 0
    chips_won: list[int] = field(default_factory=lambda: [0, 0])


@dataclass
class Stats:
    """Counts for the game-over screen, from the events this peer saw."""

    seats: list[SeatStats] = field(default_factory=list)

    def ensure(self, players: int) -> None:
        while len(self.seats) < players:
            self.seats.append(SeatStats())

    def add(self, event: Event) -> None:
        seat = getattr(event, "seat", None)
        if not isinstance(seat, int) or seat < 0:
            return
        self.ensure(seat + 1)
        mine = self.seats[seat]
        if isinstance(event, CardPlayed):
            mine.cards_played += 1
        elif isinstance(event, ActionPlayed):
            mine.actions += 1
            if FACES[event.card].kind in (Kind.STEAL_CARD, Kind.STEAL_CHIP):
                mine.steals += 1
        elif isinstance(event, PileCompleted):
            mine.completed += 1
        elif isinstance(event, PileBlocked):
            mine.blocked += 1
        elif isinstance(event, ChipAwarded):
            mine.chips_won[event.colour] += 1


@dataclass
class TableModel:
    """Everything the screens show about one table."""

    table: str
    me: Seat | None = None
    """Our seat; ``None`` for a spectator (or before the host seats us)."""
    spectator: bool = False
    names: tuple[str, ...] = ()
    view: Any = None
    """The engine's view of our seat: a ``State`` (Sequence Stacks) or ``SequenceState``."""
    seats: list[SeatPresence | None] = field(default_factory=list)
    players: int = 0
    game: str = "stacks"
    """The table's game as announced (``engine.games.GAMES``): ``stacks`` or ``sequence``."""
    rules: Any = field(default_factory=RulesConfig)
    """The announced rules: the game's config type."""
    block_window: float = 3.0
    turn_clock: float = 0.0
    """Seconds per turn on the host's clock (0: off), as announced."""
    password: bool = False
    status: str = "lobby"
    """The host's word: ``lobby``, ``playing`` or ``over``."""
    stats: Stats = field(default_factory=Stats)
    verdict: tuple[bool, str] | None = None
    """The fair-deal check: (ok, detail)."""
    joined: bool = False

    def read_announce(self, announce: dict[str, Any]) -> None:
        self.seats = seats_from_announce(announce)
        if announce.get("status") == "closed":
            self.seats = [None if seat is None else replace(seat, gone=True)
                          for seat in self.seats]
        players = announce.get("players")
        if isinstance(players, int):
            self.players = players
        window = announce.get("block_window")
        if isinstance(window, int | float):
            self.block_window = float(window)
        self.password = bool(announce.get("password"))
        clock = announce.get("turn_clock")
        if isinstance(clock, int | float) and not isinstance(clock, bool):
            self.turn_clock = float(clock)
        status = announce.get("status")
        if isinstance(status, str):
            self.status = status
        variant = announce.get("variant", "stacks")
        with contextlib.suppress(EngineError):  # a game we don't know: the player refuses it
            definition = game_def(variant if isinstance(variant, str) else "")
            if definition.name != self.game:
                self.game = definition.name
                self.rules = definition.config_type()
        rules = announce.get("rules")
        if isinstance(rules, dict):
            with contextlib.suppress(EngineError):  # an odd announcement is shown as default
                self.rules = game_def(self.game).config_from_wire(rules)

    def name(self, seat: Seat) -> str:
        if 0 <= seat < len(self.names):
            return self.names[seat]
        if 0 <= seat < len(self.seats) and (info := self.seats[seat]) is not None:
            return info.name
        return f"Seat {seat + 1}"

    def presence(self, seat: Seat) -> SeatPresence | None:
        return self.seats[seat] if 0 <= seat < len(self.seats) else None
