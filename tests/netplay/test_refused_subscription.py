"""A subscription the broker refuses (SUBACK 0x80) is asked for again, never ignored.

NATS's MQTT server in a three-node cluster refuses a subscription now and then while its
JetStream cluster is busy creating the consumer behind it; a peer that took the SUBACK as
a success heard nothing on that topic (a host deaf to its players, a bot that never saw
the host's answer). The broker here is the embedded one; the refusals are the client's
SUBACKs rewritten, so the test controls how many come.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import aiomqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode

from broker.embedded import EmbeddedBroker
from netplay.transport import SUBSCRIBE_REFUSALS, BrokerAddress, MqttTransport
from netplay.wire import Outgoing
from tests.broker.conftest import LOOPBACK, TIMEOUT, eventually

REFUSED = "x/refused"


@pytest.fixture
def refusals(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """``refusals[topic] = n``: the next ``n`` subscriptions to ``topic`` are refused."""
    left: dict[str, int] = {}
    subscribe = aiomqtt.Client.subscribe

    async def refusing(self: aiomqtt.Client, topic: str, qos: int = 0, *args: object,
                       **kwargs: object) -> object:
        granted = await subscribe(self, topic, qos, *args, **kwargs)  # type: ignore[arg-type]
        if left.get(topic, 0) > 0:
            left[topic] -= 1
            return [ReasonCode(PacketTypes.SUBACK, identifier=0x80)]
        return granted

    monkeypatch.setattr(aiomqtt.Client, "subscribe", refusing)
    yield left


@pytest.mark.asyncio
async def test_a_refused_subscription_is_asked_for_again_until_granted(
        refusals: dict[str, int]) -> None:
    refusals[REFUSED] = 2
    async with EmbeddedBroker(LOOPBACK, 0) as broker:
        port = broker.port
        transport = MqttTransport(BrokerAddress(LOOPBACK, port), ["x/fine", REFUSED],
                                  client_name="t")
        await transport.start()
        try:
            assert await transport.wait_connected(TIMEOUT)
            assert refusals[REFUSED] == 0  # both refusals were met, and it asked again
            assert transport.connects == 1 and transport.refusal is None
            sender = MqttTransport(BrokerAddress(LOOPBACK, port), [], client_name="s")
            await sender.start()
            try:
                assert await sender.wait_connected(TIMEOUT)
                sender.publish(Outgoing(REFUSED, b"heard"))
                topic, payload = await asyncio.wait_for(transport.receive(), TIMEOUT)
            finally:
                await sender.stop()
            assert (topic, payload) == (REFUSED, b"heard")
        finally:
            await transport.stop()


@pytest.mark.asyncio
async def test_a_subscription_refused_on_every_connection_is_reported_in_words(
        refusals: dict[str, int]) -> None:
    refusals[REFUSED] = 10_000
    async with EmbeddedBroker(LOOPBACK, 0) as broker:
        transport = MqttTransport(BrokerAddress(LOOPBACK, broker.port), [REFUSED],
                                  client_name="t")
        await transport.start()
        try:
            await asyncio.wait_for(transport.refused.wait(), 3 * TIMEOUT)
            # Never counted as connected: it would hear nothing on that topic.
            assert not transport.connected.is_set() and transport.connects == 0
            assert transport.failures >= SUBSCRIBE_REFUSALS
            assert transport.refusal is not None
            assert "refused the subscription to 'x/refused'" in transport.refusal
            assert "access rules" in transport.refusal
            assert "can't reach" not in transport.refusal
            # It keeps trying: once the broker grants the topic, the peer is connected.
            refusals[REFUSED] = 0
            await eventually(lambda: transport.connected.is_set(), 3 * TIMEOUT)
            assert transport.refusal is None
        finally:
            await transport.stop()
