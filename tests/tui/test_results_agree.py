"""The end of a game reads the same for every peer, however it followed the game.

A player whose program was killed mid-game and started again (the harness drops its
session and seats a new one with the same identity, as a restarted `stacks join` is), a
spectator who watched it all, and the host's record: the game-over box's numbers
(``tui.model.results_of``, from the batches each peer holds) agree with the record's
(``engine.results``). Counting what a peer saw live, as the box once did, gave the
rejoined player smaller numbers than everyone else.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from engine.results import seat_results
from engine.state import Phase
from netplay.batch import Batch
from tests.netplay.harness import SHORT, Table
from tests.tui import states
from tests.tui.showcase import show_game_over
from tui.app import make_app
from tui.model import results_of
from tui.screens.gameover import GameOverScreen


def test_a_rejoined_player_a_spectator_and_the_record_read_the_same_end() -> None:
    table = Table(2, seed=41, rules=SHORT)
    spectator = table.add_player("watcher", watch=True)
    table.pump()
    table.run(lambda: len(table.host.batches) >= 6 and table.state.phase == Phase.PLAY)
    away = table.players[1]
    live_before = dict(away.received)
    table.remove(away)  # its process killed
    table.run(lambda: len(table.host.batches) >= len(live_before) + 25
              and table.state.phase == Phase.PLAY)
    back = table.add_player("p1 back", identity=away.identity)  # started again
    table.pump()
    assert back.seat == away.seat
    table.run_to_end()
    assert back.verdict is not None and back.verdict.ok, back.verdict
    record = table.host.record()
    from_record = seat_results(2, (e for body in record["batches"]
                                   for e in Batch.from_body(body).events))
    assert sum(r.cards_played for r in from_record) > 0
    assert sum(r.chips_won for r in from_record) >= SHORT.win_chips
    for peer in (table.players[0], back, spectator):
        assert results_of(2, peer.received) == from_record, peer.name
    # What the dropped program had seen live counts less: the reason for one computation.
    assert seat_results(2, (e for b in live_before.values() for e in b.events)) != from_record


def test_a_peer_missing_batches_shows_no_numbers_yet() -> None:
    table = Table(2, seed=42, rules=SHORT)
    table.run(lambda: len(table.host.batches) >= 5)
    held = dict(table.players[0].received)
    held.pop(2)
    assert results_of(2, held) is None
    assert results_of(2, {}) is None


def _rows(screen: GameOverScreen) -> list[str]:
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(screen._table())
    return console.export_text().splitlines()


@pytest.mark.asyncio
async def test_the_game_over_box_shows_the_games_numbers(stacks_home: Path) -> None:
    game = states.finished()
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await show_game_over(app, game)
        await pilot.pause()
        rows = _rows(screen)
        expected = seat_results(game.state.players, game.log)
        for seat, result in enumerate(expected):
            row = next(r for r in rows if (("You" if seat == 0 else states.NAMES[seat]) in r))
            assert row.split()[-5:] == [str(result.chips_won), str(result.completed),
                                        str(result.blocked), str(result.steals),
                                        str(result.cards_played)], row
        screen.results = None  # batches still on their way
        await pilot.pause()
        rows = _rows(screen)
        assert any(row.split()[-5:] == ["…"] * 5 for row in rows), rows
