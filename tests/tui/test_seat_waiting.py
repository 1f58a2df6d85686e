"""Back to your seat by itself: a player whose profile holds a seat at a running table is
offered it first thing in the menu ("your seat at duo is waiting — Enter to sit down"),
and the Join list says "your seat" for that table, not "0 of 2 seats free". On a real
broker (Mosquitto on a free loopback port): the lookup lists the broker's tables."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import OptionList

from netplay.host import HostSettings
from netplay.host_peer import Host
from tests.e2e.conftest import mosquitto  # noqa: F401 - the fixture
from tests.tui.conftest import TIMEOUT, until
from tests.tui.showcase import plain
from tui.app import StacksApp, make_app
from tui.launch import Launch, ProfileLock
from tui.screens.connect import ConnectScreen
from tui.screens.menu import MenuScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


def _options(app: StacksApp, selector: str) -> list[str]:
    found = app.screen.query_one(selector, OptionList)
    return [plain(found.get_option_at_index(i).prompt) for i in range(found.option_count)]


async def test_a_player_back_in_the_menu_is_offered_its_seat_and_sits_down_with_enter(
    mosquitto: str, stacks_home: Path,  # noqa: F811
) -> None:
    settings = HostSettings(table="duo", players=2, bots=("greedy",), away_after=0.3,
                            grace=0.3, bot_delay=0.3)
    bo = Launch(role="join", table="duo", name="Bo", profile="bo", broker=mosquitto)
    async with Host(settings, broker=mosquitto) as host:
        first = make_app(bo, profiles=stacks_home)
        async with first.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: isinstance(first.screen, TableScreen)
                        and host.host.game is not None, "the game", timeout=TIMEOUT * 2)
        # Bo's connection is gone (an ssh session that dropped): its session lets the
        # profile go as it closes (a dead process's lock goes with it at once).
        await _profile_free(stacks_home, "bo")
        # Bo starts stacks again.
        back = make_app(defaults=Launch(role="play", name="Bo", profile="bo",
                                        broker=mosquitto), profiles=stacks_home)
        async with back.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: isinstance(back.screen, MenuScreen), "the menu")
            menu = back.screen
            await until(pilot, lambda: "seat at duo" in _options(back, "#menu-options")[0],
                        "the seat offered", timeout=TIMEOUT)
            first_line = _options(back, "#menu-options")[0]
            assert "Your seat at duo is waiting — Enter to sit down" in first_line
            assert "playing, with Bo" in first_line, first_line

            # The Join list says it too.
            await pilot.press("j")
            await until(pilot, lambda: isinstance(back.screen, ConnectScreen)
                        and back.screen.query_one("#connect-found", OptionList).option_count
                        > 0, "the tables found")
            line = next(t for t in _options(back, "#connect-found") if t.startswith("duo"))
            assert "playing, your seat is waiting — " in line, line
            assert "seats free" not in line, line
            await pilot.press("escape")
            await until(pilot, lambda: back.screen is menu, "the menu again")

            await pilot.press("enter")
            await until(pilot, lambda: isinstance(back.screen, TableScreen), "Bo's table",
                        timeout=TIMEOUT * 2)
            session = back.control.session
            await until(pilot, lambda: session is not None and session.player is not None
                        and session.player.seat == 0, "Bo in its own seat")


async def _profile_free(base: Path, profile: str, timeout: float = TIMEOUT) -> None:
    """Wait until no session of this process holds ``profile`` any more."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        lock = ProfileLock(base)
        got = lock.acquire(profile, exact=True) == profile and lock.held
        lock.release()
        if got:
            return
        if loop.time() > deadline:
            raise AssertionError(f"profile {profile!r} still held after {timeout:g} s")
        await asyncio.sleep(0.05)
