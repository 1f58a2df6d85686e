"""Several terminals of one account are several players: the interface that finds its
profile held by another running stacks plays as ``NAME-2`` and says so, naming --profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.memory import AsyncMemoryBroker
from tests.tui.conftest import until
from tests.tui.showcase import notes
from tui.app import make_app
from tui.launch import MEMORY, Launch, ProfileLock
from tui.screens.lobby import LobbyScreen

pytestmark = pytest.mark.asyncio


async def test_a_second_interface_on_a_profile_in_use_says_so_and_names_profile(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    first = ProfileLock(stacks_home)  # another running stacks holds "ana"
    assert first.acquire("ana", exact=True) == "ana" and first.held
    settings = HostSettings(table="friday", players=3, bots=("greedy",))
    launch = Launch(role="join", table="friday", name="Ana", profile="ana", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    try:
        async with app.run_test(size=(100, 30)) as pilot, Host(settings, broker=broker):
            said = "Profile 'ana' is in use by another running stacks: you are 'ana-2' here"
            await until(pilot, lambda: any(said in n for n in notes(app)),
                        "the word about the profile")
            assert any("--profile NAME" in n for n in notes(app))
            session = app.control.session
            assert session is not None and session.profile_name == "ana-2"
            screen = app.screen
            assert isinstance(screen, LobbyScreen)
            assert screen.profile == "ana-2 ('ana' is in use)"
    finally:
        first.release()


async def test_a_free_profile_is_taken_without_a_word(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=3, bots=("greedy",))
    launch = Launch(role="join", table="friday", name="Ana", profile="ana", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(100, 30)) as pilot, Host(settings, broker=broker):
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.screen.profile == "ana", "the lobby")
        assert not any("in use" in n for n in notes(app))
