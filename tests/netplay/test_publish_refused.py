"""A frame the broker would refuse is dropped and said once, never sent again in a loop.

MQTT 3.1.1 gives a broker no answer to a PUBLISH it refuses but closing the connection,
and the transport sent what was not acknowledged again after every reconnect: one frame
on a topic holding a newline (a host's answer to a hostile listing query) dropped a
host's link to Mosquitto hundreds of times a minute. Checked here on a real Mosquitto:
which topics it refuses (so the transport's rules are its rules), that the transport
drops frames on those before they go out, and, behind a relay that drops the link on
one topic whatever its form, that a frame which took the link down several times in a
row is dropped and the link then stays up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import aiomqtt
import paho.mqtt.client as mqtt
import pytest

from netplay import mqtt_packets
from netplay.names import publish_topic_problem
from netplay.transport import POISON_DROPS, BrokerAddress, MqttTransport
from netplay.wire import Outgoing
from tests.broker.conftest import LOOPBACK, TIMEOUT, RawClient, eventually, publish_packet

REFUSED = [
    "sstacks/v1/LOBBY/reply/abcdefgh\n", "a\rb", "a\x00b", "a\tb", "a\x1fb", "a\x7fb",
    "a\x85b", "a\x9fb", "a\ufdd0b", "a\ufffeb", "a\uffffb", "a\U0001ffffb",
]
"""Topics Mosquitto refuses (it drops the link of a client that publishes on one)."""
UNSENDABLE = ["ok/+", "ok/#", "", "a\ud800b", "x" * 65536]
"""Topics no PUBLISH can carry (MQTT's rules; a lone surrogate is no UTF-8; no length)."""
TAKEN = ["a b", "a\xa0b", "a\ufdcfb", "a\ufffdb", "a\u2028b", "x" * 65535]
"""Topics it takes, though they are not ASCII or printable."""


async def _raw_publish_keeps_the_link(port: int, topic: str) -> bool:
    client = await RawClient.open(port)
    try:
        assert await client.connect(f"raw-{abs(hash(topic)) % 10**8}") == 0
        await client.send(publish_packet(topic, b"x") + b"\xc0\x00")  # and a PINGREQ
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            first, _body = await client.read_packet()
            return first == 0xD0  # PINGRESP: the broker read the PUBLISH and went on
        return False
    finally:
        await client.close()


@pytest.mark.asyncio
async def test_the_topics_mosquitto_refuses_are_the_ones_the_transport_refuses(
    mosquitto: int,
) -> None:
    for topic in REFUSED:
        assert publish_topic_problem(topic) is not None, topic
        assert not await _raw_publish_keeps_the_link(mosquitto, topic), topic
    for topic in TAKEN:
        assert publish_topic_problem(topic) is None, topic
        assert await _raw_publish_keeps_the_link(mosquitto, topic), topic


async def _collect(port: int, pattern: str, into: list[tuple[str, bytes]],
                   ready: asyncio.Event) -> None:
    async with aiomqtt.Client(LOOPBACK, port, timeout=TIMEOUT) as client:
        await client.subscribe(pattern, qos=1)
        ready.set()
        async for message in client.messages:
            assert isinstance(message.payload, bytes)
            into.append((message.topic.value, message.payload))


@pytest.mark.asyncio
async def test_a_frame_on_a_topic_the_broker_refuses_is_dropped_and_said_once(
    mosquitto: int, caplog: pytest.LogCaptureFixture,
) -> None:
    got: list[tuple[str, bytes]] = []
    ready = asyncio.Event()
    listener = asyncio.create_task(_collect(mosquitto, "ok/#", got, ready))
    transport = MqttTransport(BrokerAddress(LOOPBACK, mosquitto), [], client_name="t")
    await transport.start()
    try:
        await asyncio.wait_for(ready.wait(), TIMEOUT)
        assert await transport.wait_connected(TIMEOUT)
        bad = REFUSED + UNSENDABLE
        with caplog.at_level(logging.WARNING, logger="netplay.transport"):
            for round_ in range(3):
                for topic in bad:
                    transport.publish(Outgoing(topic, b"bad", retain=round_ == 0))
                transport.publish(Outgoing(f"ok/{round_}", b"good"))
            await asyncio.wait_for(transport.flushed(), TIMEOUT)
            await eventually(lambda: len(got) == 3)
        assert got == [(f"ok/{n}", b"good") for n in range(3)]
        assert transport.connects == 1 and transport.failures == 0
        assert transport.refused_frames == 3 * len(bad)
        said = [r.getMessage() for r in caplog.records if "can't publish" in r.getMessage()]
        assert len(said) == len(bad), said  # once per topic
        assert any(repr("sstacks/v1/LOBBY/reply/abcdefgh\n") in line for line in said)
        assert not any("\n" in line for line in said)
        # Nothing refused is kept to be published again at the next connect.
        assert set(transport._retained) == set()
    finally:
        await transport.stop()
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener


@pytest.mark.asyncio
async def test_a_frame_the_client_library_refuses_is_dropped_not_raised(
    mosquitto: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """paho raises ``ValueError`` for what it can never send (a payload over MQTT's
    256 MiB, here a stand-in): the frame is dropped, the peer goes on. (The transport's
    own PUBLISH writer leaves such a frame to paho: its limit is lowered to the stand-in's
    size here.)"""
    publish = mqtt.Client.publish
    monkeypatch.setattr(mqtt_packets, "_MAX_REMAINING", 100)

    def refusing(self: mqtt.Client, topic: str, payload: bytes | None = None,
                 *args: object, **kwargs: object) -> mqtt.MQTTMessageInfo:
        if topic == "ok/huge":
            raise ValueError("Payload too large.")
        return publish(self, topic, payload, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(mqtt.Client, "publish", refusing)
    got: list[tuple[str, bytes]] = []
    ready = asyncio.Event()
    listener = asyncio.create_task(_collect(mosquitto, "ok/#", got, ready))
    transport = MqttTransport(BrokerAddress(LOOPBACK, mosquitto), [], client_name="t")
    await transport.start()
    try:
        await asyncio.wait_for(ready.wait(), TIMEOUT)
        assert await transport.wait_connected(TIMEOUT)
        transport.publish(Outgoing("ok/huge", b"x" * 200))
        transport.publish(Outgoing("ok/after", b"y"))
        await asyncio.wait_for(transport.flushed(), TIMEOUT)
        await eventually(lambda: got == [("ok/after", b"y")])
        assert transport.refused_frames == 1 and transport.connects == 1
    finally:
        await transport.stop()
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener


def _packets(buffer: bytearray) -> list[bytes]:
    """Whole MQTT packets taken from the front of ``buffer``."""
    packets = []
    while len(buffer) >= 2:
        length, shift, at = 0, 0, 1
        while True:
            if at >= len(buffer):
                return packets
            byte = buffer[at]
            length += (byte & 0x7F) << shift
            shift += 7
            at += 1
            if not byte & 0x80:
                break
        if len(buffer) < at + length:
            return packets
        packets.append(bytes(buffer[: at + length]))
        del buffer[: at + length]
    return packets


def _publish_topic(packet: bytes) -> str | None:
    if packet[0] >> 4 != 3:
        return None
    at = 1
    while packet[at] & 0x80:
        at += 1
    at += 1
    size = int.from_bytes(packet[at : at + 2], "big")
    return packet[at + 2 : at + 2 + size].decode()


@pytest.mark.asyncio
async def test_a_frame_that_takes_the_link_down_again_and_again_is_dropped(
    mosquitto: int, caplog: pytest.LogCaptureFixture,
) -> None:
    """Whatever the reason a broker refuses a frame (a limit of its own, a rule we don't
    know), a frame in flight each time the link dropped just after it went out is dropped
    after POISON_DROPS links, and said once; the frames around it arrive."""
    links = 0
    drops = 0

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal links, drops
        links += 1
        up_reader, up_writer = await asyncio.open_connection(LOOPBACK, mosquitto)

        async def down() -> None:
            while data := await up_reader.read(65536):
                writer.write(data)

        downstream = asyncio.create_task(down())
        buffer = bytearray()
        try:
            while data := await reader.read(65536):
                buffer += data
                for packet in _packets(buffer):
                    if _publish_topic(packet) == "ok/poison":
                        drops += 1
                        writer.transport.abort()  # as a broker does: no answer, no link
                        return
                    up_writer.write(packet)
        finally:
            downstream.cancel()
            up_writer.close()
            writer.close()

    server = await asyncio.start_server(relay, LOOPBACK, 0)
    port = server.sockets[0].getsockname()[1]
    got: list[tuple[str, bytes]] = []
    ready = asyncio.Event()
    listener = asyncio.create_task(_collect(mosquitto, "ok/#", got, ready))
    transport = MqttTransport(BrokerAddress(LOOPBACK, port), [], client_name="t")
    await transport.start()
    try:
        await asyncio.wait_for(ready.wait(), TIMEOUT)
        assert await transport.wait_connected(TIMEOUT)
        with caplog.at_level(logging.WARNING, logger="netplay.transport"):
            transport.publish(Outgoing("ok/before", b"1"))
            transport.publish(Outgoing("ok/poison", b"2"))
            transport.publish(Outgoing("ok/after", b"3"))
            await eventually(lambda: transport.refused_frames == 1)
            await eventually(lambda: transport.connected.is_set())
            await asyncio.wait_for(transport.flushed(), TIMEOUT)
            await eventually(lambda: {t for t, _ in got} == {"ok/before", "ok/after"})
            transport.publish(Outgoing("ok/later", b"4"))
            await eventually(lambda: ("ok/later", b"4") in got)
        assert drops == POISON_DROPS and links == POISON_DROPS + 1
        assert transport.connects == POISON_DROPS + 1 and transport.connected.is_set()
        said = [r.getMessage() for r in caplog.records if "can't publish" in r.getMessage()]
        assert len(said) == 1 and "'ok/poison'" in said[0], said
    finally:
        await transport.stop()
        server.close()
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener
