"""After the game: a rematch with the same settings, or back to the host's next game."""

from __future__ import annotations

from pathlib import Path

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.memory import AsyncMemoryBroker
from tests.netplay.harness import SHORT
from tests.tui.conftest import until
from tests.tui.driver import play_to_the_end
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.gameover import GameOverScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


async def test_r_after_a_game_against_bots_deals_a_new_game(stacks_home: Path) -> None:
    launch = Launch(role="play", name="Ana", players=2, bots=1, broker=MEMORY, seed=3,
                    bot_delay=0.0, block_window=0.2, rules=SHORT)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        first = app.screen
        await play_to_the_end(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, TableScreen)
                    and app.screen is not first, "a new table")
        table = app.screen
        assert isinstance(table, TableScreen)
        await until(pilot, lambda: table.view is not None, "the new deal")
        assert table.view is not None and table.view.outcome is None


async def test_a_player_waits_in_the_lobby_for_the_hosts_next_game(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy",), block_window=0.2,
                            rules=SHORT)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot:
        async with Host(settings, broker=broker):
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game")
            await play_to_the_end(app, pilot)
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            lobby = app.screen
            assert isinstance(lobby, LobbyScreen)
            await pilot.pause(0.5)
            assert lobby.me is None, "joined the finished game again"
        async with Host(settings, broker=broker):
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the next game")
            assert not isinstance(app.screen, GameOverScreen)


async def test_the_deal_passes_to_the_left_in_a_rematch(stacks_home: Path) -> None:
    # Short games (three chips win): the deals are what this test is about.
    launch = Launch(role="play", name="Ana", players=3, bots=2, broker=MEMORY, seed=5,
                    bot_delay=0.0, block_window=0.2, rules=SHORT)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        dealers: list[int] = []
        previous = None
        for _ in range(3):
            await until(pilot, lambda last=previous: isinstance(app.screen, TableScreen)
                        and app.screen is not last
                        and app.screen.view is not None, "a deal")
            table = app.screen
            assert isinstance(table, TableScreen) and table.view is not None
            view = table.view
            dealers.append(view.dealer)
            assert view.config == SHORT  # a rematch keeps the table's rules
            assert view.current == (view.dealer + 1) % 3 or view.turn > 1
            previous = table
            await play_to_the_end(app, pilot)
            await pilot.press("r")
        assert dealers[1] == (dealers[0] + 1) % 3
        assert dealers[2] == (dealers[1] + 1) % 3


async def test_bots_the_host_seated_with_ctrl_b_are_seated_again_at_the_rematch(
    stacks_home: Path,
) -> None:
    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=3, bots=1,
                    bot_levels=("easy",), bot_delay=0.0, block_window=0.2, rules=SHORT)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.screen.me == 0, "our seat in the lobby")
        await pilot.press("ctrl+b")  # seat 2 was empty: a bot takes it
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game")
        first = app.screen
        await play_to_the_end(app, pilot)
        await pilot.press("r")
        # Nobody presses Ctrl+B again: the next game starts with the same bots seated.
        await until(pilot, lambda: isinstance(app.screen, TableScreen)
                    and app.screen is not first and app.screen.view is not None,
                    "the next game, every seat taken")
        session = app.control.session
        assert session is not None and session.host is not None
        seats = session.host.host.seats
        assert all(info is not None for info in seats), seats
        assert [info.is_bot for info in seats if info is not None] == [False, True, True]
        # The form's bot keeps its level; the filled seat's bot has the form's first level.
        assert session.host.host.settings.bots == ("easy", "easy")
