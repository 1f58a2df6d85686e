"""A player who comes back reads in its log, in one sentence, what happened while it was
away and what its stand-in played (the Missed notices of netplay, summed up by tui.away)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from engine.events import TurnEnded
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.memory import AsyncMemoryBroker
from tests.tui.conftest import TIMEOUT, until
from tests.tui.showcase import plain
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.table import TableScreen
from tui.widgets.log import TableLog

pytestmark = pytest.mark.asyncio


def _log(app: object) -> list[str]:
    screen = app.screen  # type: ignore[attr-defined]
    if not isinstance(screen, TableScreen):
        return []
    return [line.plain for log in screen.query(TableLog) for line in log._said]


async def test_a_player_back_at_the_table_reads_what_its_stand_in_did_meanwhile(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy",), away_after=0.3,
                            grace=0.3, bot_delay=0.3)
    launch = Launch(role="join", table="friday", name="Bo", profile="bo", broker=MEMORY)
    async with Host(settings, broker=broker) as host:
        session = host.host
        first = make_app(launch, profiles=stacks_home, memory=broker)
        async with first.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: isinstance(first.screen, TableScreen)
                        and session.game is not None, "the game", timeout=TIMEOUT * 2)
        # Bo's program is gone: on Bo's turn the stand-in plays for the seat.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT * 2
        while not any(b.standin and any(isinstance(e, TurnEnded) for e in b.events)
                      for b in session.batches):
            assert loop.time() < deadline, "no stand-in move"
            await asyncio.sleep(0.05)
        assert session.game is not None and not session.game.over
        back = make_app(launch, profiles=stacks_home, memory=broker)
        async with back.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: any("While you were away" in line
                                           for line in _log(back)),
                        "the words of what happened", timeout=TIMEOUT * 2)
            player = back.control.session.player  # type: ignore[union-attr]
            assert player is not None and player.seat == 0  # Bo's own seat again
            said = [plain(line) for line in _log(back) if "While you were away" in line]
            assert len(said) == 1, said  # one sentence, not the game retold
            assert re.fullmatch(r"While you were away: \d+ turns?; your stand-in played \d+.*\.",
                                said[0]), said[0]
            assert "batch" not in said[0] and "⟲" not in said[0]
