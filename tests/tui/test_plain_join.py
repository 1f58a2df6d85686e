"""Plain mode at someone else's table: its join says it plays plain, so the host's seat
and announcement show it, and its Block question says the window the table announces."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.memory import AsyncMemoryBroker
from tests.support import wait_until_async
from tui.launch import MEMORY, Launch
from tui.plain.run import play_plain

pytestmark = pytest.mark.asyncio


async def test_a_plain_joiner_is_a_plain_seat_at_the_host_and_hears_its_window(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, block_window=3.0)
    read, write = os.pipe()
    out = io.StringIO()
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    async with Host(settings, broker=broker) as host:
        with os.fdopen(read) as stdin, os.fdopen(write, "w") as typed:
            playing = asyncio.create_task(play_plain(launch, stdin=stdin, stdout=out,
                                                     profiles=stacks_home, memory=broker))
            await wait_until_async(lambda: host.host.seats[0] is not None, "Bo seated", 10,
                                   interval=0.01)
            seat = host.host.seats[0]
            assert seat is not None and seat.name == "Bo" and seat.plain
            host.set_block_window(9)
            await wait_until_async(
                lambda: "The host made the Block window 9 s." in out.getvalue(),
                "the words of the longer Block window", 10, interval=0.01,
                diagnostics=out.getvalue)
            assert "The host made the Block window 9 s." in out.getvalue()
            typed.write("quit\n")
            typed.flush()
            assert await asyncio.wait_for(playing, 30) == 0
