"""Receiving frames makes no garbage that only the cyclic collector can free: in a process
of many peers such garbage made it collect often, and every collection holds up every
table of the process."""

from __future__ import annotations

import asyncio
import gc
from collections import Counter

import pytest

from broker.embedded import EmbeddedBroker
from netplay.transport import BrokerAddress, MqttTransport
from netplay.wire import Outgoing
from tests.broker.conftest import LOOPBACK, TIMEOUT, eventually

FRAMES = 300


@pytest.mark.asyncio
async def test_frames_received_leave_no_reference_cycles_behind() -> None:
    broker = EmbeddedBroker(LOOPBACK, 0)
    await broker.start()
    address = BrokerAddress(LOOPBACK, broker.port)
    sender = MqttTransport(address, [], client_name="sender")
    receiver = MqttTransport(address, ["g/in"], client_name="receiver")
    received: list[tuple[str, bytes]] = []
    try:
        await sender.start()
        await receiver.start()
        assert await sender.wait_connected(TIMEOUT) and await receiver.wait_connected(TIMEOUT)
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept
        try:
            for n in range(FRAMES):
                sender.publish(Outgoing("g/in", n.to_bytes(2, "big")))
                if n % 20 == 0:
                    await asyncio.sleep(0)

            def all_in() -> bool:
                received.extend(receiver.ready(FRAMES))
                return len(received) == FRAMES

            await eventually(all_in)
            gc.collect()
            cycles = Counter(getattr(o, "__qualname__", "") for o in gc.garbage
                             if callable(o) and "paho" in getattr(o, "__module__", ""))
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
    finally:
        await receiver.stop()
        await sender.stop()
        await broker.stop()
    assert [payload for _, payload in received] == [n.to_bytes(2, "big") for n in range(FRAMES)]
    # paho's matcher made a recursive closure, a cycle, for every message it delivered.
    assert sum(cycles.values()) < FRAMES // 10, cycles
