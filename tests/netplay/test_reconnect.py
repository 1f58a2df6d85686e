"""After every reconnect a peer publishes its retained frames again (announcement,
presence): a broker restarted without persistence has forgotten them."""

from __future__ import annotations

import asyncio
import gc

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


@pytest.mark.asyncio
async def test_a_link_that_drops_while_subscribing_is_connected_again_at_once() -> None:
    """The broker drops the link before it answers a SUBSCRIBE (an embedded broker's
    session that failed, a node going down): the peer connects again as soon as the link
    is gone, not after its connect timeout (a minute here), and says nothing about an
    exception nobody retrieved."""
    unretrieved: list[object] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: unretrieved.append(context))
    async with EmbeddedBroker(LOOPBACK, 0) as broker:
        links = 0

        async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal links
            links += 1
            first = links == 1
            up_reader, up_writer = await asyncio.open_connection(LOOPBACK, broker.port)

            async def down() -> None:
                while data := await up_reader.read(65536):
                    writer.write(data)

            downstream = asyncio.create_task(down())
            chunks = 0
            try:
                while data := await reader.read(65536):
                    chunks += 1
                    if first and chunks == 2:  # the SUBSCRIBE, after the CONNECT
                        writer.transport.abort()
                        break
                    up_writer.write(data)
            finally:
                downstream.cancel()
                up_writer.close()
                writer.close()

        server = await asyncio.start_server(relay, LOOPBACK, 0)
        port = server.sockets[0].getsockname()[1]
        transport = MqttTransport(BrokerAddress(LOOPBACK, port), ["x/a"], client_name="t",
                                  connect_timeout=60.0)
        await transport.start()
        try:
            assert await transport.wait_connected(TIMEOUT)
            assert links == 2 and transport.connects == 1
        finally:
            await transport.stop()
            server.close()
    gc.collect()
    await asyncio.sleep(0)
    assert not unretrieved, unretrieved
