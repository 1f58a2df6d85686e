"""Classic Sequence in the interface: a whole game against bots driven by keys only."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from engine.classic.state import SequenceState
from tests.tui.conftest import until
from tests.tui.driver import play_board_to_the_end
from tests.tui.showcase import plain
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.board import BoardScreen
from tui.screens.gameover import GameOverScreen
from tui.screens.history import HistoryScreen
from tui.screens.replay import ReplayScreen

pytestmark = pytest.mark.asyncio


async def test_a_sequence_game_against_a_bot_is_played_by_keys_to_the_end_and_verifies(
    stacks_home: Path,
) -> None:
    launch = Launch(role="play", name="Ana", players=2, bots=1, broker=MEMORY, seed=7,
                    bot_delay=0.0, variant="sequence")
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BoardScreen)
                    and app.screen.view is not None, "the board")
        board = app.screen
        assert isinstance(board, BoardScreen)
        status = plain(board.query_one("#board-status", Static).render())
        assert "Sequence" in status and "Blue" in status
        pressed = await play_board_to_the_end(app, pilot)
        assert pressed > 20
        view = board.view
        assert isinstance(view, SequenceState) and view.outcome is not None
        # Someone made the sequences the game needs (two with two sides), or the turn limit.
        winner = view.outcome.winner
        assert winner is None or view.sequence_count(winner) >= view.to_win
        screen = app.screen
        assert isinstance(screen, GameOverScreen)
        await until(pilot, lambda: bool(screen.query("#over-headline")), "the headline")
        headline = plain(screen.query_one("#over-headline", Static).render())
        assert "Game over" in headline
        assert ("You win" in headline) == (winner == 0), headline
        console = Console(width=80, record=True, file=io.StringIO())
        console.print(screen._table())
        table = console.export_text()
        assert "Blue" in table and "Green" in table and "Sequences" in table, table
        await until(pilot, lambda: screen.verdict is not None, "the fair-deal verdict")
        assert screen.verdict is not None and screen.verdict[0], screen.verdict
        # v replays the game just played, every hand known (the host revealed its secret).
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        replay_screen = app.screen
        assert isinstance(replay_screen, ReplayScreen)
        assert replay_screen.replay.game == "sequence" and replay_screen.replay.every_hand
        final = replay_screen.replay.moments[-1].state
        assert final.chips == view.chips and final.outcome == view.outcome
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "game over again")
        # t goes back to the board, l tells the whole game.
        await pilot.press("t")
        await until(pilot, lambda: app.screen is board, "the board again")
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        history = app.screen
        assert isinstance(history, HistoryScreen)
        told = "\n".join(plain(line.markup) for line in history.lines)
        assert "made a sequence" in told and "── 1. " in told
        assert "Game over" in told
