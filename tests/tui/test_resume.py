"""The menu's Resume: a table hosted from the interface comes back from its journal, the
host at its seat, the game where it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from netplay.journal import list_tables
from netplay.memory import AsyncMemoryBroker
from tests.tui.conftest import until
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.choice import ChoiceScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.menu import MenuScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


async def test_resume_lists_the_profiles_unfinished_table_and_brings_it_back(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    launch = Launch(role="host", table="friday", name="Ana", profile="ana", players=2,
                    bots=1, broker=MEMORY, bot_delay=0.0, block_window=0.2)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        session = app.control.session
        assert session is not None
        await until(pilot, lambda: session.host is not None and session.host.host.game
                    is not None, "the deal")
        assert session.host is not None
        host = session.host.host
        # The host's bot has played (its moves go out once journaled): Ana's turn.
        await until(pilot, lambda: host.deciders() == [0] and not host.in_window(),
                    "Ana's turn")
        commit, key, batches = host.commit, host.identity.key, len(host.batches)
    # The interface is gone in the middle of the game: the table is unfinished.
    (journal,) = list_tables(profile="ana")
    assert journal.table == "friday" and journal.batches == batches

    menu = make_app(None, defaults=Launch(role="play", name="Ana", profile="ana",
                                          broker=MEMORY), profiles=stacks_home, memory=broker)
    async with menu.run_test(size=(100, 30)) as pilot:
        await pilot.press("e")
        await until(pilot, lambda: isinstance(menu.screen, ChoiceScreen), "the list")
        await pilot.press("1")
        await until(pilot, lambda: isinstance(menu.screen, TableScreen), "the resumed table")
        session = menu.control.session
        assert session is not None and session.player is not None
        await until(pilot, lambda: session.player is not None
                    and session.player.player.applied >= batches, "the game where it was")
        assert session.host is not None
        again = session.host.host
        assert (again.commit, again.identity.key) == (commit, key)
        assert session.player.seat == 0
        assert [b.n for b in again.batches[:batches]] == list(range(1, batches + 1))


async def test_hosting_over_an_unfinished_table_asks_first(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    launch = Launch(role="host", table="stacks", name="Ana", profile="ana", players=2,
                    bots=1, broker=MEMORY, bot_delay=0.0, block_window=0.2)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen)
                    and app.screen._ready, "the table")
    menu = make_app(None, defaults=Launch(role="play", name="Ana", profile="ana",
                                          broker=MEMORY), profiles=stacks_home, memory=broker)
    async with menu.run_test(size=(100, 30)) as pilot:
        await pilot.press("h")
        await until(pilot, lambda: isinstance(menu.screen, ChoiceScreen), "the question")
        screen = menu.screen
        assert isinstance(screen, ChoiceScreen)
        assert "has an unfinished game" in screen.question
        await pilot.press("2")  # abandon it, host anew
        control = menu.control
        await until(pilot, lambda: control.launch is not None and control.launch.new_table,
                    "the host's settings")
        assert control.launch is not None
        await control.open_table(control.launch)  # the lobby's Open, settings unchanged
        await until(pilot, lambda: control.session is not None
                    and control.session.host is not None, "the new table")
        statuses = sorted(j.status for j in list_tables(unfinished=False, table="stacks"))
        assert statuses == ["abandoned", "open"]


async def test_an_empty_lobby_left_is_no_unfinished_game(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    menu = make_app(None, defaults=Launch(role="play", name="Ana", profile="ana",
                                          broker=MEMORY), profiles=stacks_home, memory=broker)
    async with menu.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(menu.screen, MenuScreen), "the menu")
        await menu.control.start(Launch(role="host", table="stacks", name="Ana", profile="ana",
                                        players=3, bots=0, broker=MEMORY))
        await until(pilot, lambda: isinstance(menu.screen, LobbyScreen)
                    and menu.screen.me == 0, "our seat in the lobby")
        await pilot.press("escape")  # nobody came: leave before the deal
        await until(pilot, lambda: isinstance(menu.screen, MenuScreen), "the menu again")
        await until(pilot, lambda: menu.control.worker is None
                    and (menu.control._closing is None or menu.control._closing.is_finished),
                    "the table closed")
        await pilot.press("h")
        await until(pilot, lambda: isinstance(menu.screen, LobbyScreen), "the host form")
        assert not any(isinstance(s, ChoiceScreen) for s in menu.screen_stack)
        control = menu.control
        assert control.launch is not None and not control.launch.new_table
        await control.open_table(control.launch)  # the lobby's Open, over the old journal
        await until(pilot, lambda: control.session is not None
                    and control.session.host is not None, "the new table")
        assert len(list_tables(table="stacks")) == 1  # the empty one abandoned
