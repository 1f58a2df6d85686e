"""One computation of a game's end in numbers, per seat (the game-over box's counts)."""

from __future__ import annotations

from engine.cards import FACES, Colour, Kind
from engine.events import ActionPlayed, ChipAwarded, PileCompleted
from engine.results import SeatResult, seat_results
from engine.state import Zone


def test_counts_are_per_seat_and_ignore_what_names_no_seat() -> None:
    steal = next(c for c, f in enumerate(FACES) if f.kind is Kind.STEAL_CHIP)
    skip = next(c for c, f in enumerate(FACES) if f.kind is Kind.SKIP)
    events = [ChipAwarded(1, Colour.RED), ChipAwarded(1, Colour.BLUE), ChipAwarded(7, Colour.RED),
              ActionPlayed(0, steal, Zone.HAND), ActionPlayed(0, skip, Zone.HAND),
              PileCompleted(1, 0, False, (0,)), "not an event"]
    results = seat_results(2, events)
    assert results[1] == SeatResult(completed=1, red_won=1, blue_won=1)
    assert results[1].chips_won == 2
    assert results[0] == SeatResult(steals=1, actions=2)
