"""Fixtures and helpers for the broker tests: loopback only, free ports, scaled timeouts.

Nothing here touches 127.0.0.1:1883 (a system Mosquitto may run there).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest_asyncio

from broker.embedded import EmbeddedBroker
from tests.support import SCALE as SCALE  # the suite's one factor, as these tests import it
from tests.support import wait_until_async

#: Generous bound for anything that should happen "at once" on a loaded 2-core machine.
TIMEOUT = 10.0 * SCALE
LOOPBACK = "127.0.0.1"


@pytest_asyncio.fixture
async def broker() -> AsyncIterator[EmbeddedBroker]:
    """An anonymous embedded broker on 127.0.0.1 and a free port."""
    async with EmbeddedBroker(LOOPBACK, 0) as b:
        yield b


@pytest_asyncio.fixture
async def locked_broker() -> AsyncIterator[EmbeddedBroker]:
    """An embedded broker that requires the table password ``s3cret``."""
    async with EmbeddedBroker(LOOPBACK, 0, password="s3cret") as b:
        yield b


async def eventually(condition: object, timeout: float = TIMEOUT,
                     what: str = "the condition to hold") -> None:
    """`tests.support.wait_until_async` with this folder's timeouts (scaled already)."""
    assert callable(condition)
    await wait_until_async(condition, what, timeout / SCALE)


# -- a raw MQTT 3.1.1 client, byte by byte (independent of the code under test) ----------


def _string(value: str | bytes) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return len(data).to_bytes(2, "big") + data


def _remaining_length(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


@dataclass(frozen=True)
class Will:
    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = False


def connect_packet(
    client_id: str,
    *,
    will: Will | None = None,
    username: str | None = None,
    password: str | None = None,
    keepalive: int = 60,
) -> bytes:
    flags = 0x02  # clean session
    payload = _string(client_id)
    if will is not None:
        flags |= 0x04 | (will.qos << 3) | (0x20 if will.retain else 0)
        payload += _string(will.topic) + _string(will.payload)
    if username is not None:
        flags |= 0x80
        payload += _string(username)
    if password is not None:
        flags |= 0x40
        payload += _string(password)
    body = _string("MQTT") + bytes([4, flags]) + keepalive.to_bytes(2, "big") + payload
    return b"\x10" + _remaining_length(len(body)) + body


def subscribe_packet(packet_id: int, topic: str, qos: int = 1) -> bytes:
    body = packet_id.to_bytes(2, "big") + _string(topic) + bytes([qos])
    return b"\x82" + _remaining_length(len(body)) + body


class RawClient:
    """A TCP connection speaking hand-written MQTT, for what aiomqtt won't do (abort)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, port: int, host: str = LOOPBACK) -> RawClient:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), TIMEOUT)
        return cls(reader, writer)

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def read_packet(self) -> tuple[int, bytes]:
        """(first byte, body) of the next packet."""
        async with asyncio.timeout(TIMEOUT):
            first = (await self.reader.readexactly(1))[0]
            length, shift = 0, 0
            while True:
                byte = (await self.reader.readexactly(1))[0]
                length += (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
            return first, await self.reader.readexactly(length)

    async def connect(
        self,
        client_id: str,
        *,
        will: Will | None = None,
        username: str | None = None,
        password: str | None = None,
    ) -> int:
        """Send CONNECT and return the CONNACK return code."""
        await self.send(connect_packet(client_id, will=will, username=username, password=password))
        first, body = await self.read_packet()
        assert first == 0x20, f"expected CONNACK, got packet type {first >> 4}"
        return body[1]

    async def at_eof(self) -> bool:
        """True once the broker has closed the connection (waits for it)."""
        async with asyncio.timeout(TIMEOUT):
            return await self.reader.read(1) == b""

    def abort(self) -> None:
        """Drop the connection without DISCONNECT (RST): what a crash looks like."""
        self.writer.transport.abort()

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


def publish_packet(topic: str, payload: bytes) -> bytes:
    """A QoS 0 PUBLISH."""
    body = _string(topic) + payload
    return b"\x30" + _remaining_length(len(body)) + body
