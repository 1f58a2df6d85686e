"""One computation of a game's end in numbers: every peer reads the same.

A player who dropped mid-game and came back, a spectator who watched it all and the host's
record count the same events, so their game-over numbers agree; counting only what a peer
applied live (what the box did before) does not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.cards import FACES, Colour, Kind
from engine.events import ActionPlayed, ChipAwarded, PileCompleted
from engine.results import SeatResult, seat_results
from engine.state import Phase, Zone
from netplay.batch import Batch
from netplay.record import FORMAT
from tests.netplay.harness import SHORT, Table


def _events(batches: Mapping[int, Batch]) -> Iterable[object]:
    for n in sorted(batches):
        yield from batches[n].events


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


def test_a_rejoined_player_a_spectator_and_the_record_read_the_same_end() -> None:
    table = Table(2, seed=41, rules=SHORT)
    spectator = table.add_player("watcher", watch=True)
    table.pump()
    table.run(lambda: len(table.host.batches) >= 6 and table.state.phase == Phase.PLAY)
    away = table.players[1]
    seen_live = len(away.received)
    table.remove(away)
    table.run(lambda: len(table.host.batches) >= seen_live + 25
              and table.state.phase == Phase.PLAY)
    back = table.add_player("p1 back", identity=away.identity)
    table.pump()
    table.run_to_end()
    assert back.verdict is not None and back.verdict.ok, back.verdict
    record = table.host.record()
    assert record["format"] == FORMAT
    from_record = seat_results(2, (e for body in record["batches"]
                                   for e in Batch.from_body(body).events))
    for peer in (table.players[0], back, spectator):
        assert seat_results(2, _events(peer.received)) == from_record, peer.name
    # The game did something to count, and the rejoined player missed part of it live.
    assert sum(r.cards_played for r in from_record) > 0
    assert sum(r.chips_won for r in from_record) >= SHORT.win_chips
