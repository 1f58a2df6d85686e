"""A peer makes every record type's wire codec as it starts, so that no action of the game
pays for one (about a millisecond each, in every process)."""

from __future__ import annotations

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.memory import AsyncMemoryBroker
from tests.engine.gameplay import forget_codecs


@pytest.mark.asyncio
async def test_a_peer_that_starts_has_every_codec_ready() -> None:
    types = forget_codecs()
    async with Host(HostSettings("ready", 2, bots=("greedy",)), broker=AsyncMemoryBroker()):
        assert [t.TYPE for t in types if t._codec is None] == []
