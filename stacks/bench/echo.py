"""The floor of ``stacks bench net``: the two-hop QoS 1 echo an action's path can't beat.

``python -m stacks.bench.echo URL`` is the echo process: it republishes every
message of ``<prefix>/ping`` on ``<prefix>/pong``, with the client library and socket
options the peers use (aiomqtt, QoS 1, TCP_NODELAY). :func:`measure_floor` is the
player's side: publish, wait for the echo, time it. No signing, no engine, no sealing:
what is left is the broker, the client library and two processes' event loops.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator

import aiomqtt

from netplay.transport import BrokerAddress

PAYLOAD = 300
"""Bytes per echo: about a sealed action frame."""


def _client(url: str, name: str) -> aiomqtt.Client:
    address = BrokerAddress.parse(url)
    return aiomqtt.Client(
        address.host, address.port, username=address.username, password=address.password,
        identifier=f"{name}-{uuid.uuid4().hex[:8]}", protocol=aiomqtt.ProtocolVersion.V311,
        socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
    )


async def echo(url: str, prefix: str) -> None:
    async with _client(url, "echo") as client:
        await client.subscribe(f"{prefix}/ping", qos=1)
        print("ready", flush=True)
        async for message in client.messages:
            payload = message.payload
            if isinstance(payload, bytes | bytearray):
                await client.publish(f"{prefix}/pong", bytes(payload), qos=1)


async def measure_floor(url: str, count: int) -> list[float]:
    """``count`` round trips player -> echo process -> player, in seconds."""
    prefix = f"sstacks/bench/{uuid.uuid4().hex[:10]}"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "stacks.bench.echo", url, prefix,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    samples: list[float] = []
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        if line.strip() != b"ready":
            raise RuntimeError("the echo process did not start")
        async with _client(url, "floor") as client:
            await client.subscribe(f"{prefix}/pong", qos=1)
            messages = _payloads(client)
            body = os.urandom(PAYLOAD - 8)
            for i in range(count + 20):  # the first 20 warm up the path
                payload = i.to_bytes(8, "big") + body
                started = time.perf_counter()
                await client.publish(f"{prefix}/ping", payload, qos=1)
                while True:
                    got = await asyncio.wait_for(anext(messages), 10)
                    if got == payload:
                        break
                if i >= 20:
                    samples.append(time.perf_counter() - started)
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        await proc.wait()
    return samples


async def _payloads(client: aiomqtt.Client) -> AsyncIterator[bytes]:
    async for message in client.messages:
        if isinstance(message.payload, bytes | bytearray):
            yield bytes(message.payload)


if __name__ == "__main__":  # the echo process
    with contextlib.suppress(KeyboardInterrupt, aiomqtt.MqttError):
        asyncio.run(echo(sys.argv[1], sys.argv[2]))
