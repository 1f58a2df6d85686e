"""The transport reads the broker's socket ahead and takes QoS 0 frames and PUBACKs
without paho's message objects: whatever the sizes and however the bytes are
cut, every frame arrives whole, once, in order, and every frame published at QoS 1 is
acknowledged."""

from __future__ import annotations

import asyncio
import random

import paho.mqtt.client as mqtt
import pytest

from broker.embedded import EmbeddedBroker
from netplay.mqtt_packets import (
    READ_AHEAD,
    ReadAhead,
    Sent,
    fast_puback,
    fast_publish,
    fast_reader,
    read_socket,
)
from netplay.transport import BrokerAddress, MqttTransport
from netplay.wire import Outgoing
from tests.broker.conftest import LOOPBACK, TIMEOUT, eventually


@pytest.mark.asyncio
async def test_a_burst_of_frames_of_every_size_arrives_whole_once_and_in_order() -> None:
    broker = EmbeddedBroker(LOOPBACK, 0)
    await broker.start()
    address = BrokerAddress(LOOPBACK, broker.port)
    sender = MqttTransport(address, [], client_name="sender")
    receiver = MqttTransport(address, ["r/#"], client_name="receiver")
    rng = random.Random(7)
    # Small frames many to a read, and frames near the 64 KiB cap that span reads.
    sizes = [rng.choice([1, 30, 300, 3000, 40_000, 64_000]) for _ in range(300)]
    sent = [(f"r/{n % 3}/ü", rng.randbytes(size)) for n, size in enumerate(sizes)]
    received: list[tuple[str, bytes]] = []
    try:
        await sender.start()
        await receiver.start()
        assert await sender.wait_connected(TIMEOUT) and await receiver.wait_connected(TIMEOUT)
        assert isinstance(receiver._live._client._sock, ReadAhead)  # type: ignore[union-attr]
        for n, (topic, payload) in enumerate(sent):
            sender.publish(Outgoing(topic, payload, qos=n % 2))
            if n % 50 == 0:
                await asyncio.sleep(0)

        def all_in() -> bool:
            received.extend(receiver.ready(len(sent)))
            return len(received) >= len(sent)

        await eventually(all_in)
        await asyncio.wait_for(sender.flushed(), TIMEOUT)  # every QoS 1 frame acknowledged
        await asyncio.sleep(0.1)
        received.extend(receiver.ready(len(sent)))
    finally:
        await receiver.stop()
        await sender.stop()
        await broker.stop()
    assert received == sent
    assert sum(sizes) > 10 * READ_AHEAD


class _Pieces:
    """A socket that gives its bytes in the pieces it was given."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    def recv(self, size: int) -> bytes:
        if not self.pieces:
            raise BlockingIOError
        piece = self.pieces.pop(0)
        assert len(piece) <= size
        return piece

    def send(self, data: bytes) -> int:
        return len(data)

    def fileno(self) -> int:
        return -1

    def close(self) -> None:
        pass


def test_small_reads_are_served_from_one_read_and_nothing_is_lost_between_reads() -> None:
    sock = ReadAhead(_Pieces([b"abcdef", b"gh"]))  # type: ignore[arg-type]
    assert sock.recv(1) == b"a" and sock.pending() == 5
    assert sock.recv(3) == b"bcd"
    assert sock.recv(10) == b"ef" and sock.pending() == 0  # never past what was read
    assert sock.recv(10) == b"gh"
    with pytest.raises(BlockingIOError):  # nothing more: paho waits for the next read
        sock.recv(1)


def _packet(first: int, body: bytes) -> bytes:
    length, header = len(body), bytearray((first,))
    while True:
        byte, length = length & 0x7F, length >> 7
        header.append(byte | 0x80 if length else byte)
        if not length:
            return bytes(header) + body


def _publish(topic: str, payload: bytes, *, qos: int = 0, mid: int = 0) -> bytes:
    name = topic.encode()
    ident = mid.to_bytes(2, "big") if qos else b""
    return _packet(0x30 | qos << 1, len(name).to_bytes(2, "big") + name + ident + payload)


@pytest.mark.parametrize("seed", range(12))
def test_the_transports_own_reader_takes_every_packet_paho_would_however_the_bytes_are_cut(
    seed: int,
) -> None:
    """The usual packets (QoS 0 PUBLISH, the PUBACK of a frame the transport sent itself)
    are read whole by the transport, the others (a QoS 1 PUBLISH, a PUBACK of paho's own
    frame, a PINGRESP, a topic that is not UTF-8) by paho, from the same bytes cut
    anywhere: each frame is delivered once, in order, each frame of ours acknowledged."""
    rng = random.Random(seed)
    paho = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    delivered: list[tuple[str, bytes]] = []
    expected: list[tuple[str, bytes]] = []
    fast: dict[int, Sent] = {}
    ours: list[Sent] = []
    stream = bytearray()
    for n in range(200):
        kind = rng.choice(["frame"] * 6 + ["ours", "theirs", "qos1", "ping", "bad topic"])
        if kind == "frame":
            item = (f"t/{n}/{rng.choice(['a', 'ü'])}", rng.randbytes(rng.choice([0, 5, 200, 3000])))
            expected.append(item)
            stream += _publish(*item)
        elif kind == "ours":
            sent = fast[1000 + n] = Sent(1000 + n)
            ours.append(sent)
            stream += _packet(0x40, (1000 + n).to_bytes(2, "big"))
        elif kind == "theirs":
            stream += _packet(0x40, (30000 + n).to_bytes(2, "big"))  # paho knows nothing of it
        elif kind == "qos1":
            item = (f"q/{n}", rng.randbytes(50))
            expected.append(item)
            stream += _publish(*item, qos=1, mid=n + 1)
        elif kind == "ping":
            stream += b"\xd0\x00"
        else:
            stream += _packet(0x30, b"\x00\x02\xff\xfe" + b"payload")  # dropped, said once
    cuts = sorted(rng.sample(range(1, len(stream)), 80))
    pieces = [bytes(stream[a:b]) for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    sock = ReadAhead(_Pieces(pieces))  # type: ignore[arg-type]
    paho._sock = sock  # type: ignore[assignment]
    paho.on_message = lambda _c, _u, message: delivered.append((message.topic, message.payload))
    deliver = lambda topic, payload: delivered.append((topic, payload))  # noqa: E731
    paho._handle_publish = fast_publish(paho, deliver)  # type: ignore[method-assign,assignment]
    paho._handle_pubackcomp = fast_puback(paho, fast)  # type: ignore[method-assign,assignment]
    take = fast_reader(paho, sock, deliver, fast)
    while sock.sock.pieces or sock.pending():  # type: ignore[attr-defined]
        read_socket(paho, take)  # the socket is readable: one wake of the loop's reader
    assert delivered == expected
    assert all(sent.is_published() for sent in ours) and not fast
    assert paho._sock is sock and paho._in_packet["command"] == 0  # no link dropped
