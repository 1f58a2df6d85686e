"""A closing peer's last words reach a broker that is slow to acknowledge them.

A three-node NATS cluster's MQTT stalls about 4 s now and then while it stores a message;
a bot that verified the deal and closed after 2 s lost its verdict with the connection.
While the broker is there (connected), a closing peer now waits longer; with no broker it
does not keep its user waiting.
"""

from __future__ import annotations

import asyncio

import pytest

from netplay import peer
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import Player


class _SlowAcks:
    """Wraps a transport: ``flushed()`` returns only once ``acked`` is set."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.acked = asyncio.Event()
        self.waits = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def flushed(self) -> None:
        self.waits += 1
        await self.acked.wait()


@pytest.fixture(autouse=True)
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peer, "FLUSH_WAIT", 0.2)
    monkeypatch.setattr(peer, "SLOW_BROKER_WAIT", 30.0)


async def _closing(connected: bool) -> tuple[asyncio.Task[None], _SlowAcks]:
    broker = AsyncMemoryBroker()
    player = Player(Identity.generate(), "slow", "Ana", broker=broker)
    await player.__aenter__()
    slow = _SlowAcks(player.transport)
    player.transport = slow  # type: ignore[assignment]
    if not connected:
        slow.inner.connected.clear()  # type: ignore[attr-defined]
    return asyncio.create_task(player.close()), slow


@pytest.mark.asyncio
async def test_a_connected_peer_waits_past_the_first_wait_for_its_last_frames() -> None:
    closing, slow = await _closing(connected=True)
    while slow.waits < 2:  # the first wait ran out and it is waiting again
        assert not closing.done(), "it closed without its last frames acknowledged"
        await asyncio.sleep(0.01)
    slow.acked.set()
    await asyncio.wait_for(closing, 5.0)


@pytest.mark.asyncio
async def test_a_peer_with_no_broker_closes_after_the_first_wait() -> None:
    closing, slow = await _closing(connected=False)
    await asyncio.wait_for(closing, 5.0)  # SLOW_BROKER_WAIT is 30 s: it did not wait it
    assert slow.waits == 1
