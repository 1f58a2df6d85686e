"""Does the broker hold small messages back? (Nagle's algorithm meeting delayed ACKs.)

A broker that writes small TCP segments without ``TCP_NODELAY`` (a stock Mosquitto: no
``set_tcp_nodelay true``) makes a message wait for the ACK of the one before it, which
the receiver delays by up to 40 ms. ``probe`` times a few QoS 1 round trips through the
broker and back to the same client, the way a peer's own messages travel; a host runs it
once at start and says so in words when the broker is that slow.
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
                    payload = i.to_bytes(4, "big") + bytes(150)
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


def slow_words(url: str, median_ms: float) -> str:
    return (f"the broker at {BrokerAddress.parse(url).url} holds small messages back: a round "
            f"trip through it takes {median_ms:.0f} ms (a well-set broker answers in about "
            "1 ms), and every action pays it on each hop. On Mosquitto, add the line "
            "'set_tcp_nodelay true' to its config and restart it (the configs in "
            "broker/mosquitto/ have it).")
