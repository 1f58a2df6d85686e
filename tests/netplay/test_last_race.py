"""A game that ends on a Block window still tells that window's race.

The race of a window is published ``race_settle`` after the window closed (late presses
are listed in it). When the completion let through in that window won the game, that is
after the end; the host must not finish, write its record and go before it is told."""

from __future__ import annotations

import asyncio

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from netplay.playing.notices import Notice, RaceResult
from tests.netplay.harness import SHORT
from tests.support import wait_until_async


class Listener(BotPeer):
    """A bot that keeps the race results it hears."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.races: list[RaceResult] = []

    def _on_notice(self, notice: Notice) -> None:
        if isinstance(notice, RaceResult):
            self.races.append(notice)
        super()._on_notice(notice)


@pytest.mark.asyncio
async def test_the_race_of_the_window_that_ended_the_game_is_told() -> None:
    for attempt in range(40):  # not every game ends on a window
        table = f"last-race-{attempt}"
        broker = AsyncMemoryBroker()
        settings = HostSettings(table, 2, bots=("greedy",), rules=SHORT, block_window=0.2,
                                bot_delay=0.0)
        host = Host(settings, broker=broker)
        async with host, Listener(Identity.generate(), table, broker=broker,
                                  name="ana") as ana:
            await asyncio.wait_for(ana.ended.wait(), 60)
            race = host.host.race
            ended_on_a_window = race is not None and race.closed is not None
            await asyncio.wait_for(host.finished(verify_wait=10), 30)
            if not ended_on_a_window:
                continue
            # Told before the host finished: the publication is out of the host.
            assert host.host.race is None
            told = len(host.host.races)
            await wait_until_async(lambda: len(ana.races) >= told,  # noqa: B023  (awaited here)
                                   "ana told of the race", 10, interval=0.01)
            assert ana.races[-1].pile == host.host.races[-1].pile
            return
    pytest.fail("40 games, none ended on a Block window")
