"""probe_mqtt tells an MQTT broker from anything else at host:port; free_port."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from broker.embedded import EmbeddedBroker, free_port, probe_mqtt

from .conftest import LOOPBACK, SCALE, eventually

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
#: Short: the "nothing answers" cases wait for the whole probe timeout.
PROBE_TIMEOUT = 0.5 * SCALE


@asynccontextmanager
async def tcp_server(handler: Handler) -> AsyncIterator[int]:
    """A plain TCP server on loopback running `handler` per connection; yields its port."""
    tasks: set[asyncio.Task[None]] = set()

    async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        try:
            await handler(reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(tracked, LOOPBACK, 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(3600)  # the server under test that never answers


async def http_like(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(100)
    writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    await writer.drain()


async def hangs_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(100)


async def short_reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(100)
    writer.write(b"\x20\x02")  # the start of a CONNACK, then nothing
    await writer.drain()
    await asyncio.sleep(3600)  # the server under test that never answers


@pytest.mark.asyncio
async def test_probe_answers_true_for_the_embedded_broker(broker: EmbeddedBroker) -> None:
    assert await probe_mqtt(LOOPBACK, broker.port)
    # the probe disconnects cleanly and leaves no client behind
    await eventually(lambda: broker.client_count == 0)


@pytest.mark.asyncio
async def test_probe_counts_a_refusal_as_an_mqtt_broker(locked_broker: EmbeddedBroker) -> None:
    assert await probe_mqtt(LOOPBACK, locked_broker.port)


@pytest.mark.asyncio
@pytest.mark.parametrize("handler", [silent, http_like, hangs_up, short_reply])
async def test_probe_answers_false_for_other_tcp_servers(handler: Handler) -> None:
    async with tcp_server(handler) as port:
        assert not await probe_mqtt(LOOPBACK, port, timeout=PROBE_TIMEOUT)


@pytest.mark.asyncio
async def test_probe_answers_false_for_a_closed_port() -> None:
    assert not await probe_mqtt(LOOPBACK, free_port(), timeout=PROBE_TIMEOUT)


def test_free_port_can_be_bound() -> None:
    port = free_port(LOOPBACK)
    assert 0 < port < 65536
    with socket.socket() as sock:
        sock.bind((LOOPBACK, port))
