"""The end of a game in numbers, per seat: one computation for every peer.

What the game-over box shows beside the chips (chips won, piles completed, blocks made,
steals, cards played) is counted here from the game's events in order, all of them: a
player who followed the whole game, one who dropped and came back (the batches it missed
are fetched for its history), a spectator, a replay of the record and ``stacks verify``
all count the same events and so read the same numbers. Counting only what a peer saw
live made a rejoined player's box differ from everyone else's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from engine.cards import FACES, Colour, Kind
from engine.events import ActionPlayed, CardPlayed, ChipAwarded, PileBlocked, PileCompleted


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's counts over a whole game."""

    cards_played: int = 0
    """Cards played onto piles (number and wild cards)."""
    completed: int = 0
    """Piles this seat completed (blocked or not)."""
    blocked: int = 0
    """Piles this seat blocked."""
    steals: int = 0
    """Steal a Card and Steal a Chip played."""
    actions: int = 0
    """Action cards played (Skip, Reverse, the Steals)."""
    red_won: int = 0
    blue_won: int = 0
    """Chips taken from the supply by completing piles."""

    @property
    def chips_won(self) -> int:
        return self.red_won + self.blue_won


_STEALS = (Kind.STEAL_CARD, Kind.STEAL_CHIP)


def seat_results(players: int, events: Iterable[object]) -> tuple[SeatResult, ...]:
    """Each seat's :class:`SeatResult` over ``events`` (a whole game's, in order; events of
    other kinds, and any naming no seat of the game, are passed over)."""
    counts: list[Counter[str]] = [Counter() for _ in range(players)]
    for event in events:
        seat = getattr(event, "seat", None)
        if type(seat) is not int or not 0 <= seat < players:
            continue
        mine = counts[seat]
        if isinstance(event, CardPlayed):
            mine["cards_played"] += 1
        elif isinstance(event, PileCompleted):
            mine["completed"] += 1
        elif isinstance(event, PileBlocked):
            mine["blocked"] += 1
        elif isinstance(event, ActionPlayed):
            mine["actions"] += 1
            if 0 <= event.card < len(FACES) and FACES[event.card].kind in _STEALS:
                mine["steals"] += 1
        elif isinstance(event, ChipAwarded):
            mine["red_won" if event.colour == Colour.RED else "blue_won"] += 1
    return tuple(SeatResult(**c) for c in counts)
