"""A peer on an MQTT broker takes the turn for what a read of its socket brought right
there, when its driver is parked waiting: the same turn, with the same
outcome, as the driver's own, down to a bug in it stopping the peer (not the link)."""

from __future__ import annotations

import asyncio

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.player_peer import BotPeer
from netplay.transport import MqttTransport
from netplay.wire import Outgoing
from tests.broker.conftest import LOOPBACK, TIMEOUT, eventually


@pytest.mark.asyncio
async def test_a_game_over_mqtt_is_played_out_and_verified_by_every_seat(mosquitto: int) -> None:
    url = f"mqtt://{LOOPBACK}:{mosquitto}"
    async with Host(HostSettings("atread", 2), broker=url) as host:
        seats = [BotPeer(Identity.generate(), "atread", broker=url, name=f"s{n}", think=0.0)
                 for n in range(2)]
        for seat in seats:
            await seat.__aenter__()
        try:
            async with asyncio.timeout(60):
                await host.finished()
                for seat in seats:
                    await seat.verified.wait()
            assert all(s.player.verdict is not None and s.player.verdict.ok for s in seats)
            assert host.failure is None and all(s.failure is None for s in seats)
        finally:
            for seat in seats:
                await seat.close()


@pytest.mark.asyncio
async def test_a_bug_in_a_turn_taken_at_a_read_stops_the_peer_not_the_link(
    mosquitto: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = f"mqtt://{LOOPBACK}:{mosquitto}"
    seat = BotPeer(Identity.generate(), "nohost", broker=url, name="s")
    await seat.__aenter__()
    try:
        transport = seat.transport
        assert isinstance(transport, MqttTransport)
        assert await transport.wait_connected(TIMEOUT)
        await eventually(lambda: seat._waiter is not None)  # parked, waiting

        def broken(topic: str, payload: bytes, now: float) -> None:
            raise RuntimeError("a bug")

        monkeypatch.setattr(seat.player, "receive", broken)
        transport.publish(Outgoing(seat.player.topics.announce, b"anything", retain=False))
        await eventually(lambda: seat.failure is not None)
        assert isinstance(seat.failure, RuntimeError) and str(seat.failure) == "a bug"
        assert transport.connected.is_set() and transport.connects == 1
    finally:
        await seat.close()
