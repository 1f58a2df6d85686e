"""`stacks bot` says what it does: its seat, the start, each of its own moves (it used to
print nothing until the game was over)."""

from __future__ import annotations

import asyncio

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from netplay.playing.notices import GameEnded
from stacks.commands.bot import BotTalk

pytestmark = pytest.mark.asyncio


async def test_a_headless_bot_says_its_seat_the_start_and_its_moves() -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy",), block_window=0.2)
    said: list[str] = []
    talk = BotTalk("Cy", "friday")
    async with Host(settings, broker=broker), BotPeer(
            Identity.generate(), "friday", broker=broker, name="Cy") as bot:
        async with asyncio.timeout(60):
            async for notice in bot.notices():
                said.extend(talk.lines(notice))
                if isinstance(notice, GameEnded):
                    break
    assert said[0] == "Cy: seated at table 'friday' (seat 1); waiting for the deal", said
    assert said[1].startswith("Cy: the game starts: "), said
    moves = said[2:]
    # Its own moves, in words ("Cy: Cy played R1 on Red pile a"); a pass in a Block
    # window is told by what it caused ("Cy: The Block window closed with no Block: ..."),
    # so a move's first line need not name it.
    assert sum(line.startswith("Cy: Cy ") for line in moves) > 3, moves
    assert all(line.startswith("Cy: ") for line in moves), moves[:5]
    assert not any("[" in line or line != line.strip() for line in moves), moves[:5]
