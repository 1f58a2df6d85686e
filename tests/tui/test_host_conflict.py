"""Two host keys for one table: the interface shows both with their fingerprints and
claims, and follows the one the user picks."""

from __future__ import annotations

from pathlib import Path

import pytest

from netplay.host import HostSession, HostSettings
from netplay.host_peer import Host
from netplay.hosts import fingerprint
from netplay.identity import Identity
from netplay.known import KnownHosts
from netplay.memory import AsyncMemoryBroker
from tests.tui.conftest import until
from tui.app import make_app
from tui.launch import MEMORY, Launch, default_profile
from tui.screens.choice import ChoiceScreen
from tui.screens.lobby import LobbyScreen

pytestmark = pytest.mark.asyncio


async def test_a_second_host_key_is_shown_and_followed_only_when_chosen(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    # A stale (or rogue) announcement of table "friday" is on the broker first.
    stale = HostSession(Identity.generate(), HostSettings("friday", 3, title="old friday"), 0.0)
    for out in stale.data_to_send():
        broker.publish(out.topic, out.payload, out.retain)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    real = Host(HostSettings("friday", 3, bots=("greedy",), title="real friday"), broker=broker)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        async with real:
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            screen = app.screen
            assert isinstance(screen, ChoiceScreen)
            labels = [answer.label for answer in screen.answers]
            assert fingerprint(stale.identity.key) in labels[0] and "old friday" in labels[0]
            assert fingerprint(real.identity.key) in labels[1] and "real friday" in labels[1]
            await pilot.press("2")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                        and app.screen.me == 0, "a seat at the real table")
            assert real.host.seats[0] is not None and real.host.seats[0].name == "Bo"


async def test_a_rogue_announcement_mid_lobby_is_put_right_and_the_player_warned(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    launch = Launch(role="join", table="sunday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    real = Host(HostSettings("sunday", 3, bots=("greedy",), title="real sunday"), broker=broker)
    async with real, app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.screen.me == 0, "a seat")
        rogue = HostSession(Identity.generate(), HostSettings("sunday", 3, title="fake"), 0.0)
        announce = next(o for o in rogue.data_to_send() if o.topic == rogue.topics.announce)
        broker.publish(announce.topic, announce.payload, True)

        def warned() -> bool:
            return any("impersonating this table" in str(n.message) for n in app._notifications)

        await until(pilot, warned, "the impostor warning")
        assert isinstance(app.screen, LobbyScreen) and app.screen.me == 0  # still here
        assert real.host.seats[0] is not None and real.host.seats[0].name == "Bo"


async def test_a_remembered_host_is_followed_without_a_question_and_the_rogue_named(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    stale = HostSession(Identity.generate(), HostSettings("friday", 3, title="rogue"), 0.0)
    for out in stale.data_to_send():
        broker.publish(out.topic, out.payload, out.retain)
    real = Host(HostSettings("friday", 3, bots=("greedy",), title="real friday"), broker=broker)
    # This profile joined the real host's game of "friday" before (another process).
    KnownHosts(stacks_home / default_profile()).remember("friday", real.identity.key)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")

        def warned() -> bool:
            return any(f"friday@{fingerprint(stale.identity.key)}" in str(n.message)
                       for n in app._notifications)

        await until(pilot, warned, "the warning naming the rogue and the way to follow it")
        async with real:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                        and app.screen.me == 0, "a seat at the real table")
            assert not isinstance(app.screen, ChoiceScreen)
            assert real.host.seats[0] is not None and real.host.seats[0].name == "Bo"
