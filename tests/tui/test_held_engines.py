"""The host form under `stacks serve` offers the operator's engines as an opponent: the
creator picks one, the server seats it as a peer of its own, and the game starts."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from netplay.memory import AsyncMemoryBroker
from sshserver.tables import KeeperSettings, TableKeeper
from tests.tui.conftest import until
from tests.tui.test_held_table import ANA, SSH
from tui.app import make_app
from tui.launch import Launch
from tui.screens.lobby import LobbyScreen
from tui.screens.menu import MenuScreen
from tui.screens.table import TableScreen
from tui.serve_link import ServeLink, serve_link

MINIMAL = Path(__file__).parents[2] / "examples" / "engines" / "minimal.py"


@pytest.mark.asyncio
async def test_the_creator_picks_the_server_s_engine_in_the_host_form_and_plays_it(
    tmp_path: Path, stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()

    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where, settings=KeeperSettings(
        engines=(("mini", (sys.executable, str(MINIMAL))),)),
        record_path=lambda table, game: tmp_path / f"{table}.json")
    ours, theirs = socket.socketpair()
    server = asyncio.create_task(serve_link(ours, lambda req: keeper.handle(ANA, req)))
    link = ServeLink(theirs.fileno(), SSH, engines=("mini",))
    app = make_app(defaults=Launch(role="play", name="Ana", ssh=SSH, bot_delay=0.0,
                                   block_window=0.3, engine_choices=link.engines),
                   profiles=stacks_home, memory=broker, link=link)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
            await pilot.press("h")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the host form")
            form = app.screen
            assert isinstance(form, LobbyScreen)
            form.query_one("#set-table", Input).value = "versus"
            form.query_one("#set-players", Select).value = 2
            form.query_one("#set-engine", Select).value = "mini"
            await pilot.press("ctrl+o")
            await until(pilot, lambda: isinstance(app.screen, TableScreen),
                        "the game against the engine")
            table = keeper.tables["versus"]
            assert table.engines == ["mini"]
            names = [info.name for info in table.host.host.seats if info is not None]
            assert "mini" in names and len(names) == 2
    finally:
        link.close()
        theirs.close()
        await asyncio.wait_for(server, 10)
        await keeper.stop()
