"""The turn clock and the waiting lines: who the table waits for, and for how long.

Pure state (no I/O, no clock of its own): the host feeds it its own time. Peers' clocks
differ, so what travels is durations (seconds left, seconds away), never times of day;
a peer counts them down from the moment it received them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.state import Seat

BEAT_JITTER = 0.2
"""Each heartbeat comes up to this fraction of the interval early, at random. Peers
started together (a table's bots, a process of many tables) would otherwise beat in step
for ever, and every beat of a process would queue behind the others in one burst."""


def next_beat(now: float, every: float) -> float:
    """When the heartbeat after one sent at ``now`` is due: never later than ``every``
    (what timeouts assume), up to ``BEAT_JITTER`` of it sooner."""
    return now + every * (1.0 - BEAT_JITTER * random.random())


class TurnClock:
    """Seconds per turn for a seated player; it runs while that player's turn is on and
    pauses while something else (a Block window) interrupts the turn."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.turn: tuple[int, Seat] | None = None
        """The turn on the clock: (turn number, seat)."""
        self.left = seconds
        self.since: float | None = None
        """When the clock last started running (``None``: paused or off)."""

    @property
    def on(self) -> bool:
        return self.seconds > 0

    def sync(self, turn: tuple[int, Seat] | None, running: bool, now: float) -> None:
        """The table as it is now: ``turn`` is the turn being played (``None`` when none
        is), ``running`` whether the clock should count (the seat's player decides now)."""
        if not self.on:
            return
        if turn is not None and turn != self.turn:
            self.turn, self.left, self.since = turn, self.seconds, None
        if running and self.since is None:
            self.since = now
        elif not running and self.since is not None:
            self.left -= now - self.since
            self.since = None

    def remaining(self, now: float) -> float | None:
        if not self.on or self.turn is None:
            return None
        used = now - self.since if self.since is not None else 0.0
        return max(0.0, self.left - used)

    def due(self) -> float | None:
        """When the running clock runs out."""
        if not self.on or self.since is None:
            return None
        return self.since + self.left


@dataclass(frozen=True, slots=True)
class Wait:
    """One seat the table waits for, as the host sees it (durations in seconds)."""

    seat: Seat
    away: float | None = None
    """How long the player has been away (no heartbeat), if away."""
    bot_in: float | None = None
    """When a stand-in bot plays for it (0: one does now)."""
    left: float | None = None
    """Time left on the turn clock, or in the Block window."""

    def to_wire(self) -> list[Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 1)

        return [self.seat, r(self.away), r(self.bot_in), r(self.left)]

    @classmethod
    def from_wire(cls, entry: object, players: int) -> Wait | None:
        """A wait entry from an untrusted heartbeat (``None`` if it is not one)."""
        if not isinstance(entry, list) or len(entry) != 4 or type(entry[0]) is not int:
            return None
        if not 0 <= entry[0] < players:
            return None
        values: list[float | None] = []
        for value in entry[1:]:
            if value is None:
                values.append(None)
            elif isinstance(value, int | float) and not isinstance(value, bool) \
                    and 0 <= value < 1e6:
                values.append(float(value))
            else:
                return None
        return cls(entry[0], values[0], values[1], values[2])

    def later(self, seconds: float) -> Wait:
        """The same wait ``seconds`` after it was told."""
        def down(x: float | None) -> float | None:
            return None if x is None else max(0.0, x - seconds)

        return Wait(self.seat, None if self.away is None else self.away + seconds,
                    down(self.bot_in), down(self.left))
