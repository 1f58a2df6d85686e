"""After every reconnect a peer publishes its retained frames again (announcement,
presence): a broker restarted without persistence has forgotten them."""

from __future__ import annotations

import asyncio

import aiomqtt
import pytest

from broker.embedded import EmbeddedBroker
from netplay.transport import BrokerAddress, MqttTransport
from netplay.wire import Outgoing
from tests.broker.conftest import LOOPBACK, TIMEOUT, eventually


async def _retained(port: int, topic: str, wait: float = TIMEOUT) -> bytes | None:
    """What a newcomer finds retained on ``topic`` (None: nothing within ``wait``)."""
    async with aiomqtt.Client(LOOPBACK, port, timeout=TIMEOUT) as client:
        await client.subscribe(topic, qos=1)
        try:
            async with asyncio.timeout(wait):
                async for message in client.messages:
                    # amqtt also hands a new subscriber other topics' retained frames.
                    if message.topic.value == topic:
                        assert isinstance(message.payload, bytes)
                        return message.payload
        except TimeoutError:
            return None
    return None


@pytest.mark.asyncio
async def test_a_restarted_broker_gets_the_last_retained_frame_of_each_topic_again() -> None:
    first = EmbeddedBroker(LOOPBACK, 0)
    await first.start()
    port = first.port
    transport = MqttTransport(BrokerAddress(LOOPBACK, port), ["x/in"], client_name="t")
    await transport.start()
    try:
        assert await transport.wait_connected(TIMEOUT)
        transport.publish(Outgoing("x/announce", b"old", retain=True))
        transport.publish(Outgoing("x/announce", b"new", retain=True))
        transport.publish(Outgoing("x/presence", b"online", retain=True))
        transport.publish(Outgoing("x/events", b"not retained"))
        await asyncio.wait_for(transport.flushed(), TIMEOUT)
        assert await _retained(port, "x/announce") == b"new"
        await first.stop()  # no persistence: the retained frames are gone with it
        await eventually(lambda: not transport.connected.is_set())
        async with EmbeddedBroker(LOOPBACK, port):
            await eventually(lambda: transport.connects == 2)
            await asyncio.wait_for(transport.flushed(), TIMEOUT)
            assert await _retained(port, "x/announce") == b"new"
            assert await _retained(port, "x/presence") == b"online"
            # Not retained, so not published again (a moment is enough to see nothing come).
            assert await _retained(port, "x/events", wait=1.0) is None
    finally:
        await transport.stop()
