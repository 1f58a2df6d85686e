"""The transport reads the broker's socket ahead and takes QoS 0 frames and PUBACKs
without paho's message objects (issue #28): whatever the sizes and however the bytes are
cut, every frame arrives whole, once, in order, and every frame published at QoS 1 is
acknowledged."""

from __future__ import annotations

import asyncio
import random

import pytest

from broker.embedded import EmbeddedBroker
from netplay.transport import READ_AHEAD, BrokerAddress, MqttTransport, _ReadAhead
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
        assert isinstance(receiver._live._client._sock, _ReadAhead)  # type: ignore[union-attr]
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
    sock = _ReadAhead(_Pieces([b"abcdef", b"gh"]))  # type: ignore[arg-type]
    assert sock.recv(1) == b"a" and sock.pending() == 5
    assert sock.recv(3) == b"bcd"
    assert sock.recv(10) == b"ef" and sock.pending() == 0  # never past what was read
    assert sock.recv(10) == b"gh"
    with pytest.raises(BlockingIOError):  # nothing more: paho waits for the next read
        sock.recv(1)
