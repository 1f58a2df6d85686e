"""A peer makes every record type's wire codec as it starts, so that no action of the game
pays for one (about a millisecond each, in every process)."""

from __future__ import annotations

import pytest

from engine.actions import Action
from engine.classic.actions import SequenceAction
from engine.classic.events import SequenceEvent
from engine.events import Event
from netplay.host import HostSettings
from netplay.memory import AsyncMemoryBroker
from netplay.peers import Host


@pytest.mark.asyncio
async def test_a_peer_that_starts_has_every_codec_ready() -> None:
    types = [t for family in (Action, Event, SequenceAction, SequenceEvent)
             for t in family._family.values()]
    for record_type in types:
        record_type._codec = None
    async with Host(HostSettings("ready", 2, bots=("greedy",)), broker=AsyncMemoryBroker()):
        assert [t.TYPE for t in types if t._codec is None] == []
