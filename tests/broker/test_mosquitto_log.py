"""A Mosquitto that stacks runs (`broker.mosquitto_runner.MosquittoProcess`: ``stacks host``
and ``stacks broker`` with ``--broker-impl mosquitto``, the tests) keeps serving however
much it logs. Its log, on its stderr, says two or three lines of every connection; the
stderr was a pipe nobody read, and once that was full (about 750 connections, or 90
with long client ids) the broker stopped in mid-write, every client with it."""

from __future__ import annotations

import asyncio

import aiomqtt
import pytest

from broker.mosquitto_runner import MosquittoProcess, find_mosquitto
from tests.broker.conftest import LOOPBACK, TIMEOUT
from tests.support import free_port

CONNECTIONS = 200
LONG_ID = "x" * 8000
"""A client id that makes each connection's log lines long (Mosquitto cuts them at
about 1 KiB): the pipe fills in fewer connections than with short ones."""


@pytest.mark.asyncio
async def test_mosquitto_keeps_serving_after_its_log_outgrew_a_pipe() -> None:
    try:
        find_mosquitto()
    except RuntimeError:
        pytest.skip("mosquitto is not installed")
    port = free_port()
    async with MosquittoProcess(LOOPBACK, port):
        for n in range(CONNECTIONS):
            try:
                async with asyncio.timeout(TIMEOUT), \
                        aiomqtt.Client(LOOPBACK, port, identifier=f"c{n}-{LONG_ID}",
                                       timeout=TIMEOUT) as client:
                    await client.publish("log/test", b"x", qos=1)
            except (TimeoutError, aiomqtt.MqttError) as exc:
                pytest.fail(f"connection {n + 1} of {CONNECTIONS} got no answer from "
                            f"Mosquitto ({exc!r}): it stopped")
