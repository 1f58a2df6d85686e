"""The join form lists the tables it finds on the LAN (mDNS on loopback in tests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

from broker.discovery import Advertiser
from broker.embedded import EmbeddedBroker
from netplay.host import HostSettings
from netplay.host_peer import Host
from tests.tui.conftest import until
from tui.app import make_app
from tui.launch import Launch
from tui.screens.connect import ConnectScreen
from tui.screens.menu import MenuScreen

pytestmark = pytest.mark.asyncio


async def test_the_join_form_lists_lan_tables_and_a_pick_fills_the_form(
    stacks_home: Path,
) -> None:
    async with EmbeddedBroker("127.0.0.1", 0) as broker, Advertiser(
        broker.port, name="form test", addresses=("127.0.0.1",)
    ), Host(HostSettings("fridaynight", 3, bots=("greedy",), password="pw"),
            broker=broker.url):
        app = make_app(profiles=stacks_home, defaults=Launch(role="play", name="Bo"))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
            await pilot.press("j")
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the form")
            form = app.screen
            found = form.query_one("#connect-found", OptionList)
            # Other tests' brokers on this machine may be found too (the LAN is loopback
            # here): ours is the table named fridaynight.

            def ours() -> int | None:
                return next((i for i in range(found.option_count)
                             if str(found.get_option_at_index(i).prompt)
                             .startswith("fridaynight@")), None)

            await until(pilot, lambda: ours() is not None, "the LAN tables", timeout=20)
            index = ours()
            assert index is not None
            prompt = str(found.get_option_at_index(index).prompt)
            assert "(password)" in prompt  # + fingerprint
            found.highlighted = index
            # The line says Enter picks one, so the list has the focus, not the Table field.
            await until(pilot, lambda: found.has_focus, "the found tables to take the focus")
            go = form.query_one("#connect-go")
            assert go.region.bottom <= 24 and go.region.height > 0, go.region  # on screen
            await pilot.press("enter")
            await pilot.pause()
            assert form.query_one("#connect-table", Input).value == "fridaynight"
            assert form.query_one("#connect-broker", Input).value == broker.url
            assert form.query_one("#connect-password", Input).has_focus
