"""A spectator whose host closes the table (and whose broker goes with it, as the
embedded broker of an interface host does) is told so, and Esc takes it back."""

from __future__ import annotations

from pathlib import Path

import pytest

from broker.embedded import EmbeddedBroker
from netplay.host import HostSettings
from netplay.host_peer import Host
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tui.app import make_app
from tui.launch import Launch
from tui.screens.table import TableScreen
from tui.widgets.banner import Banner
from tui.widgets.opponents import Opponents

pytestmark = pytest.mark.asyncio


async def test_a_spectator_of_a_host_that_closes_is_told_and_esc_leaves(
    stacks_home: Path,
) -> None:
    broker = EmbeddedBroker("127.0.0.1", 0)
    await broker.start()
    settings = HostSettings(table="friday", players=2, bots=("greedy", "greedy"),
                            bot_delay=0.5, block_window=0.3)
    launch = Launch(role="watch", table="friday", name="Zoe", broker=broker.url)
    app = make_app(launch, profiles=stacks_home)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            async with Host(settings, broker=broker.url):
                await until(pilot, lambda: isinstance(app.screen, TableScreen)
                            and app.screen.view is not None, "the game")
            table = app.screen
            assert isinstance(table, TableScreen)
            await broker.stop()  # the host's own broker goes with it
            banner = table.query_one(Banner)
            await until(pilot, lambda: banner.problem is not None, "the problem")
            await pilot.pause(1.5)  # the watchdog looks again: the broker is gone now
            text = plain(banner.render())
            assert "The host closed the table." in text, text
            assert "Lost the broker" not in text, text
            assert "not responding" not in table.waiting, table.waiting
            seats = plain(table.query_one(Opponents).render())
            assert "online" not in seats and "bot " not in seats, seats
            await pilot.press("escape")
            await until(pilot, lambda: app.return_code == 0, "the program's end")
    finally:
        await broker.stop()


async def test_a_spectator_given_no_name_goes_by_its_profile(stacks_home: Path) -> None:
    from netplay.memory import AsyncMemoryBroker
    from tui.launch import MEMORY
    from tui.screens.lobby import LobbyScreen

    broker = AsyncMemoryBroker()
    launch = Launch(role="watch", table="friday", profile="zoe-2", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot, Host(
            HostSettings(table="friday", players=2), broker=broker):
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.control.session is not None
                    and app.control.session.player is not None, "the rail")
        session = app.control.session
        assert session is not None and session.player is not None
        assert session.player.player.name == session.profile_name == "zoe-2"
