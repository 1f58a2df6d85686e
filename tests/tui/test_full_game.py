"""A whole game against bots, driven only by key presses, to the game-over screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tests.tui.conftest import until
from tests.tui.driver import play_to_the_end
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.gameover import GameOverScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


async def test_a_game_against_bots_is_played_by_keys_to_game_over_and_the_deal_verifies(
    stacks_home: Path,
) -> None:
    launch = Launch(role="play", name="Ana", players=3, bots=2, broker=MEMORY, seed=11,
                    bot_delay=0.0, block_window=0.3)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        pressed = await play_to_the_end(app, pilot)
        assert pressed > 10
        screen = app.screen
        assert isinstance(screen, GameOverScreen)
        # The screen is pushed before its widgets are mounted: wait for the headline.
        await until(pilot, lambda: bool(screen.query("#over-headline")), "the headline")
        headline = str(screen.query_one("#over-headline", Static).render())
        assert "Game over" in headline
        await until(pilot, lambda: screen.verdict is not None, "the fair-deal verdict")
        assert screen.verdict is not None and screen.verdict[0], screen.verdict
        # Its numbers are the whole game's, counted from every batch (tui.model.results_of).
        await until(pilot, lambda: screen.results is not None, "the game's numbers")
        assert screen.results is not None
        assert sum(r.cards_played for r in screen.results) > 0
        # The game is kept where the menu's "Replay a game" looks.
        from netplay.journal import records_dir
        from tui.replay import recent_records, replay_file

        await until(pilot, lambda: bool(screen.record), "the record written")
        assert Path(screen.record).parent == records_dir()
        assert recent_records(records_dir()) == [Path(screen.record)]
        assert replay_file(Path(screen.record)).every_hand
