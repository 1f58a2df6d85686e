"""What the interface knows about its table, kept up to date from the session's notices.

The game itself is the engine's view (``view``), exactly as the player's session holds
it; everything else here is about people (names, presence), the talk around the table
and a few counts for the game-over screen.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.config import RulesConfig
from engine.errors import EngineError
from engine.games import game_def
from engine.results import SeatResult, seat_results
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
    plain: bool = False
    """The player plays in plain mode (read by a screen reader, its join said)."""

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
            plain=entry.get("plain") is True,
        ))
    return seats


def results_of(players: int, batches: Mapping[int, Any]) -> tuple[SeatResult, ...] | None:
    """The game's end in numbers (``engine.results``) from a peer's batches, or ``None``
    while any batch from the first to the last is missing (a player back from a drop
    fetches the ones it missed; the fair-deal check asks for any still missing)."""
    if not batches or sorted(batches) != list(range(1, max(batches) + 1)):
        return None
    return seat_results(players, (e for n in sorted(batches) for e in batches[n].events))


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
    results: tuple[SeatResult, ...] | None = None
    """The game's end in numbers, per seat (``results_of``): the same for every peer."""
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
