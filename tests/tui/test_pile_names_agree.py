"""One name per pile on every peer: two players and a spectator, one of them rejoining.

The sessions run on the synchronous test table (``tests.netplay.harness``); the words are
the interface's (:mod:`tui.history`), built from what each peer received.
"""

from __future__ import annotations

import re

from engine.state import Phase
from netplay.player import PlayerSession
from tests.netplay.harness import SHORT, Table
from tui.history import history_of


def _names(session: PlayerSession) -> dict[int, str]:
    view = session.view
    assert view is not None
    piles = list(view.piles) + ([view.window.pile] if view.window else [])
    return {p.id: p.name for p in piles}


def _piles_told(session: PlayerSession) -> list[str]:
    """Every "Red pile c" of the peer's retold history, in order."""
    lines = history_of(session.received, session.names, session.seat,
                       upto=session.applied).lines
    return [m for line in lines for m in re.findall(r"(?:Red|Blue)\[/\] pile \w+", line.markup)]


def test_pile_letters_agree_for_two_players_and_a_spectator_after_a_rejoin() -> None:
    table = Table(2, seed=31)
    spectator = table.add_player("watcher", watch=True)
    table.pump()
    table.run(lambda: len(table.host.batches) >= 8 and table.state.phase == Phase.PLAY)
    away = table.players[1]
    seat = away.seat
    table.remove(away)
    # The other player and the host's stand-in play on while p1 is away.
    table.run(lambda: len(table.host.batches) >= 30 and table.state.phase == Phase.PLAY)
    back = table.add_player("p1 back", identity=away.identity)
    table.pump()
    assert back.seat == seat
    # The snapshot stood in for batches 1..n; the session fetched them for the history.
    assert all(n in back.received for n in range(1, back.applied + 1))
    table.run(lambda: len(table.host.batches) >= 45 and table.state.phase == Phase.PLAY
              and len(table.state.piles) >= 2)

    host = {p.id: p.name for p in table.state.piles}
    assert host, "no pile open: the check would prove nothing"
    peers = [table.players[0], back, spectator]
    for session in peers:
        assert _names(session) == host, session.name
    told = [_piles_told(session) for session in peers]
    assert told[0], "no pile named in the history"
    assert told[0] == told[1] == told[2]


def test_the_history_after_a_rejoin_holds_what_the_stand_in_did() -> None:
    table = Table(2, seed=32, rules=SHORT)
    table.run(lambda: len(table.host.batches) >= 6 and table.state.phase == Phase.PLAY)
    away = table.players[1]
    table.remove(away)
    table.run(lambda: any(b.standin for b in table.host.batches)
              and table.state.phase == Phase.PLAY and len(table.host.batches) >= 20)
    back = table.add_player("p1 back", identity=away.identity, start=False)
    # Until the batches the snapshot stood in for have come, the history says so.
    table.filters.append(lambda to, topic, _: to is back and topic.endswith("/in")
                         and back.applied > 0)
    back.start(table.clock)
    table.pump()
    assert back.view is not None
    before = history_of(back.received, back.names, back.seat, upto=back.applied).lines
    assert "not received" in before[0].markup  # said, never silently left out
    table.filters.clear()
    table.advance(5.0)  # the session asks again for the history that did not come
    table.pump()
    lines = [line.markup for line in
             history_of(back.received, back.names, back.seat, upto=back.applied).lines]
    assert not any("not received" in line for line in lines)
    assert any("(a bot played for you)" in line for line in lines)
    assert any(line.startswith("[dim]── 1.") for line in lines)
