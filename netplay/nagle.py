"""Does the broker hold small messages back? (Nagle's algorithm meeting delayed ACKs.)

A broker that writes small TCP segments without ``TCP_NODELAY`` (a stock Mosquitto: no
``set_tcp_nodelay true``) makes a message wait for the ACK of the one before it, which
the receiver delays by up to 40 ms. ``probe`` times a few QoS 1 round trips through the
broker and back to the same client, the way a peer's own messages travel; a host runs
:func:`holds_back` once at start and says so in words when the broker is that slow, is a
Mosquitto (whose option is the fix), and this machine is not as slow without it (a busy CPU
slows every round trip; the option would not help).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import statistics
import time
import uuid

import aiomqtt

from netplay.aio import cancel_and_wait
from netplay.transport import BrokerAddress

SLOW_MS = 15.0
"""A loopback or LAN round trip above this is the broker holding messages, not the wire."""
ROUNDS = 6
SIZE = 154
"""Bytes of one probe message (a small action's frame)."""


async def probe(url: str, *, rounds: int = ROUNDS, timeout: float = 5.0) -> float | None:
    """Median ms of ``rounds`` two-hop QoS 1 echoes (client -> broker -> echo client ->
    broker -> client: the path of an action and its answer), or ``None`` if the broker
    could not be asked (the peers report that in their own words)."""
    address = BrokerAddress.parse(url)
    base = f"sstacks/probe/{uuid.uuid4().hex[:12]}"
    times: list[float] = []

    def client(name: str) -> aiomqtt.Client:
        return aiomqtt.Client(
            address.host, address.port, username=address.username, password=address.password,
            identifier=f"{name}-{uuid.uuid4().hex[:8]}", timeout=timeout,
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
        )

    async def echo(echoer: aiomqtt.Client) -> None:
        async for message in echoer.messages:
            if isinstance(message.payload, bytes):
                await echoer.publish(f"{base}/pong", message.payload, qos=1)

    with contextlib.suppress(aiomqtt.MqttError, OSError, TimeoutError):
        async with client("probe") as asker, client("echo") as echoer:
            await echoer.subscribe(f"{base}/ping", qos=1)
            await asker.subscribe(f"{base}/pong", qos=1)
            echoing = asyncio.create_task(echo(echoer))
            try:
                messages = asker.messages
                for i in range(rounds):
                    payload = i.to_bytes(4, "big") + bytes(SIZE - 4)
                    started = time.perf_counter()
                    await asker.publish(f"{base}/ping", payload, qos=1)
                    async with asyncio.timeout(timeout):
                        async for message in messages:
                            if message.payload == payload:
                                break
                    times.append((time.perf_counter() - started) * 1000)
            finally:
                await cancel_and_wait(echoing)
    return statistics.median(times) if times else None


async def baseline(*, rounds: int = ROUNDS, timeout: float = 5.0) -> float | None:
    """Median ms of ``rounds`` two-hop echoes over loopback TCP inside this process, with
    no broker on the way: what this machine takes right now (a busy CPU makes it slow;
    Nagle does not, both ends set ``TCP_NODELAY``). ``None`` if loopback can't be used."""
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while True:
                writer.write(await reader.readexactly(SIZE))
                await writer.drain()
        writer.close()

    times: list[float] = []
    with contextlib.suppress(OSError, TimeoutError):
        server = await asyncio.start_server(echo, "127.0.0.1", 0)
        try:
            port = server.sockets[0].getsockname()[1]
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.get_extra_info("socket").setsockopt(
                    socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                try:
                    for i in range(rounds):
                        payload = i.to_bytes(4, "big") + bytes(SIZE - 4)
                        started = time.perf_counter()
                        for _hop in range(2):
                            writer.write(payload)
                            await writer.drain()
                            await reader.readexactly(SIZE)
                        times.append((time.perf_counter() - started) * 1000)
                finally:
                    writer.close()
        finally:
            server.close()
    return statistics.median(times) if times else None


async def software(url: str, *, timeout: float = 2.0) -> str | None:
    """The broker's own name for itself (``$SYS/broker/version``, which Mosquitto keeps
    retained: "mosquitto version 2.0.11"), or ``None`` when it says nothing."""
    address = BrokerAddress.parse(url)
    with contextlib.suppress(aiomqtt.MqttError, OSError, TimeoutError):
        async with aiomqtt.Client(
            address.host, address.port, username=address.username, password=address.password,
            identifier=f"version-{uuid.uuid4().hex[:8]}", timeout=timeout,
        ) as client:
            await client.subscribe("$SYS/broker/version")
            async with asyncio.timeout(timeout):
                async for message in client.messages:
                    if isinstance(message.payload, bytes):
                        return message.payload.decode("utf-8", "replace")[:80]
    return None


async def holds_back(url: str) -> float | None:
    """The ms a broker adds to each round trip by holding small messages back, when that
    is what slows it: only a Mosquitto (the fix named is its option), only beyond what
    this machine takes without any broker (a busy CPU slows both), else ``None``."""
    delay = await probe(url)
    if delay is None or delay <= SLOW_MS:
        return None
    base = await baseline()
    if base is None or delay - base <= SLOW_MS:
        return None
    name = await software(url)
    if name is None or "mosquitto" not in name.lower():
        return None
    return delay


MEASURE_WAIT = 20.0
"""Seconds the one measurement at start may take before it is let go (said nothing)."""


async def slow_broker_words(url: str, shown: str | None = None) -> str | None:
    """The one sentence to say when the broker at ``url`` holds small messages back
    (:func:`holds_back`, measured once within :data:`MEASURE_WAIT`), else ``None``;
    ``shown``: the address to name in it, when it is not ``url``. Used by every place
    that measures its broker at start (the headless host, the interface's host, the ssh
    server), each saying it to whoever can fix the broker."""
    try:
        delay = await asyncio.wait_for(holds_back(url), MEASURE_WAIT)
    except (TimeoutError, OSError):
        return None
    return None if delay is None else slow_words(shown or url, delay)


def slow_words(url: str, median_ms: float) -> str:
    """The slow broker in one short sentence, with its fix."""
    address = BrokerAddress.parse(url)
    return (f"Mosquitto at {address.host}:{address.port} holds small messages back "
            f"({median_ms:.0f} ms a round trip): add 'set_tcp_nodelay true' to its config.")
